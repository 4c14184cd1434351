import {
  BREAKDOWN_SOURCES,
  HOURLY_RETENTION_DAYS,
  type FactColumn,
  type FactSourceDefinition,
} from '../catalog/fact-sources.js';
import { ROLLUP_MEASURES, ROLLUPS } from '../catalog/rollups.js';
import type { FactMeasure } from '../catalog/statistics.js';
import { BREAKDOWN_PROFILES, SHARE_PARTS, type BreakdownProfile } from '../platforms/breakdown-profiles.js';
import { addDays, isoDate } from '../shared/dates.js';
import type { Executor } from '../store/database.js';
import type { SqlValue } from '../store/sql-values.js';

/** Campaign days just written (rollup_campaign_daily is already rewritten for them). */
export interface BreakdownScope {
  readonly organizationId: number;
  /** Inclusive, YYYY-MM-DD. */
  readonly from: string;
  readonly to: string;
  readonly adPlatformAccountId?: number | undefined;
  readonly campaignIds?: readonly number[] | undefined;
  /** The first day whose hours are kept (today minus HOURLY_RETENTION_DAYS); older hours are deleted. */
  readonly hoursFrom: string;
}

/** The first day whose hours a write at `now` keeps, as the planner counts the retention. */
export function hoursFrom(now: Date): string {
  return addDays(isoDate(now), -HOURLY_RETENTION_DAYS);
}

const CAMPAIGN_DAY: readonly FactColumn[] = ['organization_id', 'day', 'adplatform_account_id', 'campaign_id'];
const ROLLUP_GRAIN = ROLLUPS.find((r) => r.table === 'rollup_campaign_daily')!.grain;
/** Columns a breakdown keeps from the campaign's daily rows rather than from its buckets. */
const CARRIED: readonly FactColumn[] = ['device', 'network'];
const MEASURE_OF: Readonly<Record<(typeof ROLLUP_MEASURES)[number], FactMeasure>> = {
  impressions: 'impressions',
  clicks: 'clicks',
  cost: 'cost',
  conversions: 'conversions',
  conversion_value: 'conversionValue',
  calls: 'calls',
  call_conversions: 'callConversions',
  call_conversions_fractional: 'callConversionsFractional',
};
const DECIMAL_MEASURES = new Set(['cost', 'conversions', 'conversion_value', 'call_conversions_fractional']);

/**
 * Rewrites the breakdown rows (../catalog/fact-sources.ts BREAKDOWN_SOURCES) of the scope's
 * campaign days from rollup_campaign_daily, in the caller's transaction, after the rollups: each
 * campaign day (and device and network, where the breakdown keeps them) split into the buckets
 * of its platform's profile (../platforms/breakdown-profiles.ts). Every additive figure is cut
 * into exact integer parts, money in micros: part i = floor(x * upper_i / P) - floor(x * lower_i
 * / P) over the cumulative shares, which telescopes to x, so the buckets of a day sum exactly to
 * it. Rows of a bucket with nothing in it are left out. Hours are kept from `hoursFrom` on.
 *
 * The sandbox reports its breakdowns by this split of its own daily rows, so the sync and the
 * generator derive them here from what they just wrote; a real platform's connector would
 * deliver its breakdown rows instead (not built: the connector interface has no breakdowns yet).
 */
export async function rewriteBreakdowns(tx: Executor, scope: BreakdownScope): Promise<void> {
  for (const source of BREAKDOWN_SOURCES) {
    const profiles = BREAKDOWN_PROFILES.filter((p) => p.source === source.name);
    const { where, params } = scopeOf(scope);
    await tx.run(`DELETE FROM ${source.table} WHERE ${where}`, params);
    if (source.retentionDays !== undefined) {
      await tx.run(`DELETE FROM ${source.table} WHERE organization_id = $1 AND day < $2::DATE`, [
        scope.organizationId,
        scope.hoursFrom,
      ]);
      if (scope.to < scope.hoursFrom) continue;
    }
    if (profiles.length === 0) continue;
    const kept = source.retentionDays === undefined ? '' : ` AND day >= $${params.push(scope.hoursFrom)}::DATE`;
    await tx.run(splitSql(source, profiles, `${where}${kept}`), params);
  }
}

function splitSql(source: FactSourceDefinition, profiles: readonly BreakdownProfile[], where: string): string {
  const carried = source.grain.filter((c) => CARRIED.includes(c));
  const buckets = source.grain.filter((c) => !CAMPAIGN_DAY.includes(c) && !carried.includes(c));
  const keys = [...CAMPAIGN_DAY, ...carried];
  const measures = ROLLUP_MEASURES.map((m) => ({
    column: m,
    split: source.measures.includes(MEASURE_OF[m]) ? part(m) : '0',
  }));
  // One variant count per source, so the bucket join is an equi-join on (platform, variant).
  const variants = profiles[0]!.variants.length;
  if (profiles.some((p) => p.variants.length !== variants || p.variantBy !== profiles[0]!.variantBy))
    throw new Error(`the profiles of ${source.name} differ in their variants`);
  const variantKey = profiles[0]!.variantBy;
  const variant =
    variantKey === 'campaign'
      ? 'r.campaign_id'
      : variantKey === 'platformAccount'
        ? 'r.adplatform_account_id'
        : `(r.campaign_id + (r.day - DATE '1970-01-01'))`;
  return `INSERT INTO ${source.table} (${[...keys, ...buckets, ...ROLLUP_MEASURES.map(quote)].join(', ')})
    SELECT * FROM (
      SELECT ${keys.map((c) => `r.${c}`).join(', ')}, ${buckets.map((c) => `w.${c}`).join(', ')},
             ${measures.map((m) => `${m.split} AS ${quote(m.column)}`).join(', ')}
        FROM (${campaignDays(keys, where)}) r
        JOIN adplatform_accounts p ON p.id = r.adplatform_account_id
        JOIN (VALUES ${weightRows(profiles, buckets)}) w(platform, variant, ${buckets.join(', ')}, share_from, share_to)
          ON w.platform = p.ad_platform_type AND w.variant = ${variant} % ${variants}
    ) s
    WHERE ${ROLLUP_MEASURES.map((m) => `s.${quote(m)} <> 0`).join(' OR ')}
    ORDER BY ${[...keys, ...buckets].join(', ')}`;
}

/**
 * The campaign days to split, at the breakdown's keys: rollup_campaign_daily as it is where the
 * keys are its grain (hours), else summed over device and network, the sums cast back to the
 * rollup's 64-bit types (DuckDB sums into 128 bits, whose arithmetic made the split 3-4x slower;
 * a sum beyond 64 bits fails the write).
 */
function campaignDays(keys: readonly FactColumn[], where: string): string {
  if (ROLLUP_GRAIN.every((c) => keys.includes(c))) return `SELECT * FROM rollup_campaign_daily WHERE ${where}`;
  const sums = ROLLUP_MEASURES.map(
    (m) => `CAST(sum(${quote(m)}) AS ${DECIMAL_MEASURES.has(m) ? 'DECIMAL(18,6)' : 'BIGINT'}) AS ${quote(m)}`,
  );
  return `SELECT ${keys.join(', ')}, ${sums.join(', ')} FROM rollup_campaign_daily WHERE ${where} GROUP BY ALL`;
}

/**
 * One measure's part of the bucket [lower, upper) of P = SHARE_PARTS, money and decimals in micros:
 * floor(x * upper / P) - floor(x * lower / P), computed as q * (upper - lower) + floor(r * upper
 * / P) - floor(r * lower / P) with x = q * P + r, so nothing exceeds x and 64 bits suffice.
 */
function part(measure: string): string {
  const x = DECIMAL_MEASURES.has(measure) ? `CAST(r.${quote(measure)} * 1000000 AS BIGINT)` : `r.${quote(measure)}`;
  const [q, rest] = [`(${x} // ${SHARE_PARTS})`, `(${x} % ${SHARE_PARTS})`];
  const cut = `(${q} * (w.share_to - w.share_from) + ${rest} * w.share_to // ${SHARE_PARTS} - ${rest} * w.share_from // ${SHARE_PARTS})`;
  return DECIMAL_MEASURES.has(measure) ? `CAST(CAST(${cut} AS DECIMAL(18,0)) * 0.000001 AS DECIMAL(18,6))` : cut;
}

/** The profiles' buckets as VALUES rows: platform, variant, bucket values, cumulative share bounds. */
function weightRows(profiles: readonly BreakdownProfile[], columns: readonly FactColumn[]): string {
  const rows: string[] = [];
  for (const profile of profiles)
    for (const platform of profile.platforms)
      profile.variants.forEach((buckets, v) => {
        let lower = 0;
        for (const bucket of buckets) {
          const values = columns.map((c) => literal(bucket.values[c]!));
          rows.push(`('${platform}', ${v}, ${values.join(', ')}, ${lower}, ${lower + bucket.share})`);
          lower += bucket.share;
        }
      });
  return rows.join(', ');
}

/** Our own constants (bucket names of the profiles), never request text. */
function literal(value: string | number): string {
  return typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`;
}

/** Quoted: DuckDB 1.5 reads a bare `cost` as a keyword in some positions. */
function quote(column: string): string {
  return `"${column}"`;
}

function scopeOf(scope: BreakdownScope): { where: string; params: SqlValue[] } {
  const params: SqlValue[] = [scope.organizationId, scope.from, scope.to];
  const where = ['organization_id = $1', 'day BETWEEN $2::DATE AND $3::DATE'];
  if (scope.adPlatformAccountId !== undefined) {
    params.push(scope.adPlatformAccountId);
    where.push(`adplatform_account_id = $${params.length}`);
  }
  if (scope.campaignIds !== undefined) {
    params.push(scope.campaignIds.map(String));
    where.push(`campaign_id IN (SELECT unnest($${params.length}::VARCHAR[])::BIGINT)`);
  }
  return { where: where.join(' AND '), params };
}
