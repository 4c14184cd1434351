import { PlatformError, type PlatformDirectory } from '../../platforms/connector.js';
import {
  copyCampaign,
  itemFailure,
  type CopyResult,
  type ItemFailure,
} from '../../provisioning/campaigns/campaign-copy.js';
import { getCampaign } from '../../provisioning/campaigns/campaign-store.js';
import { getKnownPlatformAccount } from '../../provisioning/platform-accounts/platform-account-store.js';
import type { Store } from '../../store/store.js';
import { PermanentJobFailure, type JobHandler } from '../job-runner.js';

/**
 * COPY_CAMPAIGNS: each campaign is copied on its own; one the target platform refuses is listed
 * with its reason (PARTIALLY_SUCCEEDED), a transient outage retries the job, and copies made
 * before are found again through their request tokens.
 */
export function copyCampaignsHandler(db: Store, platforms: PlatformDirectory): JobHandler {
  return async (job) => {
    const input = job.input as {
      sourceAdPlatformAccountId: number;
      targetAdPlatformAccountId: number;
      campaignIds: number[];
    };
    const [source, target] = await Promise.all([
      db.read((r) => getKnownPlatformAccount(r, job.organizationId, input.sourceAdPlatformAccountId)),
      db.read((r) => getKnownPlatformAccount(r, job.organizationId, input.targetAdPlatformAccountId)),
    ]);
    if (!source || !target)
      throw new PermanentJobFailure(
        'adplatform_account_gone',
        'The source or target ad platform account is no longer known.',
      );
    const copies: CopyResult[] = [];
    const failed: ItemFailure[] = [];
    for (const campaignId of input.campaignIds) {
      const campaign = await db.read((r) => getCampaign(r, job.organizationId, campaignId));
      if (!campaign) {
        failed.push({
          campaignId,
          error: { code: 'not_found', message: `Campaign ${campaignId} is no longer imported.` },
        });
        continue;
      }
      try {
        copies.push(
          await copyCampaign(
            db,
            platforms,
            job.organizationId,
            { campaign, platformAccount: source },
            target,
            `copy-${job.id}-${campaignId}`,
          ),
        );
      } catch (error) {
        if (error instanceof PlatformError && error.retryable) throw error;
        failed.push(itemFailure(campaignId, error));
      }
    }
    if (copies.length === 0 && failed.length > 0) {
      throw new PermanentJobFailure(
        'nothing_copied',
        failed.map((f) => `campaign ${f.campaignId}: ${f.error.message}`).join('; '),
      );
    }
    return {
      status: failed.length > 0 ? 'PARTIALLY_SUCCEEDED' : 'SUCCEEDED',
      result: { copies, failed },
      errors: failed.map((f) => ({ code: f.error.code, message: `campaign ${f.campaignId}: ${f.error.message}` })),
    };
  };
}
