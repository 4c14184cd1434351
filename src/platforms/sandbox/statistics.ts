import { setImmediate } from 'node:timers/promises';
import type {
  AdPlatformType,
  CallRecord,
  DailyAudienceRun,
  DailyImpressionShare,
  DailyReport,
  DailyStatistic,
  PlatformAdGroup,
  PlatformKeyword,
} from '../connector.js';
import type { AccountProfile } from './accounts.js';
import { allocate } from './allocation.js';
import {
  accountAudience,
  adDayReach,
  adSetAudience,
  markReach,
  pushRuns,
  type AccountAudience,
  type AdSetAudience,
} from './audience.js';
import { pushCallRecords } from './call-records.js';
import { baseCampaigns, type CampaignPlan } from './campaigns.js';
import { splitCell, type CellSplit, type CellTotals, type RowShape } from './cell-split.js';
import { isoDay, weekday } from './dates.js';
import { CALLS_PER_CELL, type IdScheme } from './ids.js';
import { impressionShareModel, impressionShareRow, type ImpressionShareModel } from './impression-share.js';
import { Rng } from './random.js';
import { cellsFor, reportedShare, seasonFactor, weekdayFactor, type Cell } from './traffic-model.js';
import { currencyScale } from './vocabulary.js';

/**
 * Daily figures of an account, as one consistent model of its traffic. For each campaign, ad
 * group, day and device x network cell the cell's totals are drawn first (seeded by ad group
 * and day, so a day's figures do not depend on the range asked for), conversions are scaled
 * down to what the platform has reported by `now`, and the totals are then split over the ad
 * group's ads and, on search platforms, over its keywords (see cell-split.ts). Keyword rows
 * carry `keywordId` and `adId = null`; ad rows carry `adId` and `keywordId = null`.
 *
 * From the same cells: GOOGLE_ADS impression share per campaign, day and device on SEARCH
 * (impression-share.ts), FACEBOOK audience runs per ad and day (audience.ts), and on the
 * search platforms one call record per call counted (call-records.ts).
 */
export interface CampaignWithChildren {
  readonly plan: CampaignPlan;
  readonly adGroups: readonly PlatformAdGroup[];
}

/** Whose reach trueReach counts: an ad is in when its id, its ad group's or its campaign's is listed; everything when all are empty. */
export interface ReachSelection {
  readonly campaignIds?: readonly string[];
  readonly adGroupIds?: readonly string[];
  readonly adIds?: readonly string[];
}

interface CampaignTraffic {
  readonly volume: number;
  readonly ctr: number;
  readonly cpc: number;
  readonly cvr: number;
  readonly orderValue: number;
  readonly callRate: number;
  readonly callConversionRate: number;
  readonly callFraction: number;
  readonly cells: readonly Cell[];
}

interface GroupShape {
  readonly group: PlatformAdGroup;
  /** Position in the campaign (the ad group's slot in its id). */
  readonly index: number;
  readonly adIds: readonly string[];
  readonly keywordIds: readonly string[];
  readonly weight: number;
  readonly ads: RowShape;
  readonly keywords: RowShape | undefined;
}

/** Everything fixed about a campaign's traffic, whatever the day. */
interface CampaignModel {
  readonly plan: CampaignPlan;
  readonly traffic: CampaignTraffic;
  readonly shapes: readonly GroupShape[];
  readonly totalWeight: number;
  /** GOOGLE_ADS. */
  readonly impressionShare: ImpressionShareModel | undefined;
  /** FACEBOOK, index for index with `shapes`. */
  readonly audiences: readonly AdSetAudience[] | undefined;
}

const MATCH_CTR: Readonly<Record<PlatformKeyword['matchType'], number>> = { EXACT: 1.5, PHRASE: 1, BROAD: 0.7 };
/** New campaigns ramp up over their first week. */
const RAMP_DAYS = 7;

export async function dailyReport(
  scheme: IdScheme,
  profile: AccountProfile,
  campaigns: readonly CampaignWithChildren[],
  fromDay: number,
  toDay: number,
  now: Date,
): Promise<DailyReport> {
  const platform = scheme.platform;
  const statistics: DailyStatistic[] = [];
  const impressionShare: DailyImpressionShare[] = [];
  const audienceRuns: DailyAudienceRun[] = [];
  const calls: CallRecord[] = [];
  const accountScale = Rng.of(profile.seed, 'scale').logNormal(1, 0.5);
  const audience = platform === 'FACEBOOK' ? audienceOf(scheme, profile) : undefined;
  for (const { plan, adGroups } of campaigns) {
    // A quarter of the largest catalog account is about a second of CPU: let other requests in between campaigns.
    await setImmediate();
    const model = campaignModel(platform, profile, plan, adGroups, accountScale, audience);
    const { traffic, shapes } = model;
    const searchImpressions = new Array<number>(traffic.cells.length).fill(0);
    const first = Math.max(fromDay, plan.createdOn);
    const last = Math.min(toDay, plan.stopsOn === undefined ? toDay : plan.stopsOn - 1);
    for (let day = first; day <= last; day++) {
      // A busy campaign is ~10 ms a day: let requests in every week of it too.
      if ((day - first) % 7 === 6) await setImmediate();
      const date = isoDay(day);
      const factor = dayFactor(platform, plan, day);
      const share = reportedShare(day, now);
      searchImpressions.fill(0);
      for (const shape of shapes) {
        const rng = Rng.of(plan.seed, shape.group.adPlatformId, day);
        const volume = (traffic.volume * factor * shape.weight * rng.logNormal(1, 0.2)) / model.totalWeight;
        const adSet = model.audiences?.[shape.index];
        const adImpressions = adSet ? new Array<number>(shape.adIds.length).fill(0) : undefined;
        for (let c = 0; c < traffic.cells.length; c++) {
          const cell = traffic.cells[c]!;
          const final = drawCell(rng, traffic, cell, volume);
          const totals = restate(final, share);
          if (totals.impressions === 0) continue;
          const key = {
            date,
            campaignId: plan.adPlatformId,
            adGroupId: shape.group.adPlatformId,
            device: cell.device,
            network: cell.network,
          };
          const adSplit = splitCell(totals, shape.ads);
          pushRows(statistics, key, adSplit, shape.adIds, undefined);
          if (shape.keywords) pushRows(statistics, key, splitCell(totals, shape.keywords), undefined, shape.keywordIds);
          if (cell.network === 'SEARCH') searchImpressions[c] = (searchImpressions[c] ?? 0) + totals.impressions;
          if (adImpressions)
            for (let i = 0; i < adImpressions.length; i++)
              adImpressions[i] = (adImpressions[i] ?? 0) + (adSplit.impressions[i] ?? 0);
          if (totals.calls > 0) {
            pushCallRecords(calls, {
              scheme,
              payload: profile.payload,
              campaignSlot: plan.slot,
              adGroupIndex: shape.index,
              seed: plan.seed,
              date,
              day,
              campaignId: plan.adPlatformId,
              adGroupId: shape.group.adPlatformId,
              device: cell.device,
              timeZone: profile.timeZone,
              country: profile.country,
              calls: totals.calls,
              finalConversions: final.callConversions,
              reportedConversions: totals.callConversions,
            });
          }
        }
        if (adSet && adImpressions) {
          for (let i = 0; i < adSet.ads.length; i++) {
            const impressions = adImpressions[i] ?? 0;
            const ad = adSet.ads[i]!;
            if (impressions === 0) continue;
            const key = { date, campaignId: plan.adPlatformId, adGroupId: shape.group.adPlatformId, adId: ad.adId };
            pushRuns(audienceRuns, key, adSet, adDayReach(adSet, ad, day - plan.createdOn, impressions));
          }
        }
      }
      if (model.impressionShare) {
        for (let c = 0; c < traffic.cells.length; c++) {
          const impressions = searchImpressions[c] ?? 0;
          const cell = traffic.cells[c]!;
          if (impressions === 0 || cell.network !== 'SEARCH') continue;
          const key = { date, campaignId: plan.adPlatformId, device: cell.device, network: cell.network };
          impressionShare.push(impressionShareRow(model.impressionShare, plan.seed, key, day, impressions));
        }
      }
    }
  }
  return { statistics, impressionShare, audienceRuns, calls };
}

/**
 * The test oracle for FACEBOOK reach: the number of distinct people the selected ads reached
 * on days [fromDay, toDay], any number of days. It walks the same traffic model as dailyReport
 * (ad impressions only), and marks each person reached in a byte per person of the account's
 * audience, so it shares no interval arithmetic with the runs dailyReport returns.
 */
export async function trueReach(
  scheme: IdScheme,
  profile: AccountProfile,
  campaigns: readonly CampaignWithChildren[],
  fromDay: number,
  toDay: number,
  selection: ReachSelection,
): Promise<number> {
  const audience = audienceOf(scheme, profile);
  const reached = new Uint8Array(audience.size);
  const accountScale = Rng.of(profile.seed, 'scale').logNormal(1, 0.5);
  const listed = new Set([
    ...(selection.campaignIds ?? []),
    ...(selection.adGroupIds ?? []),
    ...(selection.adIds ?? []),
  ]);
  let people = 0;
  for (const { plan, adGroups } of campaigns) {
    const wanted = (groupId: string, adId: string) =>
      listed.size === 0 || listed.has(plan.adPlatformId) || listed.has(groupId) || listed.has(adId);
    if (!adGroups.some((group) => group.ads.some((ad) => wanted(group.adPlatformId, ad.adPlatformId)))) continue;
    await setImmediate();
    const model = campaignModel('FACEBOOK', profile, plan, adGroups, accountScale, audience);
    const first = Math.max(fromDay, plan.createdOn);
    const last = Math.min(toDay, plan.stopsOn === undefined ? toDay : plan.stopsOn - 1);
    for (let day = first; day <= last; day++) {
      const factor = dayFactor('FACEBOOK', plan, day);
      for (const shape of model.shapes) {
        const adSet = model.audiences?.[shape.index];
        if (!adSet || !shape.adIds.some((adId) => wanted(shape.group.adPlatformId, adId))) continue;
        const rng = Rng.of(plan.seed, shape.group.adPlatformId, day);
        const volume = (model.traffic.volume * factor * shape.weight * rng.logNormal(1, 0.2)) / model.totalWeight;
        const adImpressions = new Array<number>(shape.adIds.length).fill(0);
        for (const cell of model.traffic.cells) {
          const impressions = drawCell(rng, model.traffic, cell, volume).impressions;
          // The ad rows' split of the cell (cell-split.ts splits impressions this way first).
          allocate(impressions, shape.ads.impressions).forEach(
            (n, i) => (adImpressions[i] = (adImpressions[i] ?? 0) + n),
          );
        }
        adSet.ads.forEach((ad, i) => {
          const impressions = adImpressions[i] ?? 0;
          if (impressions > 0 && wanted(shape.group.adPlatformId, ad.adId))
            people += markReach(reached, adSet, adDayReach(adSet, ad, day - plan.createdOn, impressions));
        });
      }
    }
  }
  return people;
}

/** A FACEBOOK account's audience, sized by its seed and by what its base campaigns serve on an ordinary day. */
export function audienceOf(scheme: IdScheme, profile: AccountProfile): AccountAudience {
  const accountScale = Rng.of(profile.seed, 'scale').logNormal(1, 0.5);
  let daily = 0;
  for (const plan of baseCampaigns(scheme, profile)) {
    const traffic = campaignTraffic(scheme.platform, profile, plan, accountScale);
    daily += traffic.cells.reduce((sum, cell) => sum + traffic.volume * cell.share, 0);
  }
  return accountAudience(profile, daily);
}

type RowKey = Pick<DailyStatistic, 'date' | 'campaignId' | 'adGroupId' | 'device' | 'network'>;

/** Rows with impressions only; one literal per row (spreading objects here cost most of the time). */
function pushRows(
  rows: DailyStatistic[],
  key: RowKey,
  split: CellSplit,
  adIds: readonly string[] | undefined,
  keywordIds: readonly string[] | undefined,
): void {
  for (let i = 0; i < split.impressions.length; i++) {
    const impressions = split.impressions[i] ?? 0;
    if (impressions === 0) continue;
    rows.push({
      date: key.date,
      campaignId: key.campaignId,
      adGroupId: key.adGroupId,
      adId: adIds ? (adIds[i] ?? null) : null,
      keywordId: keywordIds ? (keywordIds[i] ?? '') : null,
      device: key.device,
      network: key.network,
      impressions,
      clicks: split.clicks[i] ?? 0,
      // An integer divided by a power of ten is the double nearest that decimal: at most 6 decimals.
      cost: (split.costMicros[i] ?? 0) / 1e6,
      conversions: (split.conversions[i] ?? 0) / 100,
      conversionValue: (split.valueCents[i] ?? 0) / 100,
      calls: split.calls[i] ?? 0,
      callConversions: split.callConversions[i] ?? 0,
      callConversionsFractional: (split.callConversionsFractional[i] ?? 0) / 100,
    });
  }
}

function campaignModel(
  platform: AdPlatformType,
  profile: AccountProfile,
  plan: CampaignPlan,
  adGroups: readonly PlatformAdGroup[],
  accountScale: number,
  audience: AccountAudience | undefined,
): CampaignModel {
  const traffic = campaignTraffic(platform, profile, plan, accountScale);
  const shapes = adGroups.map((group, index) => groupShape(plan, group, index));
  const totalWeight = shapes.reduce((sum, s) => sum + s.weight, 0);
  let impressionShare: ImpressionShareModel | undefined;
  if (platform === 'GOOGLE_ADS') {
    // What a day's clicks would cost at the model's rates, against the budget.
    const cost = traffic.cells.reduce(
      (sum, cell) => sum + traffic.volume * cell.share * cell.ctr * traffic.ctr * traffic.cpc * cell.cpc,
      0,
    );
    impressionShare = impressionShareModel(plan.seed, cost / plan.dailyBudget);
  }
  let audiences: AdSetAudience[] | undefined;
  if (audience) {
    const cellShare = traffic.cells.reduce((sum, cell) => sum + cell.share, 0);
    audiences = shapes.map((shape) => {
      const adWeight = shape.ads.impressions.reduce((sum, w) => sum + w, 0);
      const groupImpressions = (traffic.volume * cellShare * shape.weight) / totalWeight;
      const expected = shape.ads.impressions.map((w) => (groupImpressions * w) / adWeight);
      return adSetAudience(audience, plan, shape.index, shape.adIds, expected);
    });
  }
  return { plan, traffic, shapes, totalWeight, impressionShare, audiences };
}

function dayFactor(platform: AdPlatformType, plan: CampaignPlan, day: number): number {
  const ramp = Math.min(1, (day - plan.createdOn + 1) / RAMP_DAYS);
  return (
    weekdayFactor(platform, weekday(day)) * seasonFactor(day) * ramp * Rng.of(plan.seed, 'day', day).logNormal(1, 0.15)
  );
}

function campaignTraffic(
  platform: AdPlatformType,
  profile: AccountProfile,
  plan: CampaignPlan,
  accountScale: number,
): CampaignTraffic {
  const rng = Rng.of(plan.seed, 'traffic');
  const money = currencyScale(profile.currency);
  const search = platform !== 'FACEBOOK';
  return {
    volume: rng.logNormal(320, 1.15) * accountScale,
    ctr: rng.logNormal(1, 0.25),
    cpc: profile.theme.cpc * rng.logNormal(1, 0.3) * money,
    cvr: Math.min(0.25, rng.logNormal(0.035, 0.45)),
    orderValue: profile.theme.orderValue * rng.logNormal(1, 0.3) * money,
    callRate: search && rng.chance(0.5) ? 0.03 + 0.09 * rng.next() : 0,
    callConversionRate: 0.2 + 0.25 * rng.next(),
    callFraction: 0.6 + 0.4 * rng.next(),
    cells: cellsFor(platform, { partners: rng.chance(0.75), display: platform === 'GOOGLE_ADS' && rng.chance(0.35) }),
  };
}

/** Fixed per ad group: its share of the campaign, and how its ads and keywords divide it. */
function groupShape(plan: CampaignPlan, group: PlatformAdGroup, index: number): GroupShape {
  const rng = Rng.of(plan.seed, group.adPlatformId, 'shape');
  const weight = rng.logNormal(1, 0.9);
  const ids = {
    index,
    adIds: group.ads.map((ad) => ad.adPlatformId),
    keywordIds: group.keywords.map((k) => k.adPlatformId),
  };
  const ads: RowShape = {
    impressions: group.ads.map(() => rng.logNormal(1, 0.5)),
    clickRate: group.ads.map(() => rng.logNormal(1, 0.2)),
    conversionRate: group.ads.map(() => rng.logNormal(1, 0.25)),
  };
  if (group.keywords.length === 0) return { group, ...ids, weight, ads, keywords: undefined };
  // A few keywords take most of the traffic (Zipf over a shuffled rank).
  const ranks = rng.distinctInts(group.keywords.length, group.keywords.length);
  const keywords: RowShape = {
    impressions: group.keywords.map((_, i) => rng.logNormal(1, 0.4) / ((ranks[i] ?? i) + 1) ** 1.1),
    clickRate: group.keywords.map((k) => MATCH_CTR[k.matchType]),
    conversionRate: group.keywords.map(() => rng.logNormal(1, 0.3)),
  };
  return { group, ...ids, weight, ads, keywords };
}

/** Final figures of one cell: what the platform will report once conversions are complete. */
function drawCell(rng: Rng, t: CampaignTraffic, cell: Cell, volume: number): CellTotals {
  const impressions = poisson(rng, volume * cell.share);
  const clicks = Math.min(impressions, poisson(rng, impressions * cell.ctr * t.ctr * rng.logNormal(1, 0.15)));
  const costMicros = clicks === 0 ? 0 : Math.round(clicks * t.cpc * cell.cpc * rng.logNormal(1, 0.12) * 1e6);
  const conversionCount = poisson(rng, clicks * t.cvr * cell.cvr * rng.logNormal(1, 0.2));
  // Data-driven attribution leaves fractions, including a little credit where no whole conversion landed.
  let conversions = Math.round(100 * conversionCount * rng.logNormal(1, 0.3));
  if (conversionCount === 0 && clicks > 0 && rng.chance(0.08)) conversions = rng.int(5, 60);
  conversions = Math.min(conversions, 100 * clicks);
  const valueCents = conversions === 0 ? 0 : Math.round(conversions * t.orderValue * rng.logNormal(1, 0.35));
  // Below CALLS_PER_CELL so every call has an id (the busiest cells of the catalogs see a few dozen).
  const calls = Math.min(clicks, CALLS_PER_CELL - 1, poisson(rng, clicks * t.callRate * cell.calls));
  let callConversions = 0;
  for (let i = 0; i < calls; i++) if (rng.chance(t.callConversionRate)) callConversions++;
  const callConversionsFractional = Math.round(callConversions * 100 * t.callFraction);
  return {
    impressions,
    clicks,
    costMicros,
    conversions,
    valueCents,
    calls,
    callConversions,
    callConversionsFractional,
  };
}

/** Conversion lag: conversion figures as reported `share` of the way to final; traffic never changes. */
function restate(final: CellTotals, share: number): CellTotals {
  if (share >= 1) return final;
  const conversions = Math.floor(final.conversions * share);
  const callConversions = Math.floor(final.callConversions * share);
  return {
    ...final,
    conversions,
    valueCents: final.conversions === 0 ? 0 : Math.round((final.valueCents * conversions) / final.conversions),
    callConversions,
    callConversionsFractional: Math.min(Math.floor(final.callConversionsFractional * share), 100 * callConversions),
  };
}

/** Poisson counts: exact (Knuth) for small means, normal approximation above. */
function poisson(rng: Rng, mean: number): number {
  if (!(mean > 0)) return 0;
  if (mean >= 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * rng.normal()));
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rng.next();
  while (p > limit) {
    k++;
    p *= rng.next();
  }
  return k;
}
