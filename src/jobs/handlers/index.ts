import type { PlatformDirectory } from '../../platforms/connector.js';
import type { Database } from '../../store/database.js';
import type { JobHandler } from '../job-runner.js';
import type { JobType } from '../job-types.js';
import { autoImportHandler } from './auto-import.js';
import { createAdPlatformAccountHandler } from './create-adplatform-account.js';
import { importCampaignHandler } from './import-campaign.js';

/** Every job type this release runs; COPY_CAMPAIGNS and SYNC_STATISTICS arrive with their issues. */
export function jobHandlers(db: Database, platforms: PlatformDirectory): Partial<Record<JobType, JobHandler>> {
  return {
    CREATE_ADPLATFORM_ACCOUNT: createAdPlatformAccountHandler(db, platforms),
    IMPORT_CAMPAIGN: importCampaignHandler(db, platforms),
    AUTO_IMPORT: autoImportHandler(db, platforms),
  };
}
