import type { Executor } from '../database.js';

/** One schema version (kept apart from index.ts, which lists them all, so a migration does not import its own list). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Statements run in order inside one transaction with the bookkeeping row. */
  readonly statements: readonly string[];
  /**
   * Work outside SQL, run in that transaction before the statements (e.g. moving a secret into a
   * file). It must be idempotent: a failed commit runs it again at the next start.
   */
  readonly before?: (tx: Executor, context: MigrationContext) => Promise<void>;
}

export interface MigrationContext {
  /** The database file being migrated. */
  readonly dbPath: string;
  readonly now: Date;
}
