import type { DataVersions, WriteScope } from './data-versions.js';
import type { Executor } from './executor.js';
import type { ReportLaneState, ReportTicket } from './report-scheduler.js';
import type { StoreDialect } from './store-dialect.js';

/**
 * What every folder but the composition root sees of the service's own store: the embedded
 * DuckDB file (`Database`, DESIGN D1) or PostgreSQL shared by any number of replicas
 * (`PostgresStore`, DESIGN D12). The SQL of accounts, jobs or webhooks is written once; where the
 * two engines differ, it asks `dialect`.
 */
export interface Store {
  readonly dialect: StoreDialect;
  /** What messages name: the DuckDB file, or the PostgreSQL URL without its password. */
  readonly dbPath: string;
  /** Per-organization versions of the data reports read (ETags, the page cache). */
  readonly versions: DataVersions;
  /** Transactions ended so far by this process's writes (a cheap "did anything change" for caches). */
  readonly writes: number;
  read<T>(work: (db: Executor) => Promise<T>): Promise<T>;
  readReport<T>(ticket: ReportTicket, work: (db: Executor) => Promise<T>): Promise<T>;
  readExport<T>(organizationId: number, work: (db: Executor) => Promise<T>): Promise<T>;
  reportLane(): ReportLaneState;
  write<T>(scope: WriteScope, work: (tx: Executor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
