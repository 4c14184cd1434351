import type { ReportEngine, ReportEngineSelector } from '../reporting/report-engine.js';
import { reportEngineUnavailable, type ClickHouseReportEngine } from './clickhouse-engine.js';
import type { ClickHouseReplicator } from './replicator.js';

/** What a report of a replicated organization gets while ClickHouse does not answer. */
export type ClickHouseFallback = 'unavailable' | 'duckdb';

/**
 * Picks an organization's engine per request: ClickHouse once everything it reads is replicated
 * (and no write is waiting to be), DuckDB before that, so a report never reads a stale replica.
 * ClickHouse unreachable: 503 with Retry-After, or DuckDB with `fallback: 'duckdb'`.
 */
export class ClickHouseSelection implements ReportEngineSelector {
  constructor(
    private readonly duckdb: ReportEngine,
    private readonly clickhouse: ClickHouseReportEngine,
    private readonly replicator: Pick<ClickHouseReplicator, 'isReady'>,
    private readonly fallback: ClickHouseFallback,
  ) {}

  engineFor(organizationId: number): ReportEngine {
    if (!this.replicator.isReady(organizationId)) return this.duckdb;
    if (this.clickhouse.unreachableSince === undefined) return this.clickhouse;
    if (this.fallback === 'duckdb') return this.duckdb;
    throw reportEngineUnavailable();
  }
}
