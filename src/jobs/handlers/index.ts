import type { PlatformDirectory } from '../../platforms/connector.js';
import type { Database } from '../../store/database.js';
import type { JobHandler } from '../job-runner.js';
import type { JobType } from '../job-types.js';
import { autoImportHandler } from './auto-import.js';
import { copyCampaignsHandler } from './copy-campaigns.js';
import { createAdPlatformAccountHandler } from './create-adplatform-account.js';
import { importCampaignHandler } from './import-campaign.js';

/** Every job type this release runs; SYNC_STATISTICS arrives with the statistics issue. */
export function jobHandlers(db: Database, platforms: PlatformDirectory): Partial<Record<JobType, JobHandler>> {
  return {
    CREATE_ADPLATFORM_ACCOUNT: createAdPlatformAccountHandler(db, platforms),
    IMPORT_CAMPAIGN: importCampaignHandler(db, platforms),
    AUTO_IMPORT: autoImportHandler(db, platforms),
    COPY_CAMPAIGNS: copyCampaignsHandler(db, platforms),
  };
}
