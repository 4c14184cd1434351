import type { EntityStatus, PlatformCampaign } from '../connector.js';
import type { AccountProfile } from './accounts.js';
import { dayOf, isoDay, yearOf } from './dates.js';
import { CAMPAIGN_SLOTS, type IdScheme } from './ids.js';
import { Rng } from './random.js';
import { currencyScale, PROMOTIONS, titleCase } from './vocabulary.js';

/**
 * The campaigns of an account over time, on an absolute calendar so that any process at any
 * clock sees the same history:
 * - 4-17 *base* campaigns (long tail), created in the account's first 18 months; about a
 *   quarter get paused at some point and stay paused.
 * - *promotions*: every 90-day window from 2020 on brings one or two campaigns named after the
 *   season, each running 45-240 days, then REMOVED (listed as such for 30 more days, then gone
 *   from the list; fetchCampaignTree still answers). So an account always has a few campaigns
 *   created in the coming weeks, and a clock moving on sees new ones appear.
 */
export interface CampaignPlan {
  readonly slot: number;
  readonly adPlatformId: string;
  readonly name: string;
  readonly createdOn: number;
  /** First day it no longer serves; undefined while it runs on. */
  readonly stopsOn: number | undefined;
  readonly stopStatus: 'PAUSED' | 'REMOVED';
  /** Index into the account theme's products: what the campaign advertises. */
  readonly product: number;
  /** In the account currency: 20-2000 a day in euro terms, two significant digits. */
  readonly dailyBudget: number;
  readonly seed: string;
}

const BASE_SLOTS = 25;
const WINDOW_DAYS = 90;
const WINDOW_EPOCH = dayOf('2020-01-01');
const LAST_WINDOW = Math.floor((CAMPAIGN_SLOTS - BASE_SLOTS) / 2) - 1;
const MAX_PROMOTION_DAYS = 240;
/** A removed campaign stays in the list this long, so a sync sees the removal. */
const REMOVED_LISTED_DAYS = 30;

const SEARCH_VARIANTS = ['Search', 'Generic', 'Exact', 'Broad', 'Competitors', 'DSA', 'Remarketing'];
const SOCIAL_VARIANTS = ['Prospecting', 'Retargeting', 'Lookalike', 'Catalog Sales', 'Video Views', 'Lead Gen'];

/** Every campaign of the account that may have served or been listed in [fromDay, toDay]. */
export function campaignsBetween(
  scheme: IdScheme,
  profile: AccountProfile,
  fromDay: number,
  toDay: number,
): CampaignPlan[] {
  const plans = baseCampaigns(scheme, profile);
  const first = Math.max(windowOf(profile.openedOn), windowOf(fromDay - MAX_PROMOTION_DAYS - REMOVED_LISTED_DAYS));
  const last = Math.min(LAST_WINDOW, windowOf(toDay));
  for (let window = Math.max(0, first); window <= last; window++) plans.push(...promotions(scheme, profile, window));
  return plans.filter((plan) => plan.createdOn <= toDay);
}

/** The campaign in a slot, whether or not it exists yet; undefined for an unused slot. */
export function campaignInSlot(scheme: IdScheme, profile: AccountProfile, slot: number): CampaignPlan | undefined {
  if (slot < BASE_SLOTS) return baseCampaigns(scheme, profile).find((plan) => plan.slot === slot);
  const window = Math.floor((slot - BASE_SLOTS) / 2);
  if (window > LAST_WINDOW) return undefined;
  return promotions(scheme, profile, window).find((plan) => plan.slot === slot);
}

export function statusOn(plan: CampaignPlan, day: number): EntityStatus {
  return plan.stopsOn !== undefined && plan.stopsOn <= day ? plan.stopStatus : 'ENABLED';
}

/** Listed at the platform on `today`: created, and not removed long ago. */
export function isListed(plan: CampaignPlan, today: number): boolean {
  if (plan.createdOn > today) return false;
  return !(plan.stopStatus === 'REMOVED' && plan.stopsOn !== undefined && today >= plan.stopsOn + REMOVED_LISTED_DAYS);
}

export function toPlatformCampaign(plan: CampaignPlan, today: number): PlatformCampaign {
  return {
    adPlatformId: plan.adPlatformId,
    name: plan.name,
    status: statusOn(plan, today),
    dailyBudget: plan.dailyBudget,
    createdOn: isoDay(plan.createdOn),
  };
}

/** The account's base campaigns, whether or not they exist yet at some clock. */
export function baseCampaigns(scheme: IdScheme, profile: AccountProfile): CampaignPlan[] {
  const rng = Rng.of(profile.seed, 'campaigns');
  const count = 4 + Math.floor(14 * rng.next() ** 2.2);
  const variants = scheme.platform === 'FACEBOOK' ? SOCIAL_VARIANTS : SEARCH_VARIANTS;
  const products = profile.theme.products;
  // Distinct (product, variant) pairs keep names unique within the account.
  const pairs = rng.distinctInts(count, products.length * variants.length);
  return pairs.map((pair, slot) => {
    const product = pair % products.length;
    const variant = variants[Math.floor(pair / products.length)] ?? 'Search';
    // The first campaign goes live within days of opening; the rest over the first 18 months.
    const createdOn = profile.openedOn + (slot === 0 ? rng.int(1, 10) : rng.int(1, 540));
    const paused = slot > 0 && rng.chance(0.25);
    const stopsOn = paused ? createdOn + rng.int(60, 900) : undefined;
    const name = slot === 0 ? `Brand | ${variant}` : `${titleCase(products[product] ?? '')} | ${variant}`;
    return plan(scheme, profile, slot, name, createdOn, stopsOn, 'PAUSED', product);
  });
}

function promotions(scheme: IdScheme, profile: AccountProfile, window: number): CampaignPlan[] {
  const rng = Rng.of(profile.seed, 'promotions', window);
  const count = rng.chance(0.5) ? 2 : 1;
  const start = WINDOW_EPOCH + window * WINDOW_DAYS;
  const plans: CampaignPlan[] = [];
  for (let j = 0; j < count; j++) {
    const createdOn = start + rng.int(0, WINDOW_DAYS - 1);
    const stopsOn = createdOn + rng.int(45, MAX_PROMOTION_DAYS);
    const product = rng.int(0, profile.theme.products.length - 1);
    if (createdOn <= profile.openedOn) continue;
    const month = new Date(createdOn * 86_400_000).getUTCMonth();
    const name = `${PROMOTIONS[month] ?? 'Promotion'} ${yearOf(createdOn)} | ${titleCase(profile.theme.products[product] ?? '')}`;
    plans.push(plan(scheme, profile, BASE_SLOTS + window * 2 + j, name, createdOn, stopsOn, 'REMOVED', product));
  }
  return plans;
}

function plan(
  scheme: IdScheme,
  profile: AccountProfile,
  slot: number,
  name: string,
  createdOn: number,
  stopsOn: number | undefined,
  stopStatus: 'PAUSED' | 'REMOVED',
  product: number,
): CampaignPlan {
  const adPlatformId = scheme.entityId({ kind: 'CAMPAIGN', payload: profile.payload, campaign: slot });
  const seed = `${profile.seed}|${adPlatformId}`;
  return {
    slot,
    adPlatformId,
    name,
    createdOn,
    stopsOn,
    stopStatus,
    product,
    dailyBudget: dailyBudgetFor(seed, profile.currency),
    seed,
  };
}

/**
 * Most campaigns spend a few dozen euros a day, a few thousands (skewed towards the low end),
 * in the account currency, rounded to two significant digits as people set budgets: whole
 * currency units, so at most 2 decimals in any currency.
 */
export function dailyBudgetFor(seed: string, currency: string): number {
  const euros = 20 * 100 ** (Rng.of(seed, 'budget').next() ** 1.6);
  const amount = euros * currencyScale(currency);
  const step = 10 ** Math.max(0, Math.floor(Math.log10(amount)) - 1);
  return Math.max(1, Math.round(amount / step) * step);
}

function windowOf(day: number): number {
  return Math.floor((day - WINDOW_EPOCH) / WINDOW_DAYS);
}
