import type { AdPlatformType } from '../connector.js';
import { FeistelPermutation } from './feistel.js';
import { hashString } from './random.js';

/**
 * Ids in each platform's own style that are also readable by the sandbox. An id is a keyed
 * permutation (key: organization + platform) of a compact code:
 *
 * - account ids encode a *payload*: [0, issued) for accounts that masters list, [issued,
 *   2 * issued) for accounts made by createAccount. The permuted domain is thousands of times
 *   larger than the payload range, so a well-formed id decodes to a valid payload only if it
 *   was issued to this organization (odds for a foreign id about 1 in 9,000): that is how a
 *   fresh process knows, without any lookup, that an account is visible and what it contains.
 * - campaign, ad group, ad and keyword ids encode (payload, campaign slot, ad group, item),
 *   so they are unique per organization and platform by construction, and pushChange can
 *   tell from an id alone which account and campaign it belongs to.
 */
export type EntityKind = 'CAMPAIGN' | 'AD_GROUP' | 'AD' | 'KEYWORD';

export interface EntityPath {
  readonly kind: EntityKind;
  readonly payload: number;
  readonly campaign: number;
  /** Set for AD_GROUP, AD and KEYWORD. */
  readonly adGroup?: number;
  /** The ad's or keyword's index inside its ad group. */
  readonly item?: number;
}

/** Campaign slots per account: base campaigns, then two per 90-day window (see campaigns.ts). */
export const CAMPAIGN_SLOTS = 512;
export const AD_GROUP_SLOTS = 16;
export const KEYWORD_SLOTS = 32;
export const AD_SLOTS = 8;

/**
 * Campaigns made by createCampaign live in their own code range after the catalog's, in both
 * domains (search platforms only): a created campaign has an *index* in [0,
 * CREATED_CAMPAIGN_SLOTS) per organization and platform, and its ad groups, keywords and ads
 * are numbered by position inside it. These bounds are also the sandbox's size limits for a
 * campaign draft.
 */
export const CREATED_CAMPAIGN_SLOTS = 500_000;
export const CREATED_AD_GROUP_SLOTS = 100;
export const CREATED_KEYWORD_SLOTS = 200;
export const CREATED_AD_SLOTS = 50;

/**
 * Call ids (search platforms): a keyed permutation of (payload, campaign slot, ad group, day,
 * device, index) in 19 digits. The day is the day number (1970-based, 16 bits: until 2149), the
 * device one of CALL_DEVICES, the index the call's place among its ad group's calls of that day
 * and device (the statistics keep that count below CALLS_PER_CELL).
 */
export const CALL_DEVICES = ['MOBILE', 'DESKTOP', 'TABLET', 'OTHER'] as const;
export const CALLS_PER_CELL = 256;
const CALL_DAYS = 65_536;

export interface CallPath {
  readonly payload: number;
  readonly campaign: number;
  readonly adGroup: number;
  readonly day: number;
  /** Index into CALL_DEVICES. */
  readonly device: number;
  readonly index: number;
}

/** Where an entity of a created campaign sits: campaign index, ad group position, item position. */
export interface CreatedPath {
  readonly kind: EntityKind;
  readonly campaign: number;
  readonly adGroup?: number;
  readonly item?: number;
}

interface Domain {
  readonly low: bigint;
  readonly size: bigint;
}

interface Layout {
  readonly account: Domain;
  /** Payloads [0, issued) are listed under masters (or directly); [issued, 2 * issued) are created. */
  readonly issued: number;
  readonly creatable: boolean;
  readonly accountPattern: RegExp;
  readonly masterPattern: RegExp | undefined;
  /** Campaign and ad group ids. */
  readonly small: Domain;
  /** Ad and keyword ids (the same domain as `small` on FACEBOOK). */
  readonly large: Domain;
}

const digits = (count: number): Domain => ({ low: 10n ** BigInt(count - 1), size: 9n * 10n ** BigInt(count - 1) });
const span = (fromDigits: number, toDigits: number): Domain => ({
  low: 10n ** BigInt(fromDigits - 1),
  size: 10n ** BigInt(toDigits) - 10n ** BigInt(fromDigits - 1),
});

const LAYOUTS: Readonly<Record<AdPlatformType, Layout>> = {
  GOOGLE_ADS: {
    account: digits(10),
    issued: 1_000_000,
    creatable: true,
    accountPattern: /^\d{3}-\d{3}-\d{4}$/,
    masterPattern: /^\d{3}-\d{3}-\d{4}$/,
    small: digits(11),
    large: digits(12),
  },
  MICROSOFT_ADVERTISING: {
    account: digits(9),
    issued: 100_000,
    creatable: true,
    accountPattern: /^\d{9}$/,
    masterPattern: /^\d{6,10}$/,
    small: digits(10),
    large: digits(11),
  },
  FACEBOOK: {
    account: span(15, 16),
    issued: 1_000_000,
    creatable: false,
    accountPattern: /^act_\d{10,17}$/,
    masterPattern: undefined,
    small: span(17, 18),
    large: span(17, 18),
  },
};

const S = BigInt(CAMPAIGN_SLOTS);
const G = BigInt(AD_GROUP_SLOTS);

export class IdScheme {
  private readonly layout: Layout;
  private readonly accountPermutation: FeistelPermutation;
  private readonly smallPermutation: FeistelPermutation;
  private readonly largePermutation: FeistelPermutation;
  /** Where each kind's codes start inside its domain, so kinds never share an id. */
  private readonly offsets: Readonly<Record<EntityKind, bigint>>;
  private readonly payloads: bigint;
  private callPermutation: FeistelPermutation | undefined;
  /** Start of each kind's created range (search platforms only). */
  private readonly createdOffsets: Readonly<Record<EntityKind, bigint>> | undefined;

  constructor(
    readonly organizationId: number,
    readonly platform: AdPlatformType,
  ) {
    this.layout = LAYOUTS[platform];
    const key = (domain: string) => hashString(`${organizationId}|${platform}|${domain}`);
    this.accountPermutation = new FeistelPermutation(this.layout.account.size, key('account'));
    this.smallPermutation = new FeistelPermutation(this.layout.small.size, key('small'));
    // One permutation for FACEBOOK, whose kinds share one domain: distinct codes, distinct ids.
    this.largePermutation =
      platform === 'FACEBOOK' ? this.smallPermutation : new FeistelPermutation(this.layout.large.size, key('large'));
    const p = (this.payloads = BigInt(this.layout.issued * (this.layout.creatable ? 2 : 1)));
    const campaigns = p * S;
    const adGroups = campaigns * G;
    const keywords = adGroups * BigInt(KEYWORD_SLOTS);
    const ads = adGroups * BigInt(AD_SLOTS);
    this.offsets =
      platform === 'FACEBOOK'
        ? { CAMPAIGN: 0n, AD_GROUP: campaigns, AD: campaigns + adGroups, KEYWORD: campaigns + adGroups + ads }
        : { CAMPAIGN: 0n, AD_GROUP: campaigns, KEYWORD: 0n, AD: keywords };
    if (platform !== 'FACEBOOK') {
      const createdCampaigns = BigInt(CREATED_CAMPAIGN_SLOTS);
      const createdGroups = createdCampaigns * BigInt(CREATED_AD_GROUP_SLOTS);
      const createdKeywords = createdGroups * BigInt(CREATED_KEYWORD_SLOTS);
      const createdAds = createdGroups * BigInt(CREATED_AD_SLOTS);
      const smallStart = campaigns + adGroups;
      const largeStart = keywords + ads;
      this.createdOffsets = {
        CAMPAIGN: smallStart,
        AD_GROUP: smallStart + createdCampaigns,
        KEYWORD: largeStart,
        AD: largeStart + createdKeywords,
      };
      if (
        smallStart + createdCampaigns + createdGroups > this.layout.small.size ||
        largeStart + createdKeywords + createdAds > this.layout.large.size
      ) {
        throw new RangeError(`the created campaign range does not fit the ${platform} id domains`);
      }
    }
  }

  get issuedPayloads(): number {
    return this.layout.issued;
  }

  get canCreateAccounts(): boolean {
    return this.layout.creatable;
  }

  isWellFormedAccountId(id: string): boolean {
    return this.layout.accountPattern.test(id);
  }

  isWellFormedMasterId(id: string): boolean {
    return this.layout.masterPattern?.test(id) ?? false;
  }

  accountId(payload: number): string {
    const value = this.layout.account.low + this.accountPermutation.forward(BigInt(payload));
    const text = value.toString();
    switch (this.platform) {
      case 'GOOGLE_ADS':
        return `${text.slice(0, 3)}-${text.slice(3, 6)}-${text.slice(6)}`;
      case 'MICROSOFT_ADVERTISING':
        return text;
      case 'FACEBOOK':
        return `act_${text}`;
    }
  }

  /** The payload a well-formed id of this organization encodes; undefined for any other id. */
  accountPayload(id: string): number | undefined {
    if (!this.isWellFormedAccountId(id)) return undefined;
    const value = BigInt(id.replace(/\D/g, '')) - this.layout.account.low;
    if (value < 0n || value >= this.layout.account.size) return undefined;
    const payload = this.accountPermutation.inverse(value);
    return payload < this.payloads ? Number(payload) : undefined;
  }

  isCreatedPayload(payload: number): boolean {
    return payload >= this.layout.issued;
  }

  entityId(path: EntityPath): string {
    const code = this.offsets[path.kind] + this.localCode(path);
    const [domain, permutation] = this.domainOf(path.kind);
    return (domain.low + permutation.forward(code)).toString();
  }

  /** The path an entity id of this organization encodes, for the kind the caller expects. */
  decodeEntity(kind: EntityKind, id: string): EntityPath | undefined {
    if (!/^\d{1,19}$/.test(id)) return undefined;
    const [domain, permutation] = this.domainOf(kind);
    const value = BigInt(id) - domain.low;
    if (value < 0n || value >= domain.size) return undefined;
    const code = permutation.inverse(value) - this.offsets[kind];
    const itemSlots = kind === 'KEYWORD' ? BigInt(KEYWORD_SLOTS) : BigInt(AD_SLOTS);
    const groupCodes = this.payloads * S * G;
    switch (kind) {
      case 'CAMPAIGN':
        if (code < 0n || code >= this.payloads * S) return undefined;
        return { kind, payload: Number(code / S), campaign: Number(code % S) };
      case 'AD_GROUP':
        if (code < 0n || code >= groupCodes) return undefined;
        return { kind, payload: Number(code / (S * G)), campaign: Number((code / G) % S), adGroup: Number(code % G) };
      case 'AD':
      case 'KEYWORD': {
        if (kind === 'KEYWORD' && this.platform === 'FACEBOOK') return undefined;
        if (code < 0n || code >= groupCodes * itemSlots) return undefined;
        const group = code / itemSlots;
        return {
          kind,
          payload: Number(group / (S * G)),
          campaign: Number((group / G) % S),
          adGroup: Number(group % G),
          item: Number(code % itemSlots),
        };
      }
    }
  }

  get canCreateCampaigns(): boolean {
    return this.createdOffsets !== undefined;
  }

  /** The id of an entity of a campaign made by createCampaign (search platforms only). */
  createdEntityId(path: CreatedPath): string {
    if (!this.createdOffsets) throw new RangeError(`${this.platform} has no created campaigns`);
    const code = this.createdOffsets[path.kind] + createdLocalCode(path);
    const [domain, permutation] = this.domainOf(path.kind);
    return (domain.low + permutation.forward(code)).toString();
  }

  /** The created-campaign path an id of this organization encodes; undefined for catalog and foreign ids. */
  decodeCreated(kind: EntityKind, id: string): CreatedPath | undefined {
    if (!this.createdOffsets || !/^\d{1,19}$/.test(id)) return undefined;
    const [domain, permutation] = this.domainOf(kind);
    const value = BigInt(id) - domain.low;
    if (value < 0n || value >= domain.size) return undefined;
    const code = permutation.inverse(value) - this.createdOffsets[kind];
    const campaigns = BigInt(CREATED_CAMPAIGN_SLOTS);
    const groupSlots = BigInt(CREATED_AD_GROUP_SLOTS);
    if (code < 0n) return undefined;
    switch (kind) {
      case 'CAMPAIGN':
        return code < campaigns ? { kind, campaign: Number(code) } : undefined;
      case 'AD_GROUP':
        return code < campaigns * groupSlots
          ? { kind, campaign: Number(code / groupSlots), adGroup: Number(code % groupSlots) }
          : undefined;
      case 'AD':
      case 'KEYWORD': {
        const itemSlots = BigInt(kind === 'KEYWORD' ? CREATED_KEYWORD_SLOTS : CREATED_AD_SLOTS);
        if (code >= campaigns * groupSlots * itemSlots) return undefined;
        const group = code / itemSlots;
        return {
          kind,
          campaign: Number(group / groupSlots),
          adGroup: Number(group % groupSlots),
          item: Number(code % itemSlots),
        };
      }
    }
  }

  /** A call's id: digits only, unique per organization and platform, the same for the same call in any process. */
  callId(path: CallPath): string {
    if (
      path.day < 0 ||
      path.day >= CALL_DAYS ||
      path.index < 0 ||
      path.index >= CALLS_PER_CELL ||
      path.device < 0 ||
      path.device >= CALL_DEVICES.length
    ) {
      throw new RangeError(`no call id for ${JSON.stringify(path)}`);
    }
    // 2,000,000 payloads x 512 x 16 x 65,536 x 4 x 256 < 2^60: within the permutation's reach.
    this.callPermutation ??= new FeistelPermutation(
      this.payloads * S * G * BigInt(CALL_DAYS * CALL_DEVICES.length * CALLS_PER_CELL),
      hashString(`${this.organizationId}|${this.platform}|call`),
    );
    const group = (BigInt(path.payload) * S + BigInt(path.campaign)) * G + BigInt(path.adGroup);
    const code =
      group * BigInt(CALL_DAYS * CALL_DEVICES.length * CALLS_PER_CELL) +
      BigInt((path.day * CALL_DEVICES.length + path.device) * CALLS_PER_CELL + path.index);
    return (10n ** 18n + this.callPermutation.forward(code)).toString();
  }

  private localCode(path: EntityPath): bigint {
    const campaign = BigInt(path.payload) * S + BigInt(path.campaign);
    if (path.kind === 'CAMPAIGN') return campaign;
    const group = campaign * G + BigInt(path.adGroup ?? 0);
    if (path.kind === 'AD_GROUP') return group;
    const itemSlots = path.kind === 'KEYWORD' ? BigInt(KEYWORD_SLOTS) : BigInt(AD_SLOTS);
    return group * itemSlots + BigInt(path.item ?? 0);
  }

  private domainOf(kind: EntityKind): [Domain, FeistelPermutation] {
    return kind === 'CAMPAIGN' || kind === 'AD_GROUP'
      ? [this.layout.small, this.smallPermutation]
      : [this.layout.large, this.largePermutation];
  }
}

function createdLocalCode(path: CreatedPath): bigint {
  const campaign = BigInt(path.campaign);
  if (path.kind === 'CAMPAIGN') return campaign;
  const group = campaign * BigInt(CREATED_AD_GROUP_SLOTS) + BigInt(path.adGroup ?? 0);
  if (path.kind === 'AD_GROUP') return group;
  return group * BigInt(path.kind === 'KEYWORD' ? CREATED_KEYWORD_SLOTS : CREATED_AD_SLOTS) + BigInt(path.item ?? 0);
}
