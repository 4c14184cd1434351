import type { PlatformDirectory } from '../../platforms/connector.js';
import { getMasterAccount } from '../../provisioning/platform-accounts/master-account-store.js';
import type { NewAccountRequest } from '../../provisioning/platform-accounts/platform-account-service.js';
import { upsertPlatformAccount } from '../../provisioning/platform-accounts/platform-account-store.js';
import type { Store } from '../../store/store.js';
import { PermanentJobFailure, type JobHandler } from '../job-runner.js';

/**
 * CREATE_ADPLATFORM_ACCOUNT: creates the account inside the master at the platform and registers
 * it. The job id is the platform request token, so a resumed or retried job never creates two.
 */
export function createAdPlatformAccountHandler(db: Store, platforms: PlatformDirectory): JobHandler {
  return async (job) => {
    const input = job.input as { masterAccountId: number; adPlatformAccount: NewAccountRequest };
    const master = await db.read((r) => getMasterAccount(r, job.organizationId, input.masterAccountId));
    if (!master)
      throw new PermanentJobFailure(
        'master_account_gone',
        `Master account ${input.masterAccountId} is no longer linked to the organization.`,
      );
    const created = await platforms
      .connector(job.organizationId, master.adPlatformType)
      .createAccount(master.adPlatformId, input.adPlatformAccount, `job-${job.id}`);
    const id = await db.write({ organizationId: job.organizationId }, (tx) =>
      upsertPlatformAccount(tx, job.organizationId, master.adPlatformType, created, master.id),
    );
    return {
      result: {
        adPlatformAccount: {
          id,
          name: created.name,
          adPlatformType: master.adPlatformType,
          adPlatformId: created.adPlatformId,
          currency: created.currency,
          timeZone: created.timeZone,
          masterAccountId: master.id,
        },
      },
    };
  };
}
