import type { IdempotentRequest, JobQueue, StoredJob } from '../job-queue.js';
import type { PlatformCampaign, PlatformDirectory } from '../../platforms/connector.js';
import { notFound } from '../../shared/errors.js';
import type { Store } from '../../store/store.js';
import { platformFailureToApi } from '../platform-accounts/platform-errors.js';
import { getKnownPlatformAccount, type KnownPlatformAccount } from '../platform-accounts/platform-account-store.js';
import { withAccessWatch } from './campaign-import.js';
import { getCampaign, importedPlatformIds, listImportedCampaigns, type ImportedCampaign } from './campaign-store.js';

/** Campaigns of one organization: what the platform has, what was imported, import requests. */
export class CampaignService {
  constructor(
    private readonly db: Store,
    private readonly platforms: PlatformDirectory,
    private readonly jobs: JobQueue,
  ) {}

  /** Asks the platform; lists what is not imported yet and marks nothing. */
  async availableCampaigns(organizationId: number, platformAccountId: number): Promise<PlatformCampaign[]> {
    const platformAccount = await this.platformAccount(organizationId, platformAccountId);
    const campaigns = await withAccessWatch(this.db, organizationId, platformAccount.id, () =>
      this.platforms
        .connector(organizationId, platformAccount.adPlatformType)
        .listCampaigns(platformAccount.adPlatformId),
    ).catch((error: unknown) => platformFailureToApi(error, 'id'));
    const imported = await this.db.read((r) => importedPlatformIds(r, organizationId, platformAccount.id));
    return campaigns.filter((campaign) => !imported.has(campaign.adPlatformId));
  }

  /** Queues IMPORT_CAMPAIGN; the platform is asked by the job, which reports an unknown campaign. */
  async requestImport(
    organizationId: number,
    platformAccountId: number,
    campaign: { adPlatformId: string; campaignGroup: string },
    idempotency?: IdempotentRequest,
  ): Promise<StoredJob> {
    const platformAccount = await this.platformAccount(organizationId, platformAccountId);
    const job = await this.db.write('no-report-data', (tx) =>
      this.jobs.enqueueIn(
        tx,
        organizationId,
        'IMPORT_CAMPAIGN',
        { adPlatformAccountId: platformAccount.id, campaign: { ...campaign } },
        idempotency,
      ),
    );
    this.jobs.started();
    return job;
  }

  /** Scoped by organization in the query itself, so another tenant's accountId simply matches nothing. */
  list(
    organizationId: number,
    filter: { accountId?: number | undefined; adPlatformAccountId?: number | undefined },
    page: { limit: number; offset: number },
  ) {
    return this.db.read((r) => listImportedCampaigns(r, organizationId, filter, page));
  }

  async get(organizationId: number, id: number): Promise<ImportedCampaign> {
    const campaign = await this.db.read((r) => getCampaign(r, organizationId, id));
    if (!campaign) throw notFound(`No campaign with id ${id}.`);
    return campaign;
  }

  private async platformAccount(organizationId: number, id: number): Promise<KnownPlatformAccount> {
    const platformAccount = await this.db.read((r) => getKnownPlatformAccount(r, organizationId, id));
    if (!platformAccount) throw notFound(`No ad platform account with id ${id}.`);
    return platformAccount;
  }
}
