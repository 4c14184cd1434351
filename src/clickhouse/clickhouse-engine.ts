import { PassThrough, type Readable } from 'node:stream';
import type { ClickHouseSettings } from '@clickhouse/client';
import type { ReportEngine, ReportReader, ReportRows } from '../reporting/report-engine.js';
import type { ExportStream } from '../reporting/export-stream.js';
import type { CompiledQuery, ExportFormat } from '../sql/compiled-query.js';
import type { SqlDialect } from '../sql/dialect.js';
import type { ReportTicket } from '../store/report-scheduler.js';
import type { Row, SqlValue } from '../store/sql-values.js';
import { WorkLimiter } from '../store/work-limiter.js';
import { ApiError } from '../shared/errors.js';
import { ClickHouseFailure, type ClickHouse, type ClickHouseParams, type RawFormat } from './clickhouse-connection.js';

/** What the engine needs of the ClickHouse dialect besides the SqlDialect: binding and settings. */
export interface ClickHouseSql {
  readonly dialect: SqlDialect;
  /** Placeholders typed from the bound values, the values as query parameters (never in the text). */
  bind(sql: string, params: readonly SqlValue[]): { sql: string; params: ClickHouseParams };
  /** join_use_nulls, group_by_use_nulls, ...: what every report statement needs to mean what DuckDB means. */
  readonly settings: ClickHouseSettings;
}

const PROBE_INTERVAL_MS = 1_000;

/** Numbers as numbers, as DuckDB's reader gives safe BIGINTs and decimals. */
export const OUTPUT_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 0,
  output_format_json_quote_decimals: 0,
};

/**
 * Reports on ClickHouse (issue 22): the compiled statements of the ClickHouse dialect run on the
 * replica through @clickhouse/client (a server, or chdb in process). A call that gets no answer
 * marks the engine unreachable, which the selection turns into 503s (or DuckDB) until a ping
 * answers again.
 */
export class ClickHouseReportEngine implements ReportEngine {
  readonly name = 'clickhouse';
  readonly dialect: SqlDialect;
  private readonly limiter: WorkLimiter;
  private readonly settings: ClickHouseSettings;
  /** Set by a call that got no answer; cleared once a ping (every second meanwhile) answers. */
  unreachableSince: number | undefined;
  private probing: NodeJS.Timeout | undefined;
  private readonly reader: ReportReader;

  constructor(
    private readonly clickhouse: ClickHouse,
    private readonly sql: ClickHouseSql,
    options: { readonly concurrency: number; readonly maxQueued: number },
  ) {
    this.dialect = sql.dialect;
    this.limiter = new WorkLimiter(options.concurrency, options.maxQueued);
    this.settings = { ...sql.settings, ...OUTPUT_SETTINGS };
    this.reader = readerOn(clickhouse, sql, this.settings);
  }

  read<T>(_ticket: ReportTicket, work: (r: ReportReader) => Promise<T>): Promise<T> {
    return this.limiter.run(() => this.watch(() => work(this.reader)));
  }

  async openExport(_organizationId: number, compiled: CompiledQuery, format: ExportFormat): Promise<ExportStream> {
    const { sql, params } = this.sql.bind(compiled.sql, compiled.params);
    const output = this.dialect.exportFormat(format);
    if (output === undefined) throw new Error(`the ${this.dialect.name} dialect streams no ${format}`);
    const source = await this.watch(() =>
      this.clickhouse.raw(sql, params, output.format as RawFormat, { ...this.settings, ...output.settings }),
    );
    return exportStreamOf(source);
  }

  /** No answer came: reports of replicated organizations get 503 (or DuckDB) until a ping answers. */
  markUnreachable(): void {
    this.unreachableSince ??= Date.now();
    if (this.probing) return;
    this.probing = setInterval(() => {
      void this.clickhouse.ping().then((up) => {
        if (up) this.markReachable();
      });
    }, PROBE_INTERVAL_MS);
    this.probing.unref();
  }

  /** ClickHouse answered (a ping, a replication pass). */
  markReachable(): void {
    clearInterval(this.probing);
    this.probing = undefined;
    this.unreachableSince = undefined;
  }

  close(): void {
    clearInterval(this.probing);
    this.probing = undefined;
  }

  private async watch<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ClickHouseFailure && error.unreachable) {
        this.markUnreachable();
        throw reportEngineUnavailable();
      }
      throw error;
    }
  }
}

/** ClickHouse's raw output as an export stream: its outcome is how the source ended; closing it stops the source. */
export function exportStreamOf(source: Readable): ExportStream {
  const out = new PassThrough() as PassThrough & { outcome: Promise<Error | undefined> };
  out.outcome = new Promise((resolve) => {
    source.once('end', () => resolve(undefined));
    source.once('error', (error) => {
      resolve(error);
      out.destroy(error);
    });
    out.once('close', () => source.destroy());
  });
  source.pipe(out);
  return out;
}

/** A report's statements on one ClickHouse connection: bound as query parameters, with the report settings. */
export function readerOn(clickhouse: ClickHouse, sql: ClickHouseSql, settings: ClickHouseSettings): ReportReader {
  async function all<T extends object = Row>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    const bound = sql.bind(text, params);
    return clickhouse.rows<T>(bound.sql, bound.params, settings);
  }
  async function one<T extends object = Row>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await all<T>(text, params))[0];
  }
  return {
    all,
    one,
    lazy: async (text, params = []): Promise<ReportRows> => {
      const bound = sql.bind(text, params);
      const rows = await clickhouse.compactRows(bound.sql, bound.params, settings);
      return { rowCount: rows.length, get: (row, column) => rows[row]![column], release: () => undefined };
    },
  };
}

/** 503 with Retry-After: the report may run again once ClickHouse answers (or on DuckDB, by the fallback). */
export function reportEngineUnavailable(): ApiError {
  return new ApiError(
    503,
    'report_engine_unavailable',
    'The report engine (ClickHouse) does not answer; retry shortly.',
    [],
    {
      'Retry-After': '5',
    },
  );
}
