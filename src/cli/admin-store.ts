import { Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';
import { loadFxReference } from '../reference/fx-rates.js';

/**
 * Opens the file for one admin command and brings the schema and reference data up to date.
 * Throws DatabaseLockedError when another process (a server) holds it.
 */
export async function openAdminStore(dbPath: string): Promise<Database> {
  const db = await Database.open(dbPath, { readConnections: 1, maxQueued: 16 });
  try {
    await migrate(db);
    await loadFxReference(db);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * The file to itself, for one piece of work. Admin commands go through `adminCommand` instead
 * (src/cli/admin), which also reaches a server holding the file.
 */
export async function withAdminStore<T>(dbPath: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openAdminStore(dbPath);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}
