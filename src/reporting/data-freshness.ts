import type { ReportPlan } from '../planner/report-plan.js';
import { compileFreshness, type FreshnessRow } from '../sql/compile-report.js';
import type { Database } from '../store/database.js';
import type { ReportWarning } from './report-warnings.js';

/** One platform account of a report: how far its figures are synced and final. */
export type PlatformAccountFreshness = FreshnessRow;

/**
 * How complete a report's data is (issue 23, `meta.freshness`): the last day for which every
 * platform account of the report has final figures, and each account's sync state. null when
 * any of them was never synced, or the report has no platform account (nothing to vouch for).
 */
export interface DataFreshness {
  readonly completeThrough: string | null;
  readonly platformAccounts: readonly PlatformAccountFreshness[];
}

/** A warning names at most this many accounts (an organization may have thousands); meta lists them all. */
const MAX_LISTED_IDS = 100;

/** The response header naming `completeThrough`; absent when it is null. */
export const COMPLETE_THROUGH_HEADER = 'X-Data-Complete-Through';

/** The header of a report answer (JSON and exports): the complete day, when there is one. */
export function completeThroughHeader(freshness: DataFreshness | undefined): Record<string, string> {
  return freshness?.completeThrough ? { [COMPLETE_THROUGH_HEADER]: freshness.completeThrough } : {};
}

/** `,"meta":{...}`: the last member of a JSON report body. */
export function metaMember(freshness: DataFreshness | undefined): string {
  return freshness === undefined ? '' : `,"meta":${JSON.stringify({ freshness })}`;
}

/**
 * Reads the freshness of the report's platform accounts from DuckDB (the system of record, also
 * when ClickHouse serves the report), in the cheap read lane: one small statement.
 */
export async function readDataFreshness(db: Database, plan: ReportPlan): Promise<DataFreshness> {
  const compiled = compileFreshness(plan);
  const rows = await db.read((r) => r.all<FreshnessRow>(compiled.sql, compiled.params));
  // In the documented member order, ids as numbers (BIGINT comes back as bigint).
  const platformAccounts = rows.map((row) => ({
    id: Number(row.id),
    adPlatformType: row.adPlatformType,
    syncedThrough: row.syncedThrough,
    lastSyncedAt: row.lastSyncedAt,
    completeThrough: row.completeThrough,
    backfillRunning: row.backfillRunning === true,
  }));
  return { completeThrough: completeThroughOf(platformAccounts), platformAccounts };
}

/** The minimum over the accounts; null when one is unknown or there are none. */
function completeThroughOf(accounts: readonly PlatformAccountFreshness[]): string | null {
  let min: string | null = null;
  for (const account of accounts) {
    if (account.completeThrough === null) return null;
    if (min === null || account.completeThrough < min) min = account.completeThrough;
  }
  return min;
}

/**
 * `incomplete_data` when the report's range ends after the complete day (or no day is complete:
 * an account never synced), naming the accounts whose figures may still change. Nothing for a
 * report without platform accounts.
 */
export function incompleteData(freshness: DataFreshness, to: string): ReportWarning | undefined {
  const { completeThrough, platformAccounts } = freshness;
  if (platformAccounts.length === 0 || (completeThrough !== null && to <= completeThrough)) return undefined;
  const incomplete = platformAccounts
    .filter((p) => p.completeThrough === null || p.completeThrough < to)
    .map((p) => p.id);
  return {
    code: 'incomplete_data',
    message:
      completeThrough === null
        ? `Figures of ${incomplete.length} of the ${platformAccounts.length} platform accounts of this report were never synced: the report may be incomplete. meta.freshness lists them.`
        : `Figures after ${completeThrough} are not final yet: platforms attribute conversions late and restate recent days until their conversion lag has passed. ${incomplete.length} of the ${platformAccounts.length} platform accounts of this report may still change; meta.freshness lists them.`,
    completeThrough,
    platformAccountCount: incomplete.length,
    platformAccountIds: incomplete.slice(0, MAX_LISTED_IDS),
  };
}
