import { addDays, isoDate } from '../shared/dates.js';
import type { Executor } from '../store/database.js';
import type { Store } from '../store/store.js';
import type { JobService } from './job-service.js';
import { queuedJobsOfType, updateQueuedJobInput, type StoredJob } from './job-store.js';

export interface StatisticsSyncSettings {
  /** History fetched for a campaign when it is imported. */
  readonly backfillDays: number;
  /** Window the scheduled sync replaces: longer than the platforms' restatement (conversion lag). */
  readonly trailingDays: number;
}

/** The `days` complete days before `now`'s UTC date, plus today (platforms return complete days only). */
export function windowEndingToday(now: Date, days: number): { from: string; to: string } {
  const to = isoDate(now);
  return { from: addDays(to, -days), to };
}

/**
 * In the caller's (import) transaction: a SYNC_STATISTICS backfill for a campaign just imported.
 * An AUTO_IMPORT imports many campaigns of one platform account in a row; they join the backfill
 * still queued for that account instead of each fetching the account's whole history again.
 */
export async function queueBackfillIn(
  tx: Executor,
  jobs: JobService,
  organizationId: number,
  adPlatformAccountId: number,
  campaignId: number,
  window: { from: string; to: string },
): Promise<StoredJob> {
  for (const queued of await queuedJobsOfType(tx, organizationId, 'SYNC_STATISTICS')) {
    const input = queued.input as { adPlatformAccountId?: number; campaignIds?: number[]; from?: string; to?: string };
    if (
      input.adPlatformAccountId !== adPlatformAccountId ||
      !Array.isArray(input.campaignIds) ||
      input.from !== window.from ||
      input.to !== window.to
    )
      continue;
    const merged = { ...input, campaignIds: [...new Set([...input.campaignIds, campaignId])] };
    if (await updateQueuedJobInput(tx, queued.id, merged)) return { ...queued, input: merged };
  }
  return jobs.enqueueIn(tx, organizationId, 'SYNC_STATISTICS', {
    adPlatformAccountId,
    ...window,
    campaignIds: [campaignId],
  });
}

/**
 * The scheduled sync: one SYNC_STATISTICS over the trailing window for every platform account
 * with imported campaigns whose figures come from a platform (not the generator) and whose
 * access is not revoked. An account with a trailing sync already queued or running gets no second.
 */
export async function queueTrailingSyncs(
  db: Store,
  jobs: JobService,
  now: Date,
  trailingDays: number,
  organizationId?: number,
): Promise<StoredJob[]> {
  const window = windowEndingToday(now, trailingDays);
  const queued = await db.write('no-report-data', async (tx) => {
    const accounts = await tx.all<{ organizationId: number; id: number }>(
      `SELECT p.organization_id AS "organizationId", p.id FROM adplatform_accounts p
        WHERE ($1::BIGINT IS NULL OR p.organization_id = $1::BIGINT)
          AND EXISTS (SELECT 1 FROM campaigns c WHERE c.adplatform_account_id = p.id)
          AND NOT EXISTS (SELECT 1 FROM statistics_sources s WHERE s.adplatform_account_id = p.id AND s.source = 'GENERATED')
          AND NOT EXISTS (SELECT 1 FROM account_adplatform_links l WHERE l.adplatform_account_id = p.id AND l.status = 'NO_ACCESS')
        ORDER BY p.id`,
      [organizationId ?? null],
    );
    const pending = await tx.all<{ input: string }>(
      `SELECT input FROM jobs WHERE type = 'SYNC_STATISTICS' AND status IN ('QUEUED', 'RUNNING')`,
    );
    const busy = new Set(
      pending
        .map((job) => JSON.parse(job.input) as { adPlatformAccountId: number; campaignIds?: number[] })
        .filter((input) => !input.campaignIds)
        .map((input) => input.adPlatformAccountId),
    );
    const out: StoredJob[] = [];
    for (const account of accounts) {
      if (busy.has(account.id)) continue;
      out.push(
        await jobs.enqueueIn(tx, account.organizationId, 'SYNC_STATISTICS', {
          adPlatformAccountId: account.id,
          ...window,
        }),
      );
    }
    return out;
  });
  if (queued.length > 0) jobs.started();
  return queued;
}
