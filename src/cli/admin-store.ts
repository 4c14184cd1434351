import { Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';
import { migratePostgres } from '../store/postgres/postgres-migrate.js';
import { PostgresStore, StoreConfigurationError } from '../store/postgres/postgres-store.js';
import { CliError } from './command.js';
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

/** A PostgreSQL store for one admin command, beside whatever replicas run on it. */
export async function openPostgresAdminStore(url: string): Promise<PostgresStore> {
  let store: PostgresStore;
  try {
    store = await PostgresStore.open(url, { connections: 2, maxQueued: 16, startTimeoutMs: 10_000 });
  } catch (error) {
    if (error instanceof StoreConfigurationError) throw new CliError(error.message);
    throw error;
  }
  try {
    await migratePostgres(store);
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}
