import { setImmediate } from 'node:timers/promises';
import type { AdPlatformType, DailyStatistic, PlatformAdGroup, PlatformKeyword } from '../connector.js';
import type { AccountProfile } from './accounts.js';
import type { CampaignPlan } from './campaigns.js';
import { splitCell, type CellSplit, type CellTotals, type RowShape } from './cell-split.js';
import { isoDay, weekday } from './dates.js';
import { Rng } from './random.js';
import { cellsFor, reportedShare, seasonFactor, weekdayFactor, type Cell } from './traffic-model.js';
import { currencyScale } from './vocabulary.js';

/**
 * Daily figures of an account. For each campaign, ad group, day and device x network cell the
 * cell's totals are drawn first (seeded by ad group and day, so a day's figures do not depend
 * on the range asked for), conversions are scaled down to what the platform has reported by
 * `now`, and the totals are then split over the ad group's ads and, on search platforms, over
 * its keywords (see cell-split.ts). Keyword rows carry `keywordId` and `adId = null`; ad rows
 * carry `adId` and `keywordId = null`.
 */
export interface CampaignWithChildren {
  readonly plan: CampaignPlan;
  readonly adGroups: readonly PlatformAdGroup[];
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
  readonly adIds: readonly string[];
  readonly keywordIds: readonly string[];
  readonly weight: number;
  readonly ads: RowShape;
  readonly keywords: RowShape | undefined;
}

const MATCH_CTR: Readonly<Record<PlatformKeyword['matchType'], number>> = { EXACT: 1.5, PHRASE: 1, BROAD: 0.7 };
/** New campaigns ramp up over their first week. */
const RAMP_DAYS = 7;

export async function dailyStatistics(
  platform: AdPlatformType,
  profile: AccountProfile,
  campaigns: readonly CampaignWithChildren[],
  fromDay: number,
  toDay: number,
  now: Date,
): Promise<DailyStatistic[]> {
  const rows: DailyStatistic[] = [];
  const accountScale = Rng.of(profile.seed, 'scale').logNormal(1, 0.5);
  for (const { plan, adGroups } of campaigns) {
    // A month of a large account is 0.1-0.3 s of CPU: let other requests in between campaigns.
    await setImmediate();
    const traffic = campaignTraffic(platform, profile, plan, accountScale);
    const shapes = adGroups.map((group) => groupShape(plan, group));
    const totalWeight = shapes.reduce((sum, s) => sum + s.weight, 0);
    const first = Math.max(fromDay, plan.createdOn);
    const last = Math.min(toDay, plan.stopsOn === undefined ? toDay : plan.stopsOn - 1);
    for (let day = first; day <= last; day++) {
      const date = isoDay(day);
      const ramp = Math.min(1, (day - plan.createdOn + 1) / RAMP_DAYS);
      const dayFactor = weekdayFactor(platform, weekday(day)) * seasonFactor(day) * ramp * Rng.of(plan.seed, 'day', day).logNormal(1, 0.15);
      const share = reportedShare(day, now);
      for (const shape of shapes) {
        const rng = Rng.of(plan.seed, shape.group.adPlatformId, day);
        const volume = (traffic.volume * dayFactor * shape.weight * rng.logNormal(1, 0.2)) / totalWeight;
        for (const cell of traffic.cells) {
          const totals = restate(drawCell(rng, traffic, cell, volume), share);
          if (totals.impressions === 0) continue;
          const key = { date, campaignId: plan.adPlatformId, adGroupId: shape.group.adPlatformId, device: cell.device, network: cell.network };
          pushRows(rows, key, splitCell(totals, shape.ads), shape.adIds, undefined);
          if (shape.keywords) pushRows(rows, key, splitCell(totals, shape.keywords), undefined, shape.keywordIds);
        }
      }
    }
  }
  return rows;
}

type RowKey = Pick<DailyStatistic, 'date' | 'campaignId' | 'adGroupId' | 'device' | 'network'>;

/** Rows with impressions only; one literal per row (spreading objects here cost most of the time). */
function pushRows(rows: DailyStatistic[], key: RowKey, split: CellSplit, adIds: readonly string[] | undefined, keywordIds: readonly string[] | undefined): void {
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

function campaignTraffic(platform: AdPlatformType, profile: AccountProfile, plan: CampaignPlan, accountScale: number): CampaignTraffic {
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
function groupShape(plan: CampaignPlan, group: PlatformAdGroup): GroupShape {
  const rng = Rng.of(plan.seed, group.adPlatformId, 'shape');
  const weight = rng.logNormal(1, 0.9);
  const ids = { adIds: group.ads.map((ad) => ad.adPlatformId), keywordIds: group.keywords.map((k) => k.adPlatformId) };
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
  const calls = Math.min(clicks, poisson(rng, clicks * t.callRate * cell.calls));
  let callConversions = 0;
  for (let i = 0; i < calls; i++) if (rng.chance(t.callConversionRate)) callConversions++;
  const callConversionsFractional = Math.round(callConversions * 100 * t.callFraction);
  return { impressions, clicks, costMicros, conversions, valueCents, calls, callConversions, callConversionsFractional };
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
