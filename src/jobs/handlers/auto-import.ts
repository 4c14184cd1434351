import { PlatformError, type PlatformDirectory } from '../../platforms/connector.js';
import { importCampaign, withAccessWatch } from '../../provisioning/campaigns/campaign-import.js';
import { importedPlatformIds } from '../../provisioning/campaigns/campaign-store.js';
import { getKnownPlatformAccount } from '../../provisioning/platform-accounts/platform-account-store.js';
import type { Store } from '../../store/store.js';
import type { JobHandler } from '../job-runner.js';
import type { AfterImport } from './after-import.js';

/**
 * AUTO_IMPORT: every not-yet-imported campaign of every platform account linked to the account,
 * with campaignGroup = the campaign's name (supplement 3). A transient platform failure retries
 * the whole job (imports are idempotent, so done work is skipped); a permanent one for one
 * platform account or campaign is recorded and the rest goes on (PARTIALLY_SUCCEEDED).
 */
export function autoImportHandler(db: Store, platforms: PlatformDirectory, afterImport: AfterImport): JobHandler {
  return async (job) => {
    const { accountId } = job.input as { accountId: number };
    const links = await db.read((r) =>
      r.all<{ platformAccountId: number }>(
        `SELECT l.adplatform_account_id AS "platformAccountId" FROM account_adplatform_links l JOIN accounts a ON a.id = l.account_id
          WHERE a.organization_id = $1 AND a.id = $2 AND l.status <> 'NO_ACCESS' ORDER BY l.adplatform_account_id`,
        [job.organizationId, accountId],
      ),
    );
    const imported: Array<{ campaignId: number; adPlatformId: string; adPlatformAccountId: number }> = [];
    const failures: Array<{ code: string; message: string }> = [];
    for (const { platformAccountId } of links) {
      const platformAccount = await db.read((r) => getKnownPlatformAccount(r, job.organizationId, platformAccountId));
      if (!platformAccount) continue;
      const connector = platforms.connector(job.organizationId, platformAccount.adPlatformType);
      let campaigns;
      try {
        campaigns = await withAccessWatch(db, job.organizationId, platformAccount.id, () =>
          connector.listCampaigns(platformAccount.adPlatformId),
        );
      } catch (error) {
        failures.push(
          permanentFailure(error, `${platformAccount.adPlatformType} account ${platformAccount.adPlatformId}`),
        );
        continue;
      }
      const done = await db.read((r) => importedPlatformIds(r, job.organizationId, platformAccount.id));
      for (const campaign of campaigns) {
        if (done.has(campaign.adPlatformId) || campaign.status === 'REMOVED') continue;
        try {
          const outcome = await importCampaign(
            db,
            platforms,
            job.organizationId,
            platformAccount,
            campaign.adPlatformId,
            campaign.name,
            afterImport,
          );
          if (!outcome.alreadyImported)
            imported.push({
              campaignId: outcome.campaign.id,
              adPlatformId: campaign.adPlatformId,
              adPlatformAccountId: platformAccount.id,
            });
        } catch (error) {
          failures.push(permanentFailure(error, `campaign ${campaign.adPlatformId}`));
        }
      }
    }
    return {
      status: failures.length > 0 ? 'PARTIALLY_SUCCEEDED' : 'SUCCEEDED',
      result: { accountId, imported, failed: failures },
      errors: failures,
    };
  };
}

/** Retryable errors go up (the runner retries the job); anything else is recorded per item. */
function permanentFailure(error: unknown, what: string): { code: string; message: string } {
  if (error instanceof PlatformError) {
    if (error.retryable) throw error;
    return { code: `platform_${error.code.toLowerCase()}`, message: `${what}: ${error.message}` };
  }
  throw error;
}
