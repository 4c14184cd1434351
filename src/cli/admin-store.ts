import { Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';
import { loadFxReference } from '../reference/fx-rates.js';

/** Admin commands open the file briefly, bring the schema and reference data up to date, do one thing, close. */
export async function withAdminStore<T>(dbPath: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await Database.open(dbPath, { readConnections: 1, maxQueued: 16 });
  try {
    await migrate(db);
    await loadFxReference(db);
    return await work(db);
  } finally {
    await db.close();
  }
}
