import type { ReportPlan } from '../planner/report-plan.js';
import { compileFreshness, type SyncStateRow } from '../sql/compile-report.js';
import type { Store } from '../store/store.js';
import type { ReportWarning } from './report-warnings.js';

/** One platform account of a report: how far its figures are synced and final, and whether a sync of it is pending. */
export interface PlatformAccountFreshness extends SyncStateRow {
  readonly backfillRunning: boolean;
}

/**
 * How complete a report's data is (issue 23, `meta.freshness`): the last day for which every
 * synced platform account of the report has final figures, and each account's sync state. An
 * account never synced has no figures to be final (the incomplete_data warning names it): it
 * does not hide the others' complete day. null when none of them was ever synced, or the report
 * has no platform account (nothing to vouch for).
 */
export interface DataFreshness {
  readonly completeThrough: string | null;
  readonly platformAccounts: readonly PlatformAccountFreshness[];
}

/** Sync states kept (entries, each a few accounts): what a day of distinct report requests needs. */
const CACHED_STATES = 1024;

/**
 * Reads a report's freshness from DuckDB (the system of record, also when ClickHouse serves the
 * report) in the cheap read lane. The sync state of the report's platform accounts (its
 * entities, their links, statistics_sources) is kept per statement while the organization's data
 * version is unchanged: every write of those advances it. Which syncs are pending is kept while no
 * write at all has ended (jobs change state in writes of no report data): read on every request,
 * it made a 304 cost 0.90 instead of 0.36 ms (bench/conditional.ts). bench/freshness.ts measures both.
 */
export class FreshnessReader {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly states = new Map<string, readonly SyncStateRow[]>();
  /** Per organization: the platform accounts with a pending sync, as of a count of ended writes. */
  private readonly pending = new Map<number, { readonly writes: number; readonly ids: ReadonlySet<unknown> }>();

  constructor(private readonly db: Store) {}

  async read(plan: ReportPlan): Promise<DataFreshness> {
    const { syncState, syncing } = compileFreshness(plan);
    const organizationId = plan.organizationId;
    const version = this.db.versions.of(organizationId);
    const writes = this.db.writes;
    // The statement and its values name everything the rows depend on besides the data version.
    const key = `${organizationId} ${version} ${syncState.sql} ${JSON.stringify(syncState.params)}`;
    const cached = this.states.get(key);
    const pendingCached = this.pending.get(organizationId);
    const pendingKnown = pendingCached?.writes === writes ? pendingCached.ids : undefined;
    const { states, pending } =
      cached && pendingKnown
        ? { states: cached, pending: pendingKnown }
        : await this.db.read(async (r) => ({
            states: cached ?? (await r.all<SyncStateRow>(syncState.sql, syncState.params)).map(syncStateOf),
            pending:
              pendingKnown ??
              new Set(
                (await r.all<{ input: string }>(syncing.sql, syncing.params)).map(
                  (row) => (JSON.parse(row.input) as { adPlatformAccountId?: unknown }).adPlatformAccountId,
                ),
              ),
          }));
    if (cached) this.states.delete(key);
    // Kept only if no write ended while it was read (it may mix versions otherwise).
    if (cached || this.db.versions.of(organizationId) === version) this.remember(key, states);
    if (!pendingKnown && this.db.writes === writes) this.rememberPending(organizationId, writes, pending);
    const platformAccounts = states.map((state) => ({ ...state, backfillRunning: pending.has(state.id) }));
    return { completeThrough: completeThroughOf(platformAccounts), platformAccounts };
  }

  /** Jobs change state in writes of no report data: the pending syncs hold while no write at all has ended. */
  private rememberPending(organizationId: number, writes: number, ids: ReadonlySet<unknown>): void {
    this.pending.delete(organizationId);
    this.pending.set(organizationId, { writes, ids });
    if (this.pending.size > CACHED_STATES) this.pending.delete(this.pending.keys().next().value!);
  }

  private remember(key: string, states: readonly SyncStateRow[]): void {
    this.states.set(key, states);
    if (this.states.size > CACHED_STATES) this.states.delete(this.states.keys().next().value!);
  }
}

/** In the documented member order, ids as numbers (BIGINT comes back as bigint). */
function syncStateOf(row: SyncStateRow): SyncStateRow {
  return {
    id: Number(row.id),
    adPlatformType: row.adPlatformType,
    syncedThrough: row.syncedThrough,
    lastSyncedAt: row.lastSyncedAt,
    completeThrough: row.completeThrough,
  };
}

/** Never synced: no statistics were ever fetched, so no day of it is final (nor has figures). */
export function neverSynced(account: SyncStateRow): boolean {
  return account.completeThrough === null;
}

/** The minimum over the synced accounts; null when none was ever synced, or there are none. */
export function completeThroughOf(accounts: readonly SyncStateRow[]): string | null {
  let min: string | null = null;
  for (const account of accounts) {
    if (neverSynced(account)) continue;
    if (min === null || account.completeThrough! < min) min = account.completeThrough;
  }
  return min;
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
 * `incomplete_data` when a platform account of the report was never synced, or the range ends
 * after the complete day, naming the accounts whose figures may still change (never synced
 * ones included, and also named apart). Nothing for a report without platform accounts.
 */
export function incompleteData(freshness: DataFreshness, to: string): ReportWarning | undefined {
  const { completeThrough, platformAccounts } = freshness;
  const never = platformAccounts.filter(neverSynced).map((p) => p.id);
  const notFinal = platformAccounts.filter((p) => !neverSynced(p) && p.completeThrough! < to).map((p) => p.id);
  if (never.length === 0 && notFinal.length === 0) return undefined;
  const of = `of the ${platformAccounts.length} platform accounts of this report`;
  const parts: string[] = [];
  if (notFinal.length > 0)
    parts.push(
      `Figures after ${completeThrough} are not final yet: platforms attribute conversions late and restate recent days until their conversion lag has passed. ${notFinal.length} ${of} may still change.`,
    );
  if (never.length > 0)
    parts.push(
      `${never.length} ${of} ${never.length === 1 ? 'was' : 'were'} never synced (${idList(never)}): the report has no figures of ${never.length === 1 ? 'it' : 'them'} yet${
        completeThrough === null ? '.' : `, and ${completeThrough} is the complete day of the synced ones.`
      }`,
    );
  const incomplete = [...never, ...notFinal].sort((a, b) => a - b);
  return {
    code: 'incomplete_data',
    message: `${parts.join(' ')} meta.freshness lists them.`,
    completeThrough,
    platformAccountCount: incomplete.length,
    platformAccountIds: incomplete.slice(0, MAX_LISTED_IDS),
    neverSyncedCount: never.length,
    neverSyncedIds: never.slice(0, MAX_LISTED_IDS),
  };
}

/** `id 12`, `ids 12, 14`, at most MAX_LISTED_IDS of them. */
function idList(ids: readonly number[]): string {
  const listed = ids.slice(0, MAX_LISTED_IDS).join(', ');
  return `${ids.length === 1 ? 'id' : 'ids'} ${listed}${ids.length > MAX_LISTED_IDS ? ', ...' : ''}`;
}
