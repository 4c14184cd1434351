import { recordEvent } from '../../events/event-log.js';
import { recordChange } from '../../changes/change-log.js';
import { PlatformError, type PlatformDirectory } from '../../platforms/connector.js';
import type { Executor } from '../../store/database.js';
import type { Store } from '../../store/store.js';
import type { KnownPlatformAccount } from '../platform-accounts/platform-account-store.js';
import {
  findCampaign,
  getCampaign,
  insertCampaignTree,
  type ImportedCampaign,
  type TreeCounts,
} from './campaign-store.js';

export interface ImportOutcome {
  readonly campaign: ImportedCampaign;
  /** True when the campaign was already imported: nothing was written. */
  readonly alreadyImported: boolean;
  readonly counts: TreeCounts | null;
}

/**
 * Imports one campaign with its whole tree (ad groups, keywords, ads). Idempotent: a campaign
 * already in the store is reported, never stored twice, also when two imports race.
 */
export async function importCampaign(
  db: Store,
  platforms: PlatformDirectory,
  organizationId: number,
  platformAccount: KnownPlatformAccount,
  campaignAdPlatformId: string,
  campaignGroup: string,
  /** Runs in the import's transaction, so follow-up work (a statistics backfill) is never lost. */
  onImported?: (tx: Executor, organizationId: number, campaign: ImportedCampaign) => Promise<void>,
): Promise<ImportOutcome> {
  const existing = await db.read((r) => findCampaign(r, organizationId, platformAccount.id, campaignAdPlatformId));
  if (existing) return { campaign: existing, alreadyImported: true, counts: null };
  const tree = await withAccessWatch(db, organizationId, platformAccount.id, () =>
    platforms
      .connector(organizationId, platformAccount.adPlatformType)
      .fetchCampaignTree(platformAccount.adPlatformId, campaignAdPlatformId),
  );
  return db.write({ organizationId }, async (tx) => {
    const raced = await findCampaign(tx, organizationId, platformAccount.id, campaignAdPlatformId);
    if (raced) return { campaign: raced, alreadyImported: true, counts: null };
    const { campaignId, counts } = await insertCampaignTree(
      tx,
      organizationId,
      { id: platformAccount.id, type: platformAccount.adPlatformType },
      tree,
      campaignGroup,
    );
    await recordChange(tx, { organizationId, kind: 'ENTITIES_CHANGED', platformAccountId: platformAccount.id });
    // Read back by primary key for the stored importedAt and group label.
    const campaign = (await getCampaign(tx, organizationId, campaignId))!;
    await onImported?.(tx, organizationId, campaign);
    return { campaign, alreadyImported: false, counts };
  });
}

/**
 * Runs a platform call for one platform account; when the platform says our access is gone,
 * every link to that account becomes NO_ACCESS (supplement 2) before the error goes on.
 */
export async function withAccessWatch<T>(
  db: Store,
  organizationId: number,
  platformAccountId: number,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PlatformError && error.code === 'ACCESS_DENIED') {
      await db.write({ organizationId }, async (tx) => {
        const changed = await tx.all<{ accountId: number }>(
          `UPDATE account_adplatform_links SET status = 'NO_ACCESS'
            WHERE adplatform_account_id = $1 AND adplatform_account_id IN (SELECT id FROM adplatform_accounts WHERE organization_id = $2)
              AND status <> 'NO_ACCESS' RETURNING account_id AS "accountId"`,
          [platformAccountId, organizationId],
        );
        await recordLinksLostAccess(tx, organizationId, platformAccountId, changed);
        // Only links that were not NO_ACCESS yet change (retries of a refused call hit this again).
        if (changed.length > 0) await recordChange(tx, { organizationId, kind: 'LINK_CHANGED', platformAccountId });
      });
    }
    throw error;
  }
}

/** Webhooks: link.no_access for each link that just became NO_ACCESS (not those that were already). */
async function recordLinksLostAccess(
  tx: Executor,
  organizationId: number,
  adPlatformAccountId: number,
  links: ReadonlyArray<{ accountId: number }>,
): Promise<void> {
  // withAccessWatch has no clock of its own; the event's time is when the platform refused us.
  const occurredAt = new Date();
  for (const { accountId } of [...links].sort((a, b) => a.accountId - b.accountId))
    await recordEvent(tx, {
      organizationId,
      type: 'link.no_access',
      data: { accountId, adPlatformAccountId, status: 'NO_ACCESS' },
      occurredAt,
    });
}
