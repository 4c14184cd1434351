import type { Executor } from '../store/database.js';
import { type GeneratedDay } from './traffic.js';

/**
 * Finds the volume factor that makes the run produce about the wanted number of fact rows.
 *
 * A fact row exists when its impressions, floor(expected + u) with u uniform, are at least 1,
 * which happens with probability min(1, expected). So the expected row count is the sum over
 * every (ad or keyword) x cell x active day of min(1, factor x x x f), with x the cell's base
 * volume (times the account's growth at the middle of the active days) and f the day's
 * season x weekday x noise. That sum is computed from a histogram of
 * log2(x) weighted by active days (SQL, one pass over the entity tables, never over days)
 * and the distribution of f (JS), and solved for the factor by bisection. The estimate lands
 * within a few percent of the real count (the factor is rounded to 6 significant digits so the
 * result is the same in every process).
 */

/** Histogram resolution: 8 buckets per doubling of x (+-4 % of x). */
const BUCKETS_PER_OCTAVE = 8;
/** Day-to-day noise of campaigns (0.2) and ad groups (0.15) together, as in facts.ts. */
const DAY_NOISE_SIGMA = Math.sqrt(0.2 ** 2 + 0.15 ** 2);
/** Five-point Gauss-Hermite rule for a standard normal: nodes and weights. */
const NORMAL_NODES: ReadonlyArray<readonly [number, number]> = [
  [-2.856970013872805, 0.011257411327720691],
  [-1.355626179974266, 0.22207592200561266],
  [0, 0.5333333333333333],
  [1.355626179974266, 0.22207592200561266],
  [2.856970013872805, 0.011257411327720691],
];
const MIN_FACTOR = 1e-4;
/** Beyond this, a small tree would be given absurd volumes to reach its row target. */
const MAX_FACTOR = 50;

export interface Calibration {
  readonly factor: number;
  /** Fact rows the factor is expected to produce. */
  readonly expectedRows: number;
  /** Candidate cells (entity x cell x active day) per organization index, for chunking and progress. */
  readonly candidatesByOrg: ReadonlyMap<number, number>;
}

interface Bucket {
  readonly social: boolean;
  readonly x: number;
  readonly weight: number;
}

export async function calibrate(tx: Executor, days: readonly GeneratedDay[], targetRows: number): Promise<Calibration> {
  const last = days.length - 1;
  // Growth (or decline) of the account over the range, at the middle of the cell's active days.
  const growth = (alias: string) =>
    `exp(g.growth * ((greatest(${alias}.start_idx, 0) + ${alias}.end_idx) / 2 - ${last}) / 365.0)`;
  const rows = await tx.all<{ social: boolean; bucket: number; weight: number }>(`
    WITH cells AS (
      SELECT g.platform = 2 AS social, g.volume * a.share * c.share * ${growth('a')} AS x, greatest(0, a.end_idx - a.start_idx + 1)::BIGINT AS days
        FROM gen_ads a JOIN gen_ad_groups g ON g.local = a.ad_group_local
        JOIN gen_cells c ON c.platform = g.platform AND (g.net_mask & c.net_bit) <> 0
      UNION ALL
      SELECT false, g.volume * k.share * c.share * ${growth('k')}, greatest(0, k.end_idx - k.start_idx + 1)::BIGINT
        FROM gen_keywords k JOIN gen_ad_groups g ON g.local = k.ad_group_local
        JOIN gen_cells c ON c.platform = g.platform AND (g.net_mask & c.net_bit) <> 0 AND c.net_bit <= 2
    )
    SELECT social, floor(log2(x) * ${BUCKETS_PER_OCTAVE})::INTEGER AS bucket, sum(days)::BIGINT AS weight
      FROM cells WHERE x > 0 GROUP BY ALL ORDER BY social, bucket`);
  const buckets: Bucket[] = rows.map((r) => ({
    social: r.social,
    x: 2 ** ((Number(r.bucket) + 0.5) / BUCKETS_PER_OCTAVE),
    weight: Number(r.weight),
  }));
  const byOrg = await tx.all<{ org_k: number; candidates: number }>(`
    WITH cells AS (
      SELECT g.org_k, greatest(0, a.end_idx - a.start_idx + 1)::BIGINT AS days
        FROM gen_ads a JOIN gen_ad_groups g ON g.local = a.ad_group_local
        JOIN gen_cells c ON c.platform = g.platform AND (g.net_mask & c.net_bit) <> 0
      UNION ALL
      SELECT g.org_k, greatest(0, k.end_idx - k.start_idx + 1)::BIGINT
        FROM gen_keywords k JOIN gen_ad_groups g ON g.local = k.ad_group_local
        JOIN gen_cells c ON c.platform = g.platform AND (g.net_mask & c.net_bit) <> 0 AND c.net_bit <= 2
    )
    SELECT org_k, sum(days)::BIGINT AS candidates FROM cells GROUP BY org_k ORDER BY org_k`);
  const candidatesByOrg = new Map(byOrg.map((r) => [Number(r.org_k), Number(r.candidates)]));

  const search = dayFactors(days, false);
  const social = dayFactors(days, true);
  const expected = (factor: number) => {
    let total = 0;
    for (const b of buckets) {
      let share = 0;
      for (const [f, w] of b.social ? social : search) share += w * Math.min(1, factor * b.x * f);
      total += b.weight * share;
    }
    return total;
  };
  let lo = Math.log(MIN_FACTOR);
  let hi = Math.log(MAX_FACTOR);
  if (expected(MAX_FACTOR) <= targetRows) lo = hi;
  else if (expected(MIN_FACTOR) >= targetRows) hi = lo;
  for (let i = 0; i < 60 && hi - lo > 1e-7; i++) {
    const mid = (lo + hi) / 2;
    if (expected(Math.exp(mid)) < targetRows) lo = mid;
    else hi = mid;
  }
  const factor = Number(Math.exp((lo + hi) / 2).toPrecision(6));
  return { factor, expectedRows: Math.round(expected(factor)), candidatesByOrg };
}

/** The distribution of a day's volume multiplier, as (value, probability) pairs, compressed to 64 quantiles. */
function dayFactors(days: readonly GeneratedDay[], social: boolean): Array<readonly [number, number]> {
  const values: Array<readonly [number, number]> = [];
  for (const day of days) {
    const base = day.season * (social ? day.weekSocial : day.weekSearch);
    for (const [z, w] of NORMAL_NODES) values.push([base * Math.exp(DAY_NOISE_SIGMA * z), w / days.length]);
  }
  values.sort((a, b) => a[0] - b[0]);
  const slices = 64;
  const out: Array<readonly [number, number]> = [];
  let cursor = 0;
  for (let s = 0; s < slices && cursor < values.length; s++) {
    const end = Math.min(values.length, Math.round(((s + 1) * values.length) / slices));
    let weight = 0;
    let weighted = 0;
    for (; cursor < end; cursor++) {
      weight += values[cursor]![1];
      weighted += values[cursor]![0] * values[cursor]![1];
    }
    if (weight > 0) out.push([weighted / weight, weight]);
  }
  return out;
}
