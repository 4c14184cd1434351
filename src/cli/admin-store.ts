import { Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';

/** Admin commands open the file briefly, bring the schema up to date, do one thing, close. */
export async function withAdminStore<T>(dbPath: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await Database.open(dbPath, { readConnections: 1, maxQueued: 16 });
  try {
    await migrate(db);
    return await work(db);
  } finally {
    await db.close();
  }
}
