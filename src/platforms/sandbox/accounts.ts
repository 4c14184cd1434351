import type { PlatformAccount, PlatformMasterAccount } from '../connector.js';
import { dayOf } from './dates.js';
import type { IdScheme } from './ids.js';
import { Rng } from './random.js';
import { AGENCIES, BRANDS, countryOf, MARKETS, OFFICES, THEMES, type Theme } from './vocabulary.js';

/**
 * Made-up masters and accounts. A master's account list derives from (organization, platform,
 * master id); what an account *is* (name, currency, theme, age) derives from its own id alone,
 * so listCampaigns can describe an account without knowing which master listed it.
 */
export interface AccountProfile extends PlatformAccount {
  readonly payload: number;
  readonly theme: Theme;
  /** ISO 3166-1 alpha-2 of the account's market (GB for the "UK" in names): where its callers ring from. */
  readonly country: string;
  /** Day number the account opened; no campaign is older. */
  readonly openedOn: number;
  /** Made by createAccount (its campaigns appear over the weeks after opening). */
  readonly created: boolean;
  /** Seed text for everything inside the account. */
  readonly seed: string;
}

/** What createAccount stored; see sandbox-store.ts. */
export interface CreatedAccountRecord {
  readonly masterId: string;
  readonly adPlatformId: string;
  readonly name: string;
  readonly currency: string;
  readonly timeZone: string;
  readonly requestToken: string;
  readonly createdOn: number;
}

const OPENED_FROM = dayOf('2016-01-01');
const OPENED_UNTIL = dayOf('2024-06-30');

export function masterAccount(scheme: IdScheme, masterId: string): PlatformMasterAccount {
  const rng = Rng.of(scheme.organizationId, scheme.platform, 'master', masterId);
  const kind = scheme.platform === 'GOOGLE_ADS' ? 'MCC' : 'Reseller';
  return { adPlatformId: masterId, name: `${rng.pick(AGENCIES)} ${rng.pick(OFFICES)} ${kind}` };
}

/** The 3-8 accounts a master holds before anyone creates more, as payloads. */
export function payloadsUnderMaster(scheme: IdScheme, masterId: string): number[] {
  const rng = Rng.of(scheme.organizationId, scheme.platform, 'master-accounts', masterId);
  return rng.distinctInts(rng.int(3, 8), scheme.issuedPayloads);
}

/** FACEBOOK: the 3-5 ad accounts an organization's business manager holds. */
export function directPayloads(scheme: IdScheme): number[] {
  if (scheme.platform !== 'FACEBOOK') return [];
  const rng = Rng.of(scheme.organizationId, scheme.platform, 'direct-accounts');
  return rng.distinctInts(rng.int(3, 5), scheme.issuedPayloads);
}

export function catalogProfile(scheme: IdScheme, payload: number): AccountProfile {
  const adPlatformId = scheme.accountId(payload);
  const seed = `${scheme.organizationId}|${scheme.platform}|${adPlatformId}`;
  const rng = Rng.of(seed, 'profile');
  const market = rng.weighted(MARKETS, (m) => m.weight);
  const theme = rng.pick(THEMES);
  const brand = rng.pick(BRANDS);
  return {
    adPlatformId,
    name: `${brand} ${theme.label} ${market.code}`,
    currency: market.currency,
    timeZone: market.timeZone,
    payload,
    theme,
    country: market.country,
    openedOn: rng.int(OPENED_FROM, OPENED_UNTIL),
    created: false,
    seed,
  };
}

export function createdProfile(scheme: IdScheme, payload: number, record: CreatedAccountRecord): AccountProfile {
  const seed = `${scheme.organizationId}|${scheme.platform}|${record.adPlatformId}`;
  // The theme only colours keywords and prices; a created account's name is the caller's.
  const theme = Rng.of(seed, 'profile').pick(THEMES);
  return {
    adPlatformId: record.adPlatformId,
    name: record.name,
    currency: record.currency,
    timeZone: record.timeZone,
    payload,
    theme,
    country: countryOf(record.timeZone, record.currency),
    openedOn: record.createdOn,
    created: true,
    seed,
  };
}

export function publicAccount(profile: AccountProfile): PlatformAccount {
  return {
    adPlatformId: profile.adPlatformId,
    name: profile.name,
    currency: profile.currency,
    timeZone: profile.timeZone,
  };
}

/**
 * A candidate payload for a new account, in the created range, derived from the request token;
 * each further attempt gives another candidate, for when two tokens meet on one payload.
 */
export function createdPayloadFor(scheme: IdScheme, requestToken: string, attempt: number): number {
  const rng = Rng.of(scheme.organizationId, scheme.platform, 'created', requestToken, attempt);
  return scheme.issuedPayloads + Math.floor(rng.next() * scheme.issuedPayloads);
}
