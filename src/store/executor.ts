import type { LazyRows } from './lazy-rows.js';
import type { Row, SqlParams } from './sql-values.js';

/** What store functions see: one connection, parameters always bound, never pasted. */
export interface Executor {
  all<T extends object = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  one<T extends object = Row>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /**
   * Runs a query and leaves its rows in DuckDB's memory, read cell by cell (BLOBs copied only
   * when read); the caller releases them, also after the connection went back to the pool.
   */
  lazy(sql: string, params?: SqlParams): Promise<LazyRows>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /** Runs an UPDATE, INSERT or DELETE and answers how many rows it changed. */
  rowsChanged(sql: string, params?: SqlParams): Promise<number>;
  /**
   * Appends rows to a table (usually a TEMP staging table) column by column through DuckDB's
   * appender, inside the caller's transaction: ~10x faster than INSERT with bound values.
   */
  append(table: string, columns: readonly AppendColumn[]): Promise<void>;
  /** Runs a one-off statement (an export's COPY) without caching its plan. */
  runOnce(sql: string, params: SqlParams): Promise<void>;
  /** Stops the statement running on this connection (it fails with an interrupt error). */
  interrupt(): void;
}

/** A prepared statement's shape: DuckDB's types of its parameters and of its columns (`BIGINT`, `DECIMAL(38,9)`, ...). */
export interface StatementShape {
  readonly parameterTypes: readonly string[];
  readonly columns: readonly { readonly name: string; readonly type: string }[];
}

/**
 * What the SQL endpoint (issue 41) needs beyond Executor on the embedded store: a statement's
 * shape before it runs (the protocol describes rows before they exist), and its rows as exact
 * text where JS numbers are not (DECIMAL, HUGEINT, dates).
 */
export interface DescribingExecutor extends Executor {
  describe(sql: string): Promise<StatementShape>;
  /**
   * Runs a statement whose parameters are all text (the SQL casts them); values as strings, numbers,
   * bigints, booleans or null. An aborted `signal` interrupts it, also when it aborts before the run
   * starts (DuckDB drops an interrupt that comes before), and rejects with an `AbortedStatement`.
   */
  allDescribed(
    sql: string,
    params: readonly (string | number | null)[],
    signal?: AbortSignal,
    /** Read at most this many rows (streamed: the rest is never computed into memory). */
    maxRows?: number,
  ): Promise<{ shape: StatementShape; rows: unknown[][] }>;
}

/** A statement stopped by its signal (a cancel or a timeout), whether DuckDB had started it or not. */
export class AbortedStatement extends Error {
  constructor() {
    super('statement aborted');
    this.name = 'AbortedStatement';
  }
}

export function isDescribing(executor: Executor): executor is DescribingExecutor {
  return typeof (executor as Partial<DescribingExecutor>).describe === 'function';
}

/** One column of rows to append; all columns of a call have the same length. */
export type AppendColumn =
  | { readonly type: 'VARCHAR'; readonly values: ReadonlyArray<string | null> }
  | { readonly type: 'INTEGER' | 'BIGINT' | 'DOUBLE'; readonly values: ReadonlyArray<number | null> }
  | { readonly type: 'BOOLEAN'; readonly values: ReadonlyArray<boolean | null> };
