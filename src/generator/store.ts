import { Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';

export interface GeneratorStoreSettings {
  /** DuckDB memory_limit, e.g. "1GB"; larger sorts spill to `<database file>.tmp` in the data directory. */
  readonly memoryLimit: string;
  readonly threads?: number | undefined;
}

/** The generator's default: a chunk's sort fits (~2 M rows); more only caches blocks. ADREPORT_DB_MEMORY_LIMIT overrides it. */
export const GENERATOR_MEMORY_LIMIT = '512MB';

/**
 * Like the admin commands' store (src/cli/admin-store.ts), with a memory limit of its own: the
 * one instance of this process on the file (DESIGN D1), migrated, closed (and checkpointed) after.
 */
export async function withGeneratorStore<T>(
  dbPath: string,
  settings: GeneratorStoreSettings,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  const db = await Database.open(dbPath, {
    readConnections: 1,
    maxQueued: 16,
    memoryLimit: settings.memoryLimit,
    threads: settings.threads,
  });
  try {
    await migrate(db);
    return await work(db);
  } finally {
    await db.close();
  }
}
