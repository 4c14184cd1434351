import type { ReportEngine, ReportEngineSelector } from '../reporting/report-engine.js';
import { reportEngineUnavailable, type ClickHouseReportEngine } from './clickhouse-engine.js';
import type { ClickHouseReplicator } from './replicator.js';

/** What a report of a replicated organization gets while ClickHouse does not answer. */
export type ClickHouseFallback = 'unavailable' | 'duckdb';

/** At most one ping this often while ClickHouse is marked unreachable. */
const PROBE_INTERVAL_MS = 2_000;

/**
 * Picks an organization's engine per request: ClickHouse once everything it reads is replicated
 * (and no write is waiting to be), DuckDB before that, so a report never reads a stale replica.
 * ClickHouse unreachable: 503 with Retry-After, or DuckDB with `fallback: 'duckdb'`.
 */
export class ClickHouseSelection implements ReportEngineSelector {
  private lastProbe = 0;

  constructor(
    private readonly duckdb: ReportEngine,
    private readonly clickhouse: ClickHouseReportEngine,
    private readonly replicator: Pick<ClickHouseReplicator, 'isReady'>,
    private readonly fallback: ClickHouseFallback,
  ) {}

  engineFor(organizationId: number): ReportEngine {
    if (!this.replicator.isReady(organizationId)) return this.duckdb;
    if (this.clickhouse.unreachableSince === undefined) return this.clickhouse;
    this.probe();
    if (this.fallback === 'duckdb') return this.duckdb;
    throw reportEngineUnavailable();
  }

  private probe(): void {
    const now = Date.now();
    if (now - this.lastProbe < PROBE_INTERVAL_MS) return;
    this.lastProbe = now;
    void this.clickhouse.probe();
  }
}
