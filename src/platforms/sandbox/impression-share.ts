import type { DailyImpressionShare, DeviceType } from '../connector.js';
import { Rng } from './random.js';

/**
 * GOOGLE_ADS impression share of a campaign on the SEARCH network (Google reports impression
 * share for Google Search; search partners and display have none here). The campaign has a
 * typical share of the impressions it was eligible for; what it lost went to budget or to ad
 * rank. Shares come back as counts so that any bucket aggregates as sums over sums.
 */
export interface ImpressionShareModel {
  /** Typical search impression share: most campaigns 0.3-0.9, some under 0.1, a few near 1. */
  readonly share: number;
  /** Part of the lost impressions lost to budget (budget-limited campaigns: most of it). */
  readonly budgetPart: number;
  /** Part of the impressions shown above the organic results. */
  readonly top: number;
  /** Part of the top impressions in the very first position. */
  readonly absoluteTop: number;
}

/** Search impression share moves a little by device. */
const DEVICE_SHARE: Partial<Record<DeviceType, number>> = { MOBILE: 1, DESKTOP: 1.04, TABLET: 0.96, OTHER: 0.9 };

/**
 * `budgetPressure` is the campaign's expected daily cost over its daily budget: a campaign whose
 * traffic would cost more than its budget allows is budget-limited (and so are a few others, as
 * budgets are also cut by shared budgets and ad schedules).
 */
export function impressionShareModel(seed: string, budgetPressure: number): ImpressionShareModel {
  const rng = Rng.of(seed, 'impression-share');
  const kind = rng.next();
  let share =
    kind < 0.12 ? 0.02 + 0.075 * rng.next() : kind < 0.2 ? 0.93 + 0.065 * rng.next() : 0.3 + 0.6 * rng.next() ** 1.15;
  const limited = budgetPressure > 0.8 || rng.chance(0.2);
  if (limited) share = Math.min(share, 0.35 + 0.5 * rng.next());
  const budgetPart = limited ? 0.6 + 0.35 * rng.next() : 0.02 + 0.18 * rng.next();
  // Campaigns that win most auctions also win the top positions more often.
  const top = Math.min(0.97, Math.max(0.08, 0.2 + 0.6 * share + 0.12 * rng.normal()));
  const absoluteTop = 0.2 + 0.55 * rng.next();
  return { share, budgetPart, top, absoluteTop };
}

/**
 * One row for a campaign, day and device on SEARCH with `impressions` > 0, drawn from its own
 * generator (seed, day, device) so the row does not depend on the range asked for. Exact
 * invariants: impressions <= eligible, budgetLost + rankLost = eligible - impressions,
 * absoluteTop <= top <= impressions, all whole and not negative.
 */
export function impressionShareRow(
  model: ImpressionShareModel,
  seed: string,
  key: Pick<DailyImpressionShare, 'date' | 'campaignId' | 'device' | 'network'>,
  day: number,
  impressions: number,
): DailyImpressionShare {
  const rng = Rng.of(seed, 'impression-share', day, key.device);
  const share = Math.min(1, Math.max(0.005, model.share * (DEVICE_SHARE[key.device] ?? 1) * rng.logNormal(1, 0.1)));
  const eligibleImpressions = Math.max(impressions, Math.round(impressions / share));
  const lost = eligibleImpressions - impressions;
  const budgetLostImpressions = Math.min(
    lost,
    Math.round(lost * Math.min(1, model.budgetPart * rng.logNormal(1, 0.12))),
  );
  const topImpressions = Math.min(
    impressions,
    Math.round(impressions * Math.min(1, model.top * rng.logNormal(1, 0.06))),
  );
  const absoluteTopImpressions = Math.min(
    topImpressions,
    Math.round(topImpressions * Math.min(1, model.absoluteTop * rng.logNormal(1, 0.08))),
  );
  return {
    date: key.date,
    campaignId: key.campaignId,
    device: key.device,
    network: key.network,
    impressions,
    eligibleImpressions,
    budgetLostImpressions,
    rankLostImpressions: lost - budgetLostImpressions,
    topImpressions,
    absoluteTopImpressions,
  };
}
