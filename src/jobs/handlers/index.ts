import type { PlatformDirectory } from '../../platforms/connector.js';
import type { Store } from '../../store/store.js';
import type { JobHandler } from '../job-runner.js';
import type { JobService } from '../job-service.js';
import type { JobType } from '../job-types.js';
import { queueBackfillIn, windowEndingToday, type StatisticsSyncSettings } from '../statistics-sync-queue.js';
import { autoImportHandler } from './auto-import.js';
import { copyCampaignsHandler } from './copy-campaigns.js';
import { createAdPlatformAccountHandler } from './create-adplatform-account.js';
import { importCampaignHandler } from './import-campaign.js';
import { syncStatisticsHandler } from './sync-statistics.js';
import type { AfterImport } from './after-import.js';
import type { FactWriter } from '../../statistics/fact-writer.js';

export type { AfterImport } from './after-import.js';

export interface JobHandlerDependencies {
  readonly db: Store;
  readonly platforms: PlatformDirectory;
  /** Handlers queue follow-up jobs (an import queues its statistics backfill). */
  readonly jobs: JobService;
  readonly now: () => Date;
  readonly statistics: StatisticsSyncSettings;
  /**
   * Where synced figures go: undefined on a store that holds no facts and has no ClickHouse for
   * them (PostgreSQL without `--facts clickhouse`), so nothing is fetched.
   */
  readonly facts: FactWriter | undefined;
}

/** Every job type of supplement 3. */
export function jobHandlers({
  db,
  platforms,
  jobs,
  now,
  statistics,
  facts,
}: JobHandlerDependencies): Record<JobType, JobHandler> {
  // A deployment without a home for facts fetches no statistics: an import queues no backfill.
  const backfill: AfterImport = async (tx, organizationId, campaign) => {
    if (facts === undefined) return;
    await queueBackfillIn(
      tx,
      jobs,
      organizationId,
      campaign.adPlatformAccountId,
      campaign.id,
      windowEndingToday(now(), statistics.backfillDays),
    );
  };
  return {
    CREATE_ADPLATFORM_ACCOUNT: createAdPlatformAccountHandler(db, platforms),
    IMPORT_CAMPAIGN: importCampaignHandler(db, platforms, backfill),
    AUTO_IMPORT: autoImportHandler(db, platforms, backfill),
    COPY_CAMPAIGNS: copyCampaignsHandler(db, platforms),
    SYNC_STATISTICS: syncStatisticsHandler(db, platforms, now, facts),
  };
}
