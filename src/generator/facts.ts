import { addDays } from '../shared/dates.js';
import { bumpFactPartitionVersions } from '../statistics/fact-partition-versions.js';
import { rewriteRollups } from '../statistics/rollups.js';
import type { Executor } from '../store/database.js';
import { reserveIds } from './ids.js';
import { permute, sqlNumber } from './sql.js';
import { TAG } from './tags.js';
import { CELLS, FACEBOOK, GOOGLE, NET_PARTNERS } from './traffic.js';

/**
 * The facts of one chunk (one organization, a block of days), all in DuckDB SQL over the gen_*
 * TEMP tables: ad rows, keyword rows, then what is derived from the ad rows just written
 * (impression shares, audience runs, call details). Each chunk inserts in (day, platform
 * account, campaign, ad group, item, cell) order, so the tables end up sorted by
 * (organization, day) and reports of one organization and date range read few row groups.
 */

export interface FactRun {
  readonly seed: number;
  /** Calibrated volume factor (calibration.ts). */
  readonly factor: number;
  readonly firstDay: string;
  readonly days: number;
  /** The first day whose hourly breakdown is kept. */
  readonly hoursFrom: string;
  /** Per day index, as SQL list literals: season x weekday for search and social, conversions reported so far. */
  readonly dayLists: { readonly search: string; readonly social: string; readonly reported: string };
  readonly firstIds: { readonly ad: number; readonly keyword: number };
}

export interface Chunk {
  readonly orgK: number;
  readonly orgId: number;
  /** Day indexes, inclusive. */
  readonly from: number;
  readonly to: number;
}

export interface ChunkRows {
  readonly adRows: number;
  readonly keywordRows: number;
  readonly impressionShareRows: number;
  readonly audienceRuns: number;
  readonly calls: number;
}

const SOCIAL_SHARE = CELLS.find((c) => c.platform === FACEBOOK)!.share;

/** Uniform in (0, 1) from 16 bits (piece 0-3) of a 64-bit hash column. */
const u16 = (h: string, piece: number) => `((((${h}) >> ${16 * piece}) & 65535)::DOUBLE + 0.5) * ${1 / 65536}`;
/** Uniform in (0, 1) from the high 32 bits of a 64-bit hash column. */
const u32 = (h: string) => `(((${h}) >> 32)::DOUBLE + 0.5) * ${1 / 4294967296}`;
/** About standard normal: three 16-bit uniforms summed (Irwin-Hall), centred and scaled to variance 1. */
const normal3 = (h: string) => `((${u16(h, 0)} + ${u16(h, 1)} + ${u16(h, 2)} - 1.5) * 2)`;
/** Standard normal from two 16-bit pieces (Box-Muller). */
const normal16 = (h: string, a: number, b: number) => `(sqrt(-2 * ln(${u16(h, a)})) * cos(2 * pi() * ${u16(h, b)}))`;

export async function insertChunk(tx: Executor, run: FactRun, chunk: Chunk): Promise<ChunkRows> {
  const adRows = await insertItemFacts(tx, run, chunk, 'ad');
  const keywordRows = await insertItemFacts(tx, run, chunk, 'keyword');
  // The chunk's rollup rows, in its transaction; chunks go in (organization, day) order, so do they.
  const written = {
    organizationId: chunk.orgId,
    from: addDays(run.firstDay, chunk.from),
    to: addDays(run.firstDay, chunk.to),
  };
  await rewriteRollups(tx, { ...written, hoursFrom: run.hoursFrom });
  await bumpFactPartitionVersions(tx, written);
  const impressionShareRows = await insertImpressionShares(tx, run, chunk);
  const audienceRuns = await insertAudienceRuns(tx, run, chunk);
  const calls = await insertCallDetails(tx, run, chunk);
  return { adRows, keywordRows, impressionShareRows, audienceRuns, calls };
}

function dayRange(run: FactRun, chunk: Chunk): string {
  return `DATE '${run.firstDay}' + ${chunk.from} AND DATE '${run.firstDay}' + ${chunk.to}`;
}

/**
 * Per organization, before its chunks: every (ad or keyword) x cell it can have rows in, with
 * everything a row needs denormalized onto it. The chunk queries then expand these rows over
 * days with a lateral range() and never join per candidate: gathering ~20 columns out of a hash
 * join for each of 2.2 M candidates cost 3 s of CPU, more than computing and writing the 0.6 M
 * rows that survive (measured on 1.5.6).
 */
export async function prepareOrganization(tx: Executor, run: FactRun, orgK: number): Promise<void> {
  for (const kind of ['ad', 'keyword'] as const) {
    const ad = kind === 'ad';
    await tx.run(`CREATE OR REPLACE TEMP TABLE ${ad ? 'gen_ad_cells' : 'gen_keyword_cells'} AS
      SELECT g.local AS ag_local, g.campaign_local, i.local AS item_local, c.cell, i.start_idx, i.end_idx, g.growth, g.platform,
             ${sqlNumber(run.factor)} * g.volume * i.share * c.share AS base,
             g.pa_id, g.campaign_id, g.id AS ad_group_id, i.id AS item_id, c.device, c.network,
             g.ctr_m * ${ad ? '1' : 'i.ctr_m'} * c.ctr AS ctr, g.cpc * c.cpc AS cpc, g.cvr * c.cvr AS cvr, g.order_value,
             g.call_rate * c.calls AS call_rate, g.decimals
        FROM ${ad ? 'gen_ads' : 'gen_keywords'} i
        JOIN gen_ad_groups g ON g.local = i.ad_group_local
        JOIN gen_cells c ON c.platform = g.platform AND (g.net_mask & c.net_bit) <> 0 ${ad ? '' : `AND c.net_bit <= ${NET_PARTNERS}`}
       WHERE g.org_k = ${orgK}
       ORDER BY g.local, i.local, c.cell`);
  }
}

/**
 * Ad rows split each ad group-day's volume over the ad group's ads and the platform's cells;
 * keyword rows split the same volume (search networks only) over its keywords by a Zipf-like
 * share, so the two tables agree on the shape but not to the impression. A day's volume is the
 * cell's base x season x weekday x growth x campaign-day and ad group-day noise (both shared by
 * every row of the campaign or ad group that day). Impressions are floor(expected x noise + u):
 * a cell whose expected volume is 0.05 has a row one day in twenty. Zero-impression rows are
 * dropped before anything else is computed for them.
 */
export async function insertItemFacts(
  tx: Executor,
  run: FactRun,
  chunk: Chunk,
  kind: 'ad' | 'keyword',
): Promise<number> {
  const ad = kind === 'ad';
  const table = ad ? 'fact_ad_daily' : 'fact_keyword_daily';
  const cells = ad ? 'gen_ad_cells' : 'gen_keyword_cells';
  const itemColumn = ad ? 'ad_id' : 'keyword_id';
  const tags = ad
    ? [TAG.adRow, TAG.adRowClicks, TAG.adRowConversions]
    : [TAG.keywordRow, TAG.keywordRowClicks, TAG.keywordRowConversions];
  const s = run.seed;
  const key = 'item_local, day_idx, cell';
  const last = run.days - 1;
  const sql = `
    INSERT INTO ${table} (organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ${itemColumn}, device, network,
                          impressions, clicks, cost, conversions, conversion_value, calls, call_conversions, call_conversions_fractional)
    WITH ic AS (
      -- An upper bound of a candidate's impressions before the day factor: row noise < 1.2, day noise
      -- exp(0.2 n + 0.15 n') < exp(1.05) with |n| < 3, growth at its largest in the chunk; 3.5 > 1.2 x 2.86.
      SELECT *, base * 3.5 * greatest(exp(growth * (${chunk.from} - ${last}) / 365.0), exp(growth * (${chunk.to} - ${last}) / 365.0)) AS bound
        FROM ${cells} WHERE start_idx <= ${chunk.to} AND end_idx >= ${chunk.from}
    ), pre AS (
      SELECT ic.*, t.day_idx,
             (CASE WHEN platform = ${FACEBOOK} THEN ${run.dayLists.social} ELSE ${run.dayLists.search} END)[t.day_idx + 1] AS day_factor,
             hash(${s}, ${tags[0]}, item_local, t.day_idx, cell) AS h1
        FROM ic, range(greatest(ic.start_idx, ${chunk.from}), least(ic.end_idx, ${chunk.to}) + 1) t(day_idx)
    ), cand AS (
      -- Exact, only cheaper: a candidate that cannot reach one impression is dropped before its noise is drawn.
      SELECT * FROM pre WHERE bound * day_factor + ${u32('h1')} >= 1
    ), imp AS (
      SELECT *,
             floor(base * day_factor
                   * exp(growth * (day_idx - ${last}) / 365.0
                         + 0.2 * ${normal3(`hash(${s}, ${TAG.campaignDay}, campaign_local, day_idx)`)}
                         + 0.15 * ${normal3(`hash(${s}, ${TAG.adGroupDay}, ag_local, day_idx)`)})
                   * (0.8 + 0.4 * ${u16('h1', 0)}) + ${u32('h1')})::INTEGER AS impressions
        FROM cand
    ), clk AS (
      SELECT *, hash(${s}, ${tags[1]}, ${key}) AS h2, hash(${s}, ${tags[2]}, ${key}) AS h3
        FROM imp WHERE impressions > 0
    ), clk2 AS (
      SELECT *, least(impressions, floor(impressions * ctr * (0.75 + 0.5 * ${u16('h1', 1)}) + ${u16('h2', 3)})::INTEGER) AS clicks FROM clk
    ), conv AS (
      -- Money is cast straight to DECIMAL(18,2), which rounds: half the cost of round() and a cast.
      SELECT *,
             (CASE WHEN decimals = 0 THEN round(clicks * cpc * (0.8 + 0.4 * ${u16('h2', 0)})) ELSE clicks * cpc * (0.8 + 0.4 * ${u16('h2', 0)}) END)::DECIMAL(18,2) AS cost_value,
             least(clicks, floor(clicks * cvr + ${u16('h2', 1)})::INTEGER) AS final_conversions,
             CASE WHEN call_rate > 0 THEN least(clicks, floor(clicks * call_rate + ${u16('h2', 2)})::INTEGER) ELSE 0 END AS call_count,
             ${run.dayLists.reported}[day_idx + 1] AS reported
        FROM clk2
    ), lagged AS (
      SELECT *,
             (final_conversions * (0.8 + 0.2 * ${u16('h3', 0)}) * reported)::DECIMAL(18,2) AS conversion_count,
             round(least(call_count, floor(call_count * 0.3 + ${u16('h3', 1)})::INTEGER) * reported)::INTEGER AS call_conversion_count
        FROM conv
    )
    SELECT ${chunk.orgId}, DATE '${run.firstDay}' + day_idx::INTEGER, pa_id, campaign_id, ad_group_id, item_id, device, network, impressions, clicks,
           cost_value, conversion_count,
           CASE WHEN conversion_count = 0 THEN 0 ELSE (conversion_count::DOUBLE * order_value * (0.6 + 0.8 * ${u16('h3', 2)}))::DECIMAL(18,2) END,
           call_count, call_conversion_count,
           (call_conversion_count * (0.6 + 0.4 * ${u16('h3', 3)}))::DECIMAL(18,2)
      FROM lagged
     ORDER BY day_idx, pa_id, campaign_id, ad_group_id, item_id, cell`;
  return changed(tx, sql);
}

/**
 * GOOGLE_ADS SEARCH impression shares per campaign, day and device: impressions are exactly the
 * sum of the chunk's ad rows; eligible impressions follow from the campaign's share of the day.
 */
async function insertImpressionShares(tx: Executor, run: FactRun, chunk: Chunk): Promise<number> {
  const s = run.seed;
  const sql = `
    INSERT INTO fact_impression_share_daily
    WITH sums AS (
      SELECT organization_id, day, adplatform_account_id, campaign_id, device, network, sum(impressions)::BIGINT AS impressions
        FROM fact_ad_daily
       WHERE organization_id = ${chunk.orgId} AND day BETWEEN ${dayRange(run, chunk)} AND network = 'SEARCH'
         AND adplatform_account_id IN (SELECT id FROM gen_pas WHERE org_k = ${chunk.orgK} AND platform = ${GOOGLE})
       GROUP BY ALL
    ), x AS (
      SELECT sums.*, c.share_base, c.budget_lost_frac, c.top_rate, c.abs_top_rate,
             hash(${s}, ${TAG.shareDay}, c.local, sums.day, sums.device) AS h
        FROM sums JOIN gen_campaigns c ON c.id = sums.campaign_id
    ), y AS (
      SELECT *,
             greatest(impressions, ceil(impressions / least(0.99, share_base * (0.85 + 0.3 * ${u16('h', 0)}))))::BIGINT AS eligible,
             least(impressions, floor(impressions * top_rate * (0.9 + 0.2 * ${u16('h', 1)})))::BIGINT AS top
        FROM x
    ), z AS (
      SELECT *, floor((eligible - impressions) * budget_lost_frac)::BIGINT AS budget_lost FROM y
    )
    SELECT organization_id, day, adplatform_account_id, campaign_id, device, network, impressions, eligible,
           budget_lost, eligible - impressions - budget_lost, top,
           least(top, floor(top * abs_top_rate * (0.9 + 0.2 * ${u16('h', 2)})))::BIGINT
      FROM z
     ORDER BY day, adplatform_account_id, campaign_id, device`;
  return changed(tx, sql);
}

/**
 * FACEBOOK reach as runs of the platform account's audience numbering [0, audience): each
 * campaign reaches a segment [s, s + L) of it; an ad reaches a run of r = min(L, round(impr / f))
 * people a day (f 1.1-2.0 impressions per person), starting at s + ((day x step + offset) mod L)
 * and wrapping into a second run at the segment's end. Consecutive days overlap when the step is
 * shorter than the run, so reach over a period is less than the sum of daily reach.
 */
async function insertAudienceRuns(tx: Executor, run: FactRun, chunk: Chunk): Promise<number> {
  const s = run.seed;
  const sql = `
    INSERT INTO fact_audience_runs
    WITH f AS (
      SELECT f.organization_id, f.day, f.adplatform_account_id, f.campaign_id, f.ad_group_id, f.ad_id, f.impressions,
             c.seg_start, c.seg_len, a.local AS ad_local, a.offset_u, a.step_frac, a.share, g.volume AS ag_volume,
             (f.day - DATE '${run.firstDay}')::BIGINT AS day_idx
        FROM fact_ad_daily f
        JOIN gen_ads a ON a.id = f.ad_id
        JOIN gen_ad_groups g ON g.local = a.ad_group_local
        JOIN gen_campaigns c ON c.local = g.campaign_local
       WHERE f.organization_id = ${chunk.orgId} AND f.day BETWEEN ${dayRange(run, chunk)} AND f.network = 'SOCIAL'
    ), r AS (
      SELECT *,
             least(seg_len, greatest(1, round(impressions / (1.1 + 0.9 * ${u16(`hash(${s}, ${TAG.audienceRun}, ad_local, day_idx)`, 0)}))))::BIGINT AS run_len,
             floor(offset_u * seg_len)::BIGINT AS start_offset,
             greatest(1, floor(step_frac * ${sqlNumber(run.factor)} * ag_volume * share * ${sqlNumber(SOCIAL_SHARE)} / 1.5))::BIGINT AS step
        FROM f
    ), p AS (
      SELECT *, (day_idx * step + start_offset) % seg_len AS pos FROM r
    ), runs AS (
      SELECT organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id,
             seg_start + pos AS user_from, seg_start + least(seg_len, pos + run_len) AS user_to
        FROM p
      UNION ALL
      SELECT organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id, seg_start, seg_start + pos + run_len - seg_len
        FROM p WHERE pos + run_len > seg_len
    )
    SELECT * FROM runs ORDER BY day, adplatform_account_id, campaign_id, ad_group_id, ad_id, user_from`;
  return changed(tx, sql);
}

const CALL_TYPES = ['CALL_ASSET', 'CALL_ONLY_AD', 'WEBSITE_CALL'];

/**
 * One row per call the chunk's ad rows count: the first call_conversions calls of a row convert
 * (RECEIVED, at least a minute), the others are missed ~18 % of the time (0 s) or last a
 * log-normal time. Calls start in business hours (8-19) of the platform account's time zone.
 */
async function insertCallDetails(tx: Executor, run: FactRun, chunk: Chunk): Promise<number> {
  const where = `organization_id = ${chunk.orgId} AND day BETWEEN ${dayRange(run, chunk)} AND calls > 0`;
  const total = await tx.one<{ n: number }>(
    `SELECT coalesce(sum(calls), 0)::BIGINT AS n FROM fact_ad_daily WHERE ${where}`,
  );
  const count = Number(total?.n ?? 0);
  if (count === 0) return 0;
  const first = await reserveIds(tx, 'call_detail_id_seq', count);
  const s = run.seed;
  const sql = `
    INSERT INTO call_details (id, organization_id, adplatform_account_id, campaign_id, ad_group_id, ad_platform_id, day, start_time,
                              duration_seconds, status, call_type, caller_country, caller_area_code, is_conversion)
    WITH f AS (
      SELECT f.*, k FROM (SELECT * FROM fact_ad_daily WHERE ${where}) f, range(f.calls) t(k)
    ), n AS (
      SELECT f.*, ${first} + row_number() OVER (ORDER BY day, ad_id, device, network, k) - 1 AS id,
             hash(${s}, ${TAG.call}, ad_id - ${run.firstIds.ad}, day, device, network, k) AS h,
             hash(${s}, ${TAG.callDuration}, ad_id - ${run.firstIds.ad}, day, device, network, k) AS h2,
             k < call_conversions AS converted
        FROM f
    ), x AS (
      SELECT n.*, p.time_zone, p.country,
             CASE WHEN converted THEN 'RECEIVED' WHEN ${u16('h', 0)} < 0.18 THEN 'MISSED' ELSE 'RECEIVED' END AS status
        FROM n JOIN gen_pas p ON p.id = n.adplatform_account_id
    )
    SELECT id, organization_id, adplatform_account_id, campaign_id, ad_group_id,
           (100000000000000 + ${permute(run.seed, 'id', 900_000_000_000_000, 19)})::VARCHAR,
           day,
           timezone(time_zone, day::TIMESTAMP + to_seconds(floor(8 * 3600 + ${u16('h', 1)} * 11 * 3600)::BIGINT)),
           CASE WHEN status = 'MISSED' THEN 0
                WHEN converted THEN 60 + least(7140, floor(exp(ln(150) + 0.8 * ${normal16('h2', 0, 1)})))
                ELSE greatest(1, least(7200, floor(exp(ln(70) + 1.1 * ${normal16('h2', 0, 1)})))) END::INTEGER,
           status,
           ['${CALL_TYPES.join("', '")}'][CASE WHEN ${u16('h', 2)} < 0.6 THEN 1 WHEN ${u16('h', 2)} < 0.75 THEN 2 ELSE 3 END],
           country,
           (CASE WHEN country IN ('US', 'CA') THEN 201 + floor(${u16('h', 3)} * 788) ELSE 10 + floor(${u16('h', 3)} * 890) END)::BIGINT::VARCHAR,
           converted
      FROM x
     ORDER BY id`;
  return changed(tx, sql);
}

/** Runs an INSERT and returns how many rows it wrote. */
async function changed(tx: Executor, sql: string): Promise<number> {
  const rows = await tx.all<{ Count: number }>(sql);
  return Number(rows[0]?.Count ?? 0);
}
