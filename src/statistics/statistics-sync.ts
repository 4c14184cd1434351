import { recordEvent } from '../events/event-log.js';
import { PlatformError, type CampaignTree, type PlatformDirectory } from '../platforms/connector.js';
import { withAccessWatch } from '../provisioning/campaigns/campaign-import.js';
import {
  getKnownPlatformAccount,
  type KnownPlatformAccount,
} from '../provisioning/platform-accounts/platform-account-store.js';
import { dateChunks } from '../shared/dates.js';
import type { Executor } from '../store/database.js';
import type { Store } from '../store/store.js';
import { hoursFrom } from './breakdowns.js';
import type { ReplacementCounts } from './fact-replacement.js';
import { duckdbFactWriter, type FactWriter } from './fact-writer.js';
import { refreshCampaignTrees } from './tree-refresh.js';

/** What a SYNC_STATISTICS job asks for. */
export interface StatisticsSyncRequest {
  readonly adPlatformAccountId: number;
  readonly from: string;
  readonly to: string;
  /** Only these imported campaigns (a backfill after an import); all when absent. */
  readonly campaignIds?: readonly number[] | undefined;
}

export type StatisticsSyncOutcome =
  | { readonly status: 'SYNCED'; readonly campaigns: number; readonly chunks: number; readonly rows: ReplacementCounts }
  | { readonly status: 'SKIPPED'; readonly reason: 'GENERATED' | 'NO_ACCESS' | 'NO_CAMPAIGNS' | 'UNKNOWN_ACCOUNT' };

/**
 * Days per platform call and per write transaction. A month of a large account is ~100k rows:
 * bounded memory, and the single writer is never held for long.
 */
export const SYNC_CHUNK_DAYS = 31;

/**
 * Fetches a window of daily figures from the platform and replaces what is stored for it, chunk
 * by chunk, each chunk in one transaction. Trees are refreshed first so new ads and keywords get
 * their rows. Idempotent: a retry or a second run stores the platform's current figures once.
 */
export async function syncStatistics(
  db: Store,
  platforms: PlatformDirectory,
  organizationId: number,
  request: StatisticsSyncRequest,
  now: Date,
  facts: FactWriter = duckdbFactWriter,
): Promise<StatisticsSyncOutcome> {
  const platformAccount = await db.read((r) => getKnownPlatformAccount(r, organizationId, request.adPlatformAccountId));
  if (!platformAccount) return { status: 'SKIPPED', reason: 'UNKNOWN_ACCOUNT' };
  const state = await db.read((r) => syncState(r, organizationId, platformAccount.id, request.campaignIds));
  if (state.source === 'GENERATED') return { status: 'SKIPPED', reason: 'GENERATED' };
  if (state.noAccess) return { status: 'SKIPPED', reason: 'NO_ACCESS' };
  if (state.campaigns.length === 0) return { status: 'SKIPPED', reason: 'NO_CAMPAIGNS' };

  const connector = platforms.connector(organizationId, platformAccount.adPlatformType);
  const call = <T>(work: () => Promise<T>) => withAccessWatch(db, organizationId, platformAccount.id, work);
  const trees: Array<{ campaignId: number; tree: CampaignTree }> = [];
  for (const campaign of state.campaigns) {
    const tree = await call(() =>
      connector.fetchCampaignTree(platformAccount.adPlatformId, campaign.adPlatformId),
    ).catch(keepStoredTreeIfGone);
    if (tree) trees.push({ campaignId: campaign.id, tree });
  }
  await db.write({ organizationId }, (tx) => refreshCampaignTrees(tx, organizationId, trees));

  const campaignIds = state.campaigns.map((c) => c.id);
  const totals = { adRows: 0, keywordRows: 0, impressionShareRows: 0, audienceRuns: 0, calls: 0 };
  const chunks = dateChunks(request.from, request.to, SYNC_CHUNK_DAYS);
  for (const chunk of chunks) {
    const report = await call(() => connector.fetchDailyReport(platformAccount.adPlatformId, chunk.from, chunk.to));
    const counts = await db.write({ organizationId }, (tx) =>
      facts.replaceDailyReport(
        tx,
        { organizationId, adPlatformAccountId: platformAccount.id, ...chunk, campaignIds, hoursFrom: hoursFrom(now) },
        report,
      ),
    );
    for (const key of Object.keys(totals) as Array<keyof ReplacementCounts>) totals[key] += counts[key];
  }
  // Report data since issue 23: reports say how complete their figures are from this row.
  await db.write({ organizationId }, (tx) =>
    recordSync(tx, organizationId, platformAccount, request, now, connector.conversionLagDays),
  );
  return { status: 'SYNCED', campaigns: campaignIds.length, chunks: chunks.length, rows: totals };
}

/** A campaign the platform no longer answers for keeps its stored tree and history. */
function keepStoredTreeIfGone(error: unknown): undefined {
  if (error instanceof PlatformError && error.code === 'NOT_FOUND') return undefined;
  throw error;
}

interface SyncState {
  readonly source: string | undefined;
  readonly noAccess: boolean;
  readonly campaigns: ReadonlyArray<{ id: number; adPlatformId: string }>;
}

async function syncState(
  db: Executor,
  organizationId: number,
  platformAccountId: number,
  campaignIds: readonly number[] | undefined,
): Promise<SyncState> {
  const source = await db.one<{ source: string }>(
    'SELECT source FROM statistics_sources WHERE adplatform_account_id = $1 AND organization_id = $2',
    [platformAccountId, organizationId],
  );
  // Access is granted per platform account: one revoked link means the platform refuses us everywhere.
  const revoked = await db.one<{ n: number }>(
    `SELECT count(*) AS n FROM account_adplatform_links WHERE adplatform_account_id = $1 AND status = 'NO_ACCESS'`,
    [platformAccountId],
  );
  const byId = campaignIds === undefined ? '' : 'AND id IN (SELECT unnest($3::VARCHAR[])::BIGINT)';
  const campaigns = await db.all<{ id: number; adPlatformId: string }>(
    `SELECT id, ad_platform_id AS "adPlatformId" FROM campaigns WHERE organization_id = $1 AND adplatform_account_id = $2 ${byId} ORDER BY id`,
    campaignIds === undefined
      ? [organizationId, platformAccountId]
      : [organizationId, platformAccountId, campaignIds.map(String)],
  );
  return { source: source?.source, noAccess: (revoked?.n ?? 0) > 0, campaigns };
}

async function recordSync(
  tx: Executor,
  organizationId: number,
  platformAccount: KnownPlatformAccount,
  request: StatisticsSyncRequest,
  now: Date,
  conversionLagDays: number,
): Promise<void> {
  await tx.run(
    `INSERT INTO statistics_sources (adplatform_account_id, organization_id, source, synced_from, synced_through, synced_at, conversion_lag_days)
     VALUES ($1, $2, 'PLATFORM', $3::DATE, $4::DATE, $5::TIMESTAMPTZ, $6::INTEGER)
     ON CONFLICT (adplatform_account_id) DO UPDATE SET
       synced_from = least(statistics_sources.synced_from, excluded.synced_from),
       synced_through = greatest(statistics_sources.synced_through, excluded.synced_through),
       synced_at = excluded.synced_at,
       conversion_lag_days = excluded.conversion_lag_days`,
    [platformAccount.id, organizationId, request.from, request.to, now, conversionLagDays],
  );
  // Webhooks: the days from..to were replaced, in the transaction that ends the sync.
  await recordEvent(tx, {
    organizationId,
    type: 'statistics.synced',
    data: {
      adPlatformAccountId: platformAccount.id,
      adPlatformType: platformAccount.adPlatformType,
      adPlatformId: platformAccount.adPlatformId,
      firstDay: request.from,
      lastDay: request.to,
    },
    occurredAt: now,
  });
}
