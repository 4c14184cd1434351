import { BREAKDOWN_SOURCES, HOURLY_RETENTION_DAYS } from '../catalog/fact-sources.js';
import { BREAKDOWN_PROFILES } from '../platforms/breakdown-profiles.js';
import { addDays, isoDate } from '../shared/dates.js';
import type { Executor } from '../store/database.js';
import type { SqlValue } from '../store/sql-values.js';
import { dropExpiredRows } from './fact-partition-versions.js';
import { breakdownSplitSql, DUCKDB_SPLIT, DUCKDB_SPLIT_PLATFORM } from './breakdown-split.js';

/** Campaign days just written (rollup_campaign_daily is already rewritten for them). */
export interface BreakdownScope {
  readonly organizationId: number;
  /** Inclusive, YYYY-MM-DD. */
  readonly from: string;
  readonly to: string;
  readonly adPlatformAccountId?: number | undefined;
  readonly campaignIds?: readonly number[] | undefined;
  /** The first day whose hours are kept (today minus HOURLY_RETENTION_DAYS); older hours are deleted. */
  readonly hoursFrom: string;
}

/** The first day whose hours a write at `now` keeps, as the planner counts the retention. */
export function hoursFrom(now: Date): string {
  return addDays(isoDate(now), -HOURLY_RETENTION_DAYS);
}

/**
 * Rewrites the breakdown rows (../catalog/fact-sources.ts BREAKDOWN_SOURCES) of the scope's
 * campaign days from rollup_campaign_daily, in the caller's transaction, after the rollups: each
 * campaign day (and device and network, where the breakdown keeps them) split into the buckets
 * of its platform's profile (../platforms/breakdown-profiles.ts). Every additive figure is cut
 * into exact integer parts, money in micros: part i = floor(x * upper_i / P) - floor(x * lower_i
 * / P) over the cumulative shares, which telescopes to x, so the buckets of a day sum exactly to
 * it. Rows of a bucket with nothing in it are left out. Hours are kept from `hoursFrom` on.
 *
 * The sandbox reports its breakdowns by this split of its own daily rows, so the sync and the
 * generator derive them here from what they just wrote; a real platform's connector would
 * deliver its breakdown rows instead (not built: the connector interface has no breakdowns yet).
 */
export async function rewriteBreakdowns(tx: Executor, scope: BreakdownScope): Promise<void> {
  for (const source of BREAKDOWN_SOURCES) {
    const profiles = BREAKDOWN_PROFILES.filter((p) => p.source === source.name);
    const { where, params } = scopeOf(scope);
    await tx.run(`DELETE FROM ${source.table} WHERE ${where}`, params);
    if (source.retentionDays !== undefined) {
      await dropExpiredRows(tx, source.table, scope.organizationId, scope.hoursFrom);
      if (scope.to < scope.hoursFrom) continue;
    }
    if (profiles.length === 0) continue;
    const kept = source.retentionDays === undefined ? '' : ` AND day >= $${params.push(scope.hoursFrom)}::DATE`;
    const split = { source, profiles, into: source.table, from: 'rollup_campaign_daily', where: `${where}${kept}` };
    await tx.run(breakdownSplitSql(DUCKDB_SPLIT, { ...split, platform: DUCKDB_SPLIT_PLATFORM }), params);
  }
}

/** The scope's campaign days as a condition over a fact table's columns, with its bound values. */
export function scopeOf(scope: BreakdownScope): { where: string; params: SqlValue[] } {
  const params: SqlValue[] = [scope.organizationId, scope.from, scope.to];
  const where = ['organization_id = $1', 'day BETWEEN $2::DATE AND $3::DATE'];
  if (scope.adPlatformAccountId !== undefined) {
    params.push(scope.adPlatformAccountId);
    where.push(`adplatform_account_id = $${params.length}`);
  }
  if (scope.campaignIds !== undefined) {
    params.push(scope.campaignIds.map(String));
    where.push(`campaign_id IN (SELECT unnest($${params.length}::VARCHAR[])::BIGINT)`);
  }
  return { where: where.join(' AND '), params };
}
