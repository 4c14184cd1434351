import type { CompiledQuery, ExportFormat } from '../sql/compiled-query.js';
import type { SqlDialect } from '../sql/dialect.js';
import { duckdbDialect } from '../sql/compile-report.js';
import type { Store } from '../store/store.js';
import type { ReportTicket } from '../store/report-scheduler.js';
import type { Row, SqlValue } from '../store/sql-values.js';
import type { ExportService, ExportStream } from './export-stream.js';
import type { ReportEngineName } from './report-engines.js';

/** The engines a report can run on (report-engines.ts); every report response names its own in X-Report-Engine. */
export type { ReportEngineName };
export const REPORT_ENGINE_HEADER = 'X-Report-Engine';

/** A finished result read cell by cell (DuckDB: out of its memory; ClickHouse: parsed rows). */
export interface ReportRows {
  readonly rowCount: number;
  get(row: number, column: number): unknown;
  release(): void;
}

/** What a report's statements run on: one connection of one engine, values always bound. */
export interface ReportReader {
  all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  one<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  lazy(sql: string, params?: readonly SqlValue[]): Promise<ReportRows>;
}

/**
 * One engine that runs compiled reports: the SQL of a report runs entirely on it (its dialect),
 * never half here and half there.
 */
export interface ReportEngine {
  readonly name: ReportEngineName;
  readonly dialect: SqlDialect;
  /** Runs `work` with a reader once the organization's turn comes (fair scheduling where the engine has it). */
  read<T>(ticket: ReportTicket, work: (r: ReportReader) => Promise<T>): Promise<T>;
  /** Streams an export statement's rows in `format`. */
  openExport(organizationId: number, compiled: CompiledQuery, format: ExportFormat): Promise<ExportStream>;
}

/** Which engine answers an organization's reports now; throws a 503 when that engine is away. */
export interface ReportEngineSelector {
  engineFor(organizationId: number): ReportEngine;
}

/** The embedded default: the DuckDB file itself, with its report lane and its named-pipe exports. */
export class DuckDbReportEngine implements ReportEngine, ReportEngineSelector {
  readonly name = 'duckdb';
  readonly dialect = duckdbDialect;

  constructor(
    private readonly db: Store,
    private readonly exports: ExportService,
  ) {}

  read<T>(ticket: ReportTicket, work: (r: ReportReader) => Promise<T>): Promise<T> {
    return this.db.readReport(ticket, (r) => work(r as ReportReader));
  }

  openExport(organizationId: number, compiled: CompiledQuery, format: ExportFormat): Promise<ExportStream> {
    return this.exports.open(organizationId, compiled, format);
  }

  engineFor(): ReportEngine {
    return this;
  }
}
