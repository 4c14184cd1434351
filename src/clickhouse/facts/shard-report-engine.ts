import type { ClickHouseSettings } from '@clickhouse/client';
import type { ExportStream } from '../../reporting/export-stream.js';
import type { ReportEngine, ReportEngineSelector, ReportReader } from '../../reporting/report-engine.js';
import type { CompiledQuery, ExportFormat } from '../../sql/compiled-query.js';
import type { SqlDialect } from '../../sql/dialect.js';
import type { ReportTicket } from '../../store/report-scheduler.js';
import { WorkLimiter } from '../../store/work-limiter.js';
import { ClickHouseFailure, type ClickHouse, type RawFormat } from '../clickhouse-connection.js';
import {
  exportStreamOf,
  OUTPUT_SETTINGS,
  readerOn,
  reportEngineUnavailable,
  type ClickHouseSql,
} from '../clickhouse-engine.js';
import type { FactNode, FactTopology } from './fact-topology.js';

/** A replica that did not answer is tried last for this long. */
const AWAY_MS = 5_000;

/**
 * Errors that mean "this replica, or the shard behind it, cannot answer now", not "this report is
 * wrong": no connection, or ClickHouse's own word that it reached no replica of a shard.
 */
const AWAY_CODES = new Set([
  'ALL_CONNECTION_TRIES_FAILED',
  'NETWORK_ERROR',
  'SOCKET_TIMEOUT',
  'UNEXPECTED_PACKET_FROM_SERVER',
  // The node's PostgreSQL-engine tables could not reach the store, or waited too long for a pooled connection.
  'POSTGRESQL_CONNECTION_FAILURE',
]);

function isAway(error: unknown): boolean {
  return error instanceof ClickHouseFailure && (error.unreachable || AWAY_CODES.has(error.code ?? ''));
}

/**
 * Reports where the facts live in ClickHouse (issue 38): a report of organization K is sent to a
 * replica of K's own shard, which holds all of K's rows, and reads its own tables there (views in
 * `<database>_reads`, so the statement touches that one node) and the dimensions from PostgreSQL. A replica that does not answer is skipped for the next; when
 * no replica of the shard answers, the report is a 503 report_engine_unavailable with Retry-After,
 * never a partial number, and organizations of other shards are served as before.
 */
export class ShardReportEngine implements ReportEngine, ReportEngineSelector {
  readonly name = 'clickhouse';
  readonly dialect: SqlDialect;
  private readonly limiter: WorkLimiter;
  private readonly settings: ClickHouseSettings;
  private readonly awayUntil = new Map<FactNode, number>();
  private turn = 0;

  constructor(
    private readonly topology: FactTopology,
    private readonly sql: ClickHouseSql,
    options: { readonly concurrency: number; readonly maxQueued: number },
  ) {
    this.dialect = sql.dialect;
    this.limiter = new WorkLimiter(options.concurrency, options.maxQueued);
    this.settings = { ...sql.settings, ...OUTPUT_SETTINGS };
  }

  engineFor(): ReportEngine {
    return this;
  }

  read<T>(ticket: ReportTicket, work: (r: ReportReader) => Promise<T>): Promise<T> {
    // Reads only: a statement cut off on one replica is run whole again on the next.
    return this.limiter.run(() =>
      this.onShard(ticket.organizationId, (ch) => work(readerOn(ch, this.sql, this.settings))),
    );
  }

  async openExport(organizationId: number, compiled: CompiledQuery, format: ExportFormat): Promise<ExportStream> {
    const { sql, params } = this.sql.bind(compiled.sql, compiled.params);
    const output = this.dialect.exportFormat(format);
    if (output === undefined) throw new Error(`the ${this.dialect.name} dialect streams no ${format}`);
    const source = await this.onShard(organizationId, (ch) =>
      ch.raw(sql, params, output.format as RawFormat, { ...this.settings, ...output.settings }),
    );
    return exportStreamOf(source);
  }

  /** Runs `work` on a replica of the organization's shard, the next one when it does not answer. */
  private async onShard<T>(organizationId: number, work: (ch: ClickHouse) => Promise<T>): Promise<T> {
    const now = Date.now();
    // Reports take turns over the replicas (read capacity grows with them), the away ones last.
    const shard = this.topology.shardOf(organizationId);
    const first = this.turn++ % shard.length;
    const replicas = [...shard.slice(first), ...shard.slice(0, first)].sort(
      (a, b) => Number((this.awayUntil.get(a) ?? 0) > now) - Number((this.awayUntil.get(b) ?? 0) > now),
    );
    for (const node of replicas) {
      try {
        const result = await work(node.reads);
        this.awayUntil.delete(node);
        return result;
      } catch (error) {
        if (!isAway(error)) throw error;
        this.awayUntil.set(node, Date.now() + AWAY_MS);
      }
    }
    throw reportEngineUnavailable();
  }
}
