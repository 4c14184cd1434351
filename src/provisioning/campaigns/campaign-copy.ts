import { PlatformError, type PlatformDirectory } from '../../platforms/connector.js';
import type { Store } from '../../store/store.js';
import { getKnownPlatformAccount, type KnownPlatformAccount } from '../platform-accounts/platform-account-store.js';
import { importCampaign, withAccessWatch } from './campaign-import.js';
import { isSearchPlatform, mapCampaignForPlatform } from './campaign-mapping.js';
import { getCampaign, type ImportedCampaign } from './campaign-store.js';

export interface CopyResult {
  readonly sourceCampaignId: number;
  readonly targetCampaignId: number;
  readonly targetAdPlatformId: string;
  readonly changes: readonly string[];
}

export interface ItemFailure {
  readonly campaignId: number;
  readonly error: { readonly code: string; readonly message: string };
}

/**
 * Copies one imported campaign to a platform account of the other search platform: reads the
 * tree from the source platform, maps it, creates it at the target (the request token makes a
 * retried job reuse the copy made before), imports the copy and records the pair.
 */
export async function copyCampaign(
  db: Store,
  platforms: PlatformDirectory,
  organizationId: number,
  source: { campaign: ImportedCampaign; platformAccount: KnownPlatformAccount },
  target: KnownPlatformAccount,
  requestToken: string,
): Promise<CopyResult> {
  if (!isSearchPlatform(target.adPlatformType)) throw new Error('copy target must be a search platform');
  const tree = await withAccessWatch(db, organizationId, source.platformAccount.id, () =>
    platforms
      .connector(organizationId, source.platformAccount.adPlatformType)
      .fetchCampaignTree(source.platformAccount.adPlatformId, source.campaign.adPlatformId),
  );
  const { draft, changes } = mapCampaignForPlatform(tree, target.adPlatformType);
  const created = await withAccessWatch(db, organizationId, target.id, () =>
    platforms.connector(organizationId, target.adPlatformType).createCampaign(target.adPlatformId, draft, requestToken),
  );
  const imported = await importCampaign(
    db,
    platforms,
    organizationId,
    target,
    created.campaign.adPlatformId,
    source.campaign.campaignGroup ?? source.campaign.name,
  );
  await db.write('no-report-data', (tx) =>
    tx.run(
      `INSERT INTO campaign_copies (organization_id, source_campaign_id, target_campaign_id) SELECT $1, $2, $3
        WHERE NOT EXISTS (SELECT 1 FROM campaign_copies WHERE source_campaign_id = $2 AND target_campaign_id = $3)`,
      [organizationId, source.campaign.id, imported.campaign.id],
    ),
  );
  return {
    sourceCampaignId: source.campaign.id,
    targetCampaignId: imported.campaign.id,
    targetAdPlatformId: created.campaign.adPlatformId,
    changes,
  };
}

/**
 * Re-pushes every copy of one source campaign (POST /campaign-copies/sync): the source tree
 * as the platform has it now, mapped again, replaces each copy at its platform.
 */
export async function resyncCopies(
  db: Store,
  platforms: PlatformDirectory,
  organizationId: number,
  sourceCampaignId: number,
): Promise<CopyResult[]> {
  const source = await db.read((r) => getCampaign(r, organizationId, sourceCampaignId));
  if (!source) throw new CopyItemError('not_found', `No campaign with id ${sourceCampaignId}.`);
  const copies = await db.read((r) =>
    r.all<{ targetCampaignId: number }>(
      'SELECT target_campaign_id AS "targetCampaignId" FROM campaign_copies WHERE organization_id = $1 AND source_campaign_id = $2 ORDER BY target_campaign_id',
      [organizationId, sourceCampaignId],
    ),
  );
  if (copies.length === 0) throw new CopyItemError('not_copied', `Campaign ${sourceCampaignId} has no copies to sync.`);
  const sourceAccount = (await db.read((r) => getKnownPlatformAccount(r, organizationId, source.adPlatformAccountId)))!;
  const tree = await platforms
    .connector(organizationId, sourceAccount.adPlatformType)
    .fetchCampaignTree(sourceAccount.adPlatformId, source.adPlatformId);
  const results: CopyResult[] = [];
  for (const { targetCampaignId } of copies) {
    const copy = (await db.read((r) => getCampaign(r, organizationId, targetCampaignId)))!;
    const targetAccount = (await db.read((r) => getKnownPlatformAccount(r, organizationId, copy.adPlatformAccountId)))!;
    if (!isSearchPlatform(targetAccount.adPlatformType)) continue;
    const { draft, changes } = mapCampaignForPlatform(tree, targetAccount.adPlatformType);
    await platforms
      .connector(organizationId, targetAccount.adPlatformType)
      .updateCampaign(targetAccount.adPlatformId, copy.adPlatformId, draft);
    await db.write('no-report-data', (tx) =>
      tx.run('UPDATE campaign_copies SET synced_at = now() WHERE source_campaign_id = $1 AND target_campaign_id = $2', [
        sourceCampaignId,
        targetCampaignId,
      ]),
    );
    results.push({ sourceCampaignId, targetCampaignId, targetAdPlatformId: copy.adPlatformId, changes });
  }
  return results;
}

/** A per-item failure of a bulk operation (spec 4.2: listed in a success response). */
export class CopyItemError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CopyItemError';
  }
}

export function itemFailure(campaignId: number, error: unknown): ItemFailure {
  if (error instanceof CopyItemError) return { campaignId, error: { code: error.code, message: error.message } };
  if (error instanceof PlatformError)
    return {
      campaignId,
      error: { code: `platform_${error.code.toLowerCase()}`, message: `${error.platform}: ${error.message}` },
    };
  throw error;
}
