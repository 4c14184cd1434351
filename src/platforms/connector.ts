/**
 * The one interface through which the service talks to an ad platform (supplement 4). The
 * sandbox in ./sandbox is the embedded default implementation; a real platform client plugs in
 * behind the same interface.
 */
import type { AdPlatformType, DeviceType, NetworkType } from '../shared/ad-platforms.js';

// The names are plain vocabulary in shared/, read there by http and the reporting core.
export {
  AD_PLATFORM_ALIASES,
  AD_PLATFORM_TYPES,
  DEVICE_TYPES,
  NETWORK_TYPES,
  type AdPlatformType,
  type DeviceType,
  type NetworkType,
} from '../shared/ad-platforms.js';

export type EntityStatus = 'ENABLED' | 'PAUSED' | 'REMOVED';

export interface PlatformAccount {
  /** The platform's own id: GOOGLE_ADS `123-456-7890`, MICROSOFT_ADVERTISING digits, FACEBOOK `act_` + digits. */
  readonly adPlatformId: string;
  readonly name: string;
  /** ISO 4217. */
  readonly currency: string;
  /** IANA time zone, e.g. Europe/Berlin. */
  readonly timeZone: string;
}

export interface PlatformMasterAccount {
  readonly adPlatformId: string;
  readonly name: string;
}

export interface PlatformCampaign {
  readonly adPlatformId: string;
  readonly name: string;
  readonly status: EntityStatus;
  /** Daily budget in the account's currency, at most 2 decimals. */
  readonly dailyBudget: number;
  /** ISO date the campaign was created at the platform. */
  readonly createdOn: string;
}

export interface PlatformKeyword {
  readonly adPlatformId: string;
  readonly text: string;
  readonly matchType: 'EXACT' | 'PHRASE' | 'BROAD';
  readonly status: EntityStatus;
}

export interface PlatformAd {
  readonly adPlatformId: string;
  readonly name: string;
  readonly status: EntityStatus;
  /** e.g. RESPONSIVE_SEARCH_AD, EXPANDED_TEXT_AD, IMAGE, VIDEO, CAROUSEL. */
  readonly adType: string;
  readonly headline: string;
  readonly description: string;
  readonly finalUrl: string;
  /** FACEBOOK only: image URLs in higher resolution and ad-type-specific fields. */
  readonly imageUrls?: readonly string[];
  readonly specificFields?: Readonly<Record<string, string>>;
}

export interface PlatformAdGroup {
  readonly adPlatformId: string;
  readonly name: string;
  readonly status: EntityStatus;
  /** Empty for FACEBOOK, which has no keywords (its ad groups are ad sets). */
  readonly keywords: readonly PlatformKeyword[];
  readonly ads: readonly PlatformAd[];
}

export interface CampaignTree {
  readonly campaign: PlatformCampaign;
  readonly adGroups: readonly PlatformAdGroup[];
}

/** One row of daily figures at the finest grain a platform reports. Money in the account currency. */
export interface DailyStatistic {
  /** YYYY-MM-DD in the account's time zone. */
  readonly date: string;
  readonly campaignId: string;
  readonly adGroupId: string;
  /**
   * A row is either an ad row (adId set, keywordId null) or, on the search platforms, a keyword
   * row (keywordId set, adId null): two splits of the same ad group traffic.
   */
  readonly adId: string | null;
  readonly keywordId: string | null;
  readonly device: DeviceType;
  readonly network: NetworkType;
  readonly impressions: number;
  readonly clicks: number;
  /** Money with at most 6 decimals (micros). */
  readonly cost: number;
  /** Fractional conversions (data-driven attribution). */
  readonly conversions: number;
  readonly conversionValue: number;
  readonly calls: number;
  readonly callConversions: number;
  readonly callConversionsFractional: number;
}

/**
 * GOOGLE_ADS impression-share inputs of one campaign, day, device and network, as counts so that
 * any bucket aggregates as sums over sums. `impressions` equals the impressions of the campaign's
 * statistic rows of that day, device and network. budgetLost + rankLost = eligible - impressions;
 * absoluteTop <= top <= impressions.
 */
export interface DailyImpressionShare {
  readonly date: string;
  readonly campaignId: string;
  readonly device: DeviceType;
  readonly network: NetworkType;
  readonly impressions: number;
  readonly eligibleImpressions: number;
  readonly budgetLostImpressions: number;
  readonly rankLostImpressions: number;
  readonly topImpressions: number;
  readonly absoluteTopImpressions: number;
}

/**
 * FACEBOOK reach input: the people one ad reached on one day, as a run [from, to) of the ad
 * platform account's audience numbering (an ad's day may need two runs where it wraps around its
 * audience). The length of the union of runs is the deduplicated reach of any set of ads and days.
 */
export interface DailyAudienceRun {
  readonly date: string;
  readonly campaignId: string;
  readonly adGroupId: string;
  readonly adId: string;
  readonly from: number;
  readonly to: number;
}

/** One phone call from an ad (search platforms); each is counted in the statistic rows' `calls`. */
export interface CallRecord {
  /** Stable across fetches: a re-sync recognises the call. */
  readonly callId: string;
  /** YYYY-MM-DD in the account's time zone: the statistic day the call is counted on. */
  readonly date: string;
  readonly campaignId: string;
  readonly adGroupId: string;
  /** ISO 8601 UTC. */
  readonly startTime: string;
  readonly durationSeconds: number;
  readonly status: 'RECEIVED' | 'MISSED';
  readonly callType: 'CALL_ASSET' | 'CALL_ONLY_AD' | 'WEBSITE_CALL';
  /** ISO 3166-1 alpha-2. */
  readonly callerCountry: string;
  readonly callerAreaCode: string;
  /** Turns true as conversions are restated; counted in `callConversions`. */
  readonly isConversion: boolean;
}

/** Everything an account reports for a date range, from one consistent model of its traffic. */
export interface DailyReport {
  readonly statistics: DailyStatistic[];
  /** GOOGLE_ADS only; empty elsewhere. */
  readonly impressionShare: DailyImpressionShare[];
  /** FACEBOOK only; empty elsewhere. */
  readonly audienceRuns: DailyAudienceRun[];
  /** Search platforms; empty for FACEBOOK. */
  readonly calls: CallRecord[];
}

/** A campaign tree to create (or re-push) at a platform: what a campaign is, without platform ids. */
export interface CampaignDraft {
  readonly name: string;
  readonly status: EntityStatus;
  readonly dailyBudget: number;
  readonly adGroups: ReadonlyArray<{
    readonly name: string;
    readonly status: EntityStatus;
    readonly keywords: ReadonlyArray<Pick<PlatformKeyword, 'text' | 'matchType' | 'status'>>;
    readonly ads: ReadonlyArray<
      Pick<PlatformAd, 'name' | 'status' | 'adType' | 'headline' | 'description' | 'finalUrl'>
    >;
  }>;
}

export interface NewPlatformAccount {
  readonly name: string;
  readonly currency: string;
  readonly timeZone: string;
}

/** A change made in the service's user interface, pushed to the platform. */
export type CampaignChange =
  | {
      readonly kind: 'SET_STATUS';
      readonly entity: 'CAMPAIGN' | 'AD_GROUP' | 'AD' | 'KEYWORD';
      readonly adPlatformId: string;
      readonly status: EntityStatus;
    }
  | {
      readonly kind: 'RENAME';
      readonly entity: 'CAMPAIGN' | 'AD_GROUP' | 'AD';
      readonly adPlatformId: string;
      readonly name: string;
    };

export type PlatformErrorCode =
  /** The id is unknown to the platform (or invisible to us). */
  | 'NOT_FOUND'
  /** Our access was revoked or never granted. */
  | 'ACCESS_DENIED'
  /** The platform refused the input (e.g. a currency it does not support). */
  | 'INVALID_REQUEST'
  /** Throttled; retry after `retryAfterMs`. */
  | 'RATE_LIMITED'
  /** A 5xx or timeout at the platform. */
  | 'UNAVAILABLE';

/** Every connector failure; `retryable` tells the job runner whether trying again can help. */
export class PlatformError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly platform: AdPlatformType,
    readonly code: PlatformErrorCode,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'PlatformError';
    this.retryable = code === 'RATE_LIMITED' || code === 'UNAVAILABLE';
  }
}

/** One platform as seen by one organization (its credentials, its catalog). */
export interface PlatformConnector {
  readonly platform: AdPlatformType;
  /**
   * Days after a day ends until the platform's figures of it are final (conversions attributed
   * late, restatements). A synced day counts as complete once it was fetched this long after
   * it ended (reports' X-Data-Complete-Through); recorded with every sync.
   */
  readonly conversionLagDays: number;
  /** Whether this id has the platform's own format (no call is made). */
  isWellFormedAccountId(adPlatformId: string): boolean;
  /** A master (manager / reseller customer) we may act through; FACEBOOK has none. */
  getMasterAccount(masterId: string): Promise<PlatformMasterAccount>;
  listAccountsUnderMaster(masterId: string): Promise<PlatformAccount[]>;
  /** Accounts the organization may link without a master (FACEBOOK ad accounts); [] elsewhere. */
  listDirectAccounts(): Promise<PlatformAccount[]>;
  /**
   * Creates an account inside a master. `requestToken` makes the call idempotent: the same
   * token returns the account made the first time (a resumed job must not create two).
   */
  createAccount(masterId: string, account: NewPlatformAccount, requestToken: string): Promise<PlatformAccount>;
  listCampaigns(accountId: string): Promise<PlatformCampaign[]>;
  fetchCampaignTree(accountId: string, campaignId: string): Promise<CampaignTree>;
  pushChange(accountId: string, change: CampaignChange): Promise<void>;
  /**
   * Creates a whole campaign tree in an account (search platforms; FACEBOOK: INVALID_REQUEST).
   * `requestToken` makes it idempotent: the same token returns the campaign made the first time.
   * The platform refuses a draft that breaks its own rules with INVALID_REQUEST.
   */
  createCampaign(accountId: string, draft: CampaignDraft, requestToken: string): Promise<CampaignTree>;
  /** Replaces a campaign's settings and tree with the draft (a re-sync of a copy); ids of the result are new where the tree changed. */
  updateCampaign(accountId: string, campaignId: string, draft: CampaignDraft): Promise<CampaignTree>;
  /** Daily figures for every entity of the account in [from, to], inclusive, YYYY-MM-DD. */
  fetchDailyReport(accountId: string, from: string, to: string): Promise<DailyReport>;
}

/** Connectors per organization: each organization has its own platform credentials. */
export interface PlatformDirectory {
  connector(organizationId: number, platform: AdPlatformType): PlatformConnector;
}
