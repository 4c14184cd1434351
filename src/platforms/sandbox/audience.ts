import type { DailyAudienceRun } from '../connector.js';
import type { AccountProfile } from './accounts.js';
import type { CampaignPlan } from './campaigns.js';
import { mix32, Rng } from './random.js';

/**
 * FACEBOOK reach, from an audience the sandbox knows exactly.
 *
 * - Every FACEBOOK account has an audience of U people numbered 0..U-1 (200k-5M from its seed,
 *   long tail; a big spender's at least 30 days of its base campaigns' expected impressions, so
 *   a quarter does not exhaust it), ordered by affinity to the advertiser: the first C (2-6 % of
 *   U) are its *core* (site visitors, customers, fans).
 * - Each ad set targets a contiguous segment [s, s+L). Retargeting and catalog-sales ad sets
 *   target a part of the core, so they overlap one another; the others lie after the core, the
 *   ad sets of a campaign around one campaign position, positions crowding towards the core. So
 *   segments of one campaign overlap, and so do those of many campaigns.
 * - An ad with i impressions on a day reaches r = min(L, max(1, round(i / f))) people, f being
 *   its daily frequency (1.1-2.0, +-10 % noise per day, never below 1, so 1 <= r <= i), as one
 *   run starting at s + ((dayIndex * step + offset) mod L), dayIndex counted from the campaign's
 *   first day; a run past the segment's end goes on at s (a second run).
 * - An ad's step is 35-70 % of its typical daily reach (same fraction for the ads of an ad set),
 *   so its consecutive days overlap (people return). L is what the ad set's ads cover together
 *   in 30-300 days (sum of their steps times that; within the core at most C), so long ranges
 *   saturate towards L; a big spender on a small segment reaches all of it every day.
 * - The ads of an ad set start side by side, each overlapping the one before by 20-60 % of a
 *   typical reach, and then move at their own speeds across one another.
 *
 * Runs depend on impressions only, which restatement never changes. A month of an account ends
 * up at a frequency (impressions / reach) of about 4-8, an ad set's day at 1.3-2.
 */
export interface AccountAudience {
  readonly size: number;
  readonly core: number;
}

export interface AdAudience {
  readonly adId: string;
  /** Position of the ad's run on the campaign's first day, inside the segment. */
  readonly offset: number;
  /** How far the run moves on from one day to the next. */
  readonly step: number;
  /** Impressions per person per day, before the day's noise. */
  readonly frequency: number;
  readonly noiseSeed: number;
}

export interface AdSetAudience {
  readonly start: number;
  readonly length: number;
  /** Index for index with the ad set's ads. */
  readonly ads: readonly AdAudience[];
}

/** Where one ad's people of one day sit in its segment: `count` people from `position` on, wrapping. */
export interface AdDayReach {
  readonly position: number;
  readonly count: number;
}

const RETARGETING = /\| (Retargeting|Catalog Sales)$/;

/** Most accounts' audiences hold 200k-5M; one of a big spender holds AUDIENCE_DAYS of its impressions, at most MAX_AUDIENCE. */
const AUDIENCE_DAYS = 30;
const MAX_AUDIENCE = 50_000_000;

/** `dailyImpressions`: what the account's base campaigns are expected to serve on an ordinary day. */
export function accountAudience(profile: AccountProfile, dailyImpressions: number): AccountAudience {
  const rng = Rng.of(profile.seed, 'audience');
  const drawn = 200_000 * 25 ** (rng.next() ** 2);
  const size = Math.round(Math.min(MAX_AUDIENCE, Math.max(drawn, AUDIENCE_DAYS * dailyImpressions)));
  return { size, core: Math.round(size * (0.02 + 0.04 * rng.next())) };
}

/**
 * The segment and ads of one ad set. `adImpressions` are the ads' expected impressions on an
 * ordinary day (the traffic model's volume and weights), which set the step and the segment.
 */
export function adSetAudience(
  audience: AccountAudience,
  plan: CampaignPlan,
  groupIndex: number,
  adIds: readonly string[],
  adImpressions: readonly number[],
): AdSetAudience {
  const rng = Rng.of(plan.seed, 'audience', groupIndex);
  const frequencies = adIds.map(() => 1.1 + 0.9 * rng.next());
  const reaches = adImpressions.map((impressions, i) => Math.max(1, impressions / (frequencies[i] ?? 1.5)));
  // Each ad moves on by 35-70 % of its own typical daily reach: its consecutive days overlap.
  const pace = 0.35 + 0.35 * rng.next();
  const steps = reaches.map((reach) => Math.max(1, Math.round(pace * reach)));
  const sweepDays = 30 * 10 ** rng.next();
  const wanted = Math.round(Math.max(sweepDays * steps.reduce((sum, step) => sum + step, 0), 3 * Math.max(...reaches)));
  let start: number;
  let length: number;
  if (RETARGETING.test(plan.name)) {
    length = Math.max(1, Math.min(audience.core, wanted));
    start = Math.floor((audience.core - length + 1) * rng.next());
  } else {
    const room = audience.size - audience.core;
    length = Math.max(1, Math.min(room, wanted));
    // The campaign's position, shared by its ad sets: crowded towards the core.
    const campaign = Rng.of(plan.seed, 'audience-position').next() ** 3 * 0.25 * room;
    start = audience.core + Math.min(room - length, Math.floor(campaign + 0.5 * length * rng.next()));
  }
  // Side by side, each overlapping the one before by 20-60 % of its reach, then moving at their own speeds.
  let offset = Math.floor(length * rng.next());
  const ads = adIds.map((adId, i) => {
    const ad = {
      adId,
      offset: offset % length,
      step: steps[i] ?? 1,
      frequency: frequencies[i] ?? 1.5,
      noiseSeed: rng.int(0, 0x7fffffff),
    };
    offset += Math.floor((0.4 + 0.4 * rng.next()) * (reaches[i] ?? 1));
    return ad;
  });
  return { start, length, ads };
}

/** The people an ad with `impressions` > 0 reached on day `dayIndex` of its campaign. */
export function adDayReach(adSet: AdSetAudience, ad: AdAudience, dayIndex: number, impressions: number): AdDayReach {
  const noise = mix32(ad.noiseSeed ^ Math.imul(dayIndex + 1, 0x9e3779b1)) / 4294967296;
  const frequency = Math.max(1, ad.frequency * (0.9 + 0.2 * noise));
  const count = Math.min(adSet.length, Math.max(1, Math.round(impressions / frequency)));
  return { position: (dayIndex * ad.step + ad.offset) % adSet.length, count };
}

/** The day's reach as runs [from, to) of the account's numbering: one, or two where it wraps. */
export function pushRuns(
  runs: DailyAudienceRun[],
  key: Pick<DailyAudienceRun, 'date' | 'campaignId' | 'adGroupId' | 'adId'>,
  adSet: AdSetAudience,
  reach: AdDayReach,
): void {
  const end = reach.position + reach.count;
  // One literal per run: spreading a shared key costs more than the rest of the run together.
  const { date, campaignId, adGroupId, adId } = key;
  runs.push({
    date,
    campaignId,
    adGroupId,
    adId,
    from: adSet.start + reach.position,
    to: adSet.start + Math.min(adSet.length, end),
  });
  if (end > adSet.length)
    runs.push({ date, campaignId, adGroupId, adId, from: adSet.start, to: adSet.start + (end - adSet.length) });
}

/**
 * Marks the people of one ad's day one by one in `reached` (one byte per person of the
 * account), walking the segment without interval arithmetic: the test oracle's way of
 * counting. Returns how many were not marked before.
 */
export function markReach(reached: Uint8Array, adSet: AdSetAudience, reach: AdDayReach): number {
  let fresh = 0;
  let place = reach.position;
  for (let k = 0; k < reach.count; k++) {
    const person = adSet.start + place;
    if (reached[person] === 0) {
      reached[person] = 1;
      fresh++;
    }
    place++;
    if (place === adSet.length) place = 0;
  }
  return fresh;
}
