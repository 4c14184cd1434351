import type { IdempotentRequest, JobQueue, StoredJob } from '../job-queue.js';
import type { PlatformDirectory } from '../../platforms/connector.js';
import { unprocessable, type ErrorDetail } from '../../shared/errors.js';
import type { Store } from '../../store/store.js';
import { getKnownPlatformAccount } from '../platform-accounts/platform-account-store.js';
import { itemFailure, resyncCopies, type CopyResult, type ItemFailure } from './campaign-copy.js';
import { getCampaign } from './campaign-store.js';

export interface CopyRequest {
  readonly sourceAdPlatformAccountId: number;
  readonly targetAdPlatformAccountId: number;
  readonly campaignIds: readonly number[];
}

/** The campaign copy tool between the two search platforms (spec 1, supplement 3). */
export class CampaignCopyService {
  constructor(
    private readonly db: Store,
    private readonly platforms: PlatformDirectory,
    private readonly jobs: JobQueue,
  ) {}

  /** Checks what can be checked now (422 naming each problem), then queues COPY_CAMPAIGNS. */
  async requestCopy(organizationId: number, request: CopyRequest, idempotency?: IdempotentRequest): Promise<StoredJob> {
    const details: ErrorDetail[] = [];
    const [source, target] = await Promise.all([
      this.db.read((r) => getKnownPlatformAccount(r, organizationId, request.sourceAdPlatformAccountId)),
      this.db.read((r) => getKnownPlatformAccount(r, organizationId, request.targetAdPlatformAccountId)),
    ]);
    if (!source)
      details.push({
        field: 'campaignCopy.sourceAdPlatformAccountId',
        code: 'unknown',
        message: 'no such ad platform account',
      });
    if (!target)
      details.push({
        field: 'campaignCopy.targetAdPlatformAccountId',
        code: 'unknown',
        message: 'no such ad platform account',
      });
    if (source && target) {
      const pair = new Set([source.adPlatformType, target.adPlatformType]);
      if (!(pair.has('GOOGLE_ADS') && pair.has('MICROSOFT_ADVERTISING'))) {
        details.push({
          field: 'campaignCopy.targetAdPlatformAccountId',
          code: 'not_allowed',
          message: `copies go from GOOGLE_ADS to MICROSOFT_ADVERTISING or back, not ${source.adPlatformType} to ${target.adPlatformType}`,
        });
      } else if (source.currency !== target.currency) {
        details.push({
          field: 'campaignCopy.targetAdPlatformAccountId',
          code: 'currency_mismatch',
          message: `budgets in ${source.currency} cannot be copied to an account in ${target.currency}`,
        });
      }
      for (const [index, campaignId] of request.campaignIds.entries()) {
        const campaign = await this.db.read((r) => getCampaign(r, organizationId, campaignId));
        if (!campaign || campaign.adPlatformAccountId !== source.id) {
          details.push({
            field: `campaignCopy.campaignIds.${index}`,
            code: 'unknown',
            message: `${campaignId} is not a campaign imported from the source account`,
          });
        }
      }
    }
    if (details.length > 0)
      throw unprocessable(
        `The copy cannot start: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`,
        details,
      );
    const job = await this.db.write('no-report-data', (tx) =>
      this.jobs.enqueueIn(
        tx,
        organizationId,
        'COPY_CAMPAIGNS',
        { ...request, campaignIds: [...request.campaignIds] },
        idempotency,
      ),
    );
    this.jobs.started();
    return job;
  }

  /** Bulk re-push of existing copies: 200 with what was synced and what failed (spec 4.2). */
  async sync(
    organizationId: number,
    campaignIds: readonly number[],
  ): Promise<{ synced: CopyResult[]; failed: ItemFailure[] }> {
    const synced: CopyResult[] = [];
    const failed: ItemFailure[] = [];
    for (const campaignId of campaignIds) {
      try {
        synced.push(...(await resyncCopies(this.db, this.platforms, organizationId, campaignId)));
      } catch (error) {
        failed.push(itemFailure(campaignId, error));
      }
    }
    return { synced, failed };
  }
}
