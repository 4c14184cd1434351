import type { PlatformDirectory } from '../../platforms/connector.js';
import { importCampaign } from '../../provisioning/campaigns/campaign-import.js';
import { getKnownPlatformAccount } from '../../provisioning/platform-accounts/platform-account-store.js';
import type { Store } from '../../store/store.js';
import { PermanentJobFailure, type JobHandler } from '../job-runner.js';
import type { AfterImport } from './after-import.js';

/** IMPORT_CAMPAIGN: one campaign and its tree, then its history; importing it again is a no-op that says so. */
export function importCampaignHandler(db: Store, platforms: PlatformDirectory, afterImport: AfterImport): JobHandler {
  return async (job) => {
    const input = job.input as {
      adPlatformAccountId: number;
      campaign: { adPlatformId: string; campaignGroup: string };
    };
    const platformAccount = await db.read((r) =>
      getKnownPlatformAccount(r, job.organizationId, input.adPlatformAccountId),
    );
    if (!platformAccount)
      throw new PermanentJobFailure(
        'adplatform_account_gone',
        `Ad platform account ${input.adPlatformAccountId} is no longer known.`,
      );
    const outcome = await importCampaign(
      db,
      platforms,
      job.organizationId,
      platformAccount,
      input.campaign.adPlatformId,
      input.campaign.campaignGroup,
      afterImport,
    );
    return {
      result: { campaign: outcome.campaign, alreadyImported: outcome.alreadyImported, imported: outcome.counts },
    };
  };
}
