import {
  PlatformError,
  type AdPlatformType,
  type CampaignChange,
  type CampaignDraft,
  type CampaignTree,
  type DailyReport,
  type NewPlatformAccount,
  type PlatformAccount,
  type PlatformCampaign,
  type PlatformConnector,
  type PlatformMasterAccount,
} from '../connector.js';
import type { Store } from '../../store/store.js';
import { isCurrencyCode } from '../../shared/currencies.js';
import {
  catalogProfile,
  createdPayloadFor,
  createdProfile,
  directPayloads,
  masterAccount,
  payloadsUnderMaster,
  publicAccount,
  type AccountProfile,
} from './accounts.js';
import { checkDraft, createdTree, withChange, type SearchPlatform } from './campaign-drafts.js';
import { campaignChildren } from './campaign-tree.js';
import { campaignInSlot, campaignsBetween, isListed, toPlatformCampaign, type CampaignPlan } from './campaigns.js';
import { isoDay, localDay, parseDay } from './dates.js';
import type { FaultInjector } from './fault-injector.js';
import { CREATED_CAMPAIGN_SLOTS, IdScheme } from './ids.js';
import { Overlay } from './overlay.js';
import { Rng } from './random.js';
import * as store from './sandbox-store.js';
import { audienceOf, dailyReport, trueReach, type CampaignWithChildren, type ReachSelection } from './statistics.js';
import { RESTATEMENT_DAYS } from './traffic-model.js';

export interface SandboxEnvironment {
  readonly db: Store;
  readonly now: () => Date;
  readonly faults: FaultInjector;
}

/** Canonical IANA names; Intl leaves UTC out of its list, platforms do not. */
const TIME_ZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
const MAX_NAME_LENGTH = 255;
/**
 * The rows come back as one array: a large account yields ~100,000 rows a month, so a quarter
 * is the most one call may hold in memory. Longer ranges are fetched in pieces.
 */
export const MAX_RANGE_DAYS = 92;

/** One platform as one organization sees it; see README.md for how ids and catalogs work. */
export class SandboxConnector implements PlatformConnector {
  private readonly ids: IdScheme;
  private readonly scope: { organizationId: number; platform: AdPlatformType };
  /** The traffic model's conversions trickle in for RESTATEMENT_DAYS on every platform. */
  readonly conversionLagDays = RESTATEMENT_DAYS;

  constructor(
    private readonly env: SandboxEnvironment,
    organizationId: number,
    readonly platform: AdPlatformType,
  ) {
    this.ids = new IdScheme(organizationId, platform);
    this.scope = { organizationId, platform };
  }

  isWellFormedAccountId(adPlatformId: string): boolean {
    return this.ids.isWellFormedAccountId(adPlatformId);
  }

  async getMasterAccount(masterId: string): Promise<PlatformMasterAccount> {
    await this.beforeCall(masterId);
    this.assertMaster(masterId);
    return masterAccount(this.ids, masterId);
  }

  async listAccountsUnderMaster(masterId: string): Promise<PlatformAccount[]> {
    await this.beforeCall(masterId);
    this.assertMaster(masterId);
    const listed = payloadsUnderMaster(this.ids, masterId).map((payload) =>
      publicAccount(catalogProfile(this.ids, payload)),
    );
    const created = await this.env.db.read((r) => store.createdAccountsUnderMaster(r, this.scope, masterId));
    return [
      ...listed,
      ...created.map(({ adPlatformId, name, currency, timeZone }) => ({ adPlatformId, name, currency, timeZone })),
    ];
  }

  async listDirectAccounts(): Promise<PlatformAccount[]> {
    await this.beforeCall();
    return directPayloads(this.ids).map((payload) => publicAccount(catalogProfile(this.ids, payload)));
  }

  async createAccount(masterId: string, account: NewPlatformAccount, requestToken: string): Promise<PlatformAccount> {
    await this.beforeCall(masterId);
    this.assertMaster(masterId);
    this.assertNewAccount(account, requestToken);
    const createdAt = this.env.now();
    const { created, account: stored } = await this.env.db.write('no-report-data', async (tx) => {
      const earlier = await store.findCreatedAccountByToken(tx, this.scope, requestToken);
      if (earlier)
        return {
          created: false,
          account: {
            adPlatformId: earlier.adPlatformId,
            name: earlier.name,
            currency: earlier.currency,
            timeZone: earlier.timeZone,
          },
        };
      // Two tokens may meet on one payload; the later one tries further candidates.
      let attempt = 0;
      let adPlatformId = this.ids.accountId(createdPayloadFor(this.ids, requestToken, attempt));
      while (await store.findCreatedAccount(tx, this.scope, adPlatformId))
        adPlatformId = this.ids.accountId(createdPayloadFor(this.ids, requestToken, ++attempt));
      const record = {
        masterId,
        adPlatformId,
        name: account.name,
        currency: account.currency,
        timeZone: account.timeZone,
        requestToken,
      };
      await store.insertCreatedAccount(tx, this.scope, record, createdAt);
      return {
        created: true,
        account: { adPlatformId, name: account.name, currency: account.currency, timeZone: account.timeZone },
      };
    });
    if (created) this.env.faults.afterAccountCreated(this.scope.organizationId, this.platform);
    return stored;
  }

  async listCampaigns(accountId: string): Promise<PlatformCampaign[]> {
    await this.beforeCall(accountId);
    const profile = await this.account(accountId);
    const today = localDay(this.env.now(), profile.timeZone);
    const plans = campaignsBetween(this.ids, profile, today, today).filter((plan) => isListed(plan, today));
    const overlay = await this.overlay(accountId);
    const created = await this.env.db.read((r) => store.createdCampaignsOf(r, this.scope, accountId));
    return [
      ...plans.map((plan) => overlay.campaign(toPlatformCampaign(plan, today))),
      ...created.map((record) => record.tree.campaign),
    ];
  }

  async fetchCampaignTree(accountId: string, campaignId: string): Promise<CampaignTree> {
    await this.beforeCall(accountId);
    const profile = await this.account(accountId);
    if (this.ids.decodeCreated('CAMPAIGN', campaignId)) return (await this.createdCampaign(profile, campaignId)).tree;
    const today = localDay(this.env.now(), profile.timeZone);
    const plan = this.campaign(profile, campaignId, today);
    const overlay = await this.overlay(accountId);
    return {
      campaign: overlay.campaign(toPlatformCampaign(plan, today)),
      adGroups: campaignChildren(this.ids, profile, plan).map((group) => overlay.adGroup(group)),
    };
  }

  async pushChange(accountId: string, change: CampaignChange): Promise<void> {
    await this.beforeCall(accountId);
    const profile = await this.account(accountId);
    const today = localDay(this.env.now(), profile.timeZone);
    const stored = this.assertChange(change);
    const created = this.ids.decodeCreated(change.entity, change.adPlatformId);
    if (created) {
      const campaignId = this.ids.createdEntityId({ kind: 'CAMPAIGN', campaign: created.campaign });
      await this.env.db.write('no-report-data', async (tx) => {
        const record = await store.findCreatedCampaign(tx, this.scope, campaignId);
        const tree =
          record?.accountId === accountId
            ? withChange(record.tree, change.entity, change.adPlatformId, stored.field, stored.value)
            : undefined;
        if (!tree)
          throw this.notFound(
            `${change.entity.toLowerCase().replace('_', ' ')} ${change.adPlatformId} in account ${accountId}`,
          );
        await store.replaceCreatedCampaignTree(tx, this.scope, tree, this.env.now());
      });
      return;
    }
    this.assertEntityExists(profile, change, today);
    await this.env.db.write('no-report-data', (tx) =>
      store.insertChange(tx, this.scope, accountId, stored, this.env.now()),
    );
  }

  async createCampaign(accountId: string, draft: CampaignDraft, requestToken: string): Promise<CampaignTree> {
    await this.beforeCall(accountId);
    const platform = this.searchPlatform();
    const profile = await this.account(accountId);
    if (requestToken.length === 0) throw this.error('INVALID_REQUEST', 'A request token is required');
    this.assertDraft(platform, draft);
    const now = this.env.now();
    const createdOn = isoDay(localDay(now, profile.timeZone));
    return this.env.db.write('no-report-data', async (tx) => {
      const earlier = await store.findCreatedCampaignByToken(tx, this.scope, accountId, requestToken);
      if (earlier) return earlier.tree;
      // Two tokens may meet on one index; the later one tries further candidates.
      let attempt = 0;
      let index = this.createdIndexFor(accountId, requestToken, attempt);
      while (
        await store.findCreatedCampaign(tx, this.scope, this.ids.createdEntityId({ kind: 'CAMPAIGN', campaign: index }))
      ) {
        index = this.createdIndexFor(accountId, requestToken, ++attempt);
      }
      const tree = createdTree(this.ids, index, draft, createdOn);
      await store.insertCreatedCampaign(tx, this.scope, { accountId, requestToken, tree }, now);
      return tree;
    });
  }

  async updateCampaign(accountId: string, campaignId: string, draft: CampaignDraft): Promise<CampaignTree> {
    await this.beforeCall(accountId);
    const profile = await this.account(accountId);
    const path = this.ids.decodeCreated('CAMPAIGN', campaignId);
    if (!path) {
      // A catalog campaign of this account exists but is the platform's own; anything else is unknown.
      this.campaign(profile, campaignId, localDay(this.env.now(), profile.timeZone));
      throw this.error('INVALID_REQUEST', 'only campaigns created through the API can be replaced in the sandbox');
    }
    const current = await this.createdCampaign(profile, campaignId);
    this.assertDraft(this.searchPlatform(), draft);
    const tree = createdTree(this.ids, path.campaign, draft, current.tree.campaign.createdOn);
    await this.env.db.write('no-report-data', (tx) =>
      store.replaceCreatedCampaignTree(tx, this.scope, tree, this.env.now()),
    );
    return tree;
  }

  async fetchDailyReport(accountId: string, from: string, to: string): Promise<DailyReport> {
    await this.beforeCall(accountId);
    const profile = await this.account(accountId);
    const [fromDay, toDay] = this.range(from, to);
    if (toDay - fromDay + 1 > MAX_RANGE_DAYS)
      throw this.error('INVALID_REQUEST', `Ask for at most ${MAX_RANGE_DAYS} days per call, not ${from}..${to}`);
    // Complete days only: today's figures are still moving at a real platform.
    const lastDay = Math.min(toDay, localDay(this.env.now(), profile.timeZone) - 1);
    if (lastDay < fromDay) return { statistics: [], impressionShare: [], audienceRuns: [], calls: [] };
    return dailyReport(
      this.ids,
      profile,
      this.campaignsServing(profile, fromDay, lastDay),
      fromDay,
      lastDay,
      this.env.now(),
    );
  }

  /**
   * Test support (SandboxPlatforms.trueReach), FACEBOOK only: the exact number of distinct people
   * the selected ads reached on the complete days of [from, to], any length; no faults apply.
   */
  async trueReach(accountId: string, selection: ReachSelection, from: string, to: string): Promise<number> {
    if (this.platform !== 'FACEBOOK') throw this.error('INVALID_REQUEST', 'reach exists on FACEBOOK only');
    const profile = await this.account(accountId);
    const [fromDay, toDay] = this.range(from, to);
    const lastDay = Math.min(toDay, localDay(this.env.now(), profile.timeZone) - 1);
    if (lastDay < fromDay) return 0;
    return trueReach(this.ids, profile, this.campaignsServing(profile, fromDay, lastDay), fromDay, lastDay, selection);
  }

  /** Test support, FACEBOOK only: the size U of the account's audience numbering (runs lie in [0, U)). */
  async audienceSize(accountId: string): Promise<number> {
    if (this.platform !== 'FACEBOOK') throw this.error('INVALID_REQUEST', 'audiences exist on FACEBOOK only');
    return audienceOf(this.ids, await this.account(accountId)).size;
  }

  private range(from: string, to: string): [number, number] {
    const fromDay = parseDay(from);
    const toDay = parseDay(to);
    if (fromDay === undefined || toDay === undefined)
      throw this.error('INVALID_REQUEST', `Dates must be YYYY-MM-DD, got ${from} and ${to}`);
    if (fromDay > toDay) throw this.error('INVALID_REQUEST', `The range ${from}..${to} ends before it starts`);
    return [fromDay, toDay];
  }

  /** Catalog campaigns that may serve in the range, with their trees (created campaigns have no statistics). */
  private campaignsServing(profile: AccountProfile, fromDay: number, toDay: number): CampaignWithChildren[] {
    return campaignsBetween(this.ids, profile, fromDay, toDay).map((plan) => ({
      plan,
      adGroups: campaignChildren(this.ids, profile, plan),
    }));
  }

  private beforeCall(...ids: string[]): Promise<void> {
    return this.env.faults.beforeCall(this.scope.organizationId, this.platform, ids);
  }

  /** The account as this organization sees it, or NOT_FOUND (ids.ts explains how ids carry visibility). */
  private async account(accountId: string): Promise<AccountProfile> {
    const payload = this.ids.accountPayload(accountId);
    if (payload === undefined) throw this.notFound(`account ${accountId}`);
    if (this.platform === 'FACEBOOK') {
      if (!directPayloads(this.ids).includes(payload)) throw this.notFound(`account ${accountId}`);
      return catalogProfile(this.ids, payload);
    }
    if (!this.ids.isCreatedPayload(payload)) return catalogProfile(this.ids, payload);
    const record = await this.env.db.read((r) => store.findCreatedAccount(r, this.scope, accountId));
    if (!record) throw this.notFound(`account ${accountId}`);
    return createdProfile(this.ids, payload, record);
  }

  /** A campaign of this account that exists on `today`. */
  private campaign(profile: AccountProfile, campaignId: string, today: number): CampaignPlan {
    const path = this.ids.decodeEntity('CAMPAIGN', campaignId);
    const plan =
      path && path.payload === profile.payload ? campaignInSlot(this.ids, profile, path.campaign) : undefined;
    if (!plan || plan.createdOn > today)
      throw this.notFound(`campaign ${campaignId} in account ${profile.adPlatformId}`);
    return plan;
  }

  /** A campaign createCampaign made in this account, or NOT_FOUND. */
  private async createdCampaign(profile: AccountProfile, campaignId: string): Promise<store.CreatedCampaignRecord> {
    const record = await this.env.db.read((r) => store.findCreatedCampaign(r, this.scope, campaignId));
    if (!record || record.accountId !== profile.adPlatformId)
      throw this.notFound(`campaign ${campaignId} in account ${profile.adPlatformId}`);
    return record;
  }

  /** A candidate index for a created campaign, from the account and request token; further attempts give others. */
  private createdIndexFor(accountId: string, requestToken: string, attempt: number): number {
    return Math.floor(
      Rng.of(this.scope.organizationId, this.platform, 'created-campaign', accountId, requestToken, attempt).next() *
        CREATED_CAMPAIGN_SLOTS,
    );
  }

  private searchPlatform(): SearchPlatform {
    if (this.platform === 'FACEBOOK')
      throw this.error(
        'INVALID_REQUEST',
        'campaign creation through the API is not supported for FACEBOOK in the sandbox',
      );
    return this.platform;
  }

  private assertDraft(platform: SearchPlatform, draft: CampaignDraft): void {
    const problem = checkDraft(platform, draft);
    if (problem) throw this.error('INVALID_REQUEST', problem);
    if (this.env.faults.refusesCampaign(this.scope.organizationId, this.platform, draft.name)) {
      throw this.error('INVALID_REQUEST', `the platform refused campaign ${draft.name}`);
    }
  }

  private assertEntityExists(profile: AccountProfile, change: CampaignChange, today: number): void {
    const missing = () =>
      this.notFound(
        `${change.entity.toLowerCase().replace('_', ' ')} ${change.adPlatformId} in account ${profile.adPlatformId}`,
      );
    const path = this.ids.decodeEntity(change.entity, change.adPlatformId);
    if (!path || path.payload !== profile.payload) throw missing();
    const plan = campaignInSlot(this.ids, profile, path.campaign);
    if (!plan || plan.createdOn > today) throw missing();
    if (change.entity === 'CAMPAIGN') return;
    const group = campaignChildren(this.ids, profile, plan)[path.adGroup ?? -1];
    const item =
      change.entity === 'AD_GROUP'
        ? group
        : change.entity === 'AD'
          ? group?.ads[path.item ?? -1]
          : group?.keywords[path.item ?? -1];
    if (!item) throw missing();
  }

  private assertChange(change: CampaignChange): store.StoredChange {
    if (change.entity === 'KEYWORD' && this.platform === 'FACEBOOK')
      throw this.error('INVALID_REQUEST', 'FACEBOOK has no keywords');
    if (change.kind === 'SET_STATUS') {
      if (!['ENABLED', 'PAUSED', 'REMOVED'].includes(change.status))
        throw this.error('INVALID_REQUEST', `Unknown status ${String(change.status)}`);
      return { entity: change.entity, adPlatformId: change.adPlatformId, field: 'status', value: change.status };
    }
    const name = change.name.trim();
    if (name.length === 0 || name.length > MAX_NAME_LENGTH)
      throw this.error('INVALID_REQUEST', `A name must have 1 to ${MAX_NAME_LENGTH} characters`);
    return { entity: change.entity, adPlatformId: change.adPlatformId, field: 'name', value: name };
  }

  private assertMaster(masterId: string): void {
    if (this.platform === 'FACEBOOK') throw this.error('INVALID_REQUEST', 'FACEBOOK has no master accounts');
    if (!this.ids.isWellFormedMasterId(masterId)) throw this.notFound(`master account ${masterId}`);
  }

  private assertNewAccount(account: NewPlatformAccount, requestToken: string): void {
    const name = account.name.trim();
    if (name.length === 0 || name.length > MAX_NAME_LENGTH)
      throw this.error('INVALID_REQUEST', `An account name must have 1 to ${MAX_NAME_LENGTH} characters`);
    if (!isCurrencyCode(account.currency)) {
      throw this.error('INVALID_REQUEST', `Currency ${account.currency} is not an ISO 4217 code the platform supports`);
    }
    if (!TIME_ZONES.has(account.timeZone))
      throw this.error('INVALID_REQUEST', `Time zone ${account.timeZone} is not a canonical IANA time zone`);
    if (requestToken.length === 0) throw this.error('INVALID_REQUEST', 'A request token is required');
  }

  private async overlay(accountId: string): Promise<Overlay> {
    return new Overlay(await this.env.db.read((r) => store.changesOf(r, this.scope, accountId)));
  }

  private notFound(what: string): PlatformError {
    return this.error('NOT_FOUND', `No ${what} visible to this organization`);
  }

  private error(code: 'NOT_FOUND' | 'INVALID_REQUEST', message: string): PlatformError {
    return new PlatformError(this.platform, code, message);
  }
}
