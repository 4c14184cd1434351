import { ROLLUP_MEASURES, ROLLUPS } from '../catalog/rollups.js';
import type { FactColumn, FactSourceDefinition } from '../catalog/fact-sources.js';
import type { FactMeasure } from '../catalog/statistics.js';
import { SHARE_PARTS, type BreakdownProfile } from '../platforms/breakdown-profiles.js';

/**
 * The split of campaign days into a breakdown's buckets (./breakdowns.ts) as one INSERT ...
 * SELECT, written once for every engine that stores breakdowns: DuckDB (the embedded writer,
 * `DUCKDB_SPLIT`) and ClickHouse (the facts deployment's partition writer,
 * ../clickhouse/facts/breakdown-writer.ts). The engines differ only in the spellings of
 * `SplitSpelling`; the shape, the variant a row takes and the integer arithmetic are the same
 * text, so both hold the same rows for the same campaign days.
 */
export interface SplitSpelling {
  /** The quotient of two integers truncated toward zero (DuckDB's `//`, ClickHouse's intDiv). */
  integerDivide(left: string, right: string): string;
  /** Days since 1970-01-01 of a DATE. */
  epochDay(day: string): string;
  /** A DECIMAL(18,6) in integer micros, as a 64-bit integer. */
  micros(decimal: string): string;
  /** Integer micros back to DECIMAL(18,6), exactly. */
  fromMicros(micros: string): string;
  /** A string literal of our own constants (bucket names, platforms). */
  literal(text: string): string;
  /** The constant rows as a table `alias` with these columns (a bucket's values are numbers or text, the rest integers). */
  constantTable(
    alias: string,
    columns: ReadonlyArray<readonly [name: string, type: 'integer' | 'text']>,
    rows: readonly (readonly string[])[],
  ): string;
}

/** One breakdown's rows of some campaign days. */
export interface SplitStatement {
  readonly source: FactSourceDefinition;
  /** The profiles of the source (every platform that reports it); at least one. */
  readonly profiles: readonly BreakdownProfile[];
  /** The table the rows go to: the source's table, or a staging copy of it. */
  readonly into: string;
  /** Where the campaign days are read: rollup_campaign_daily, or a staging copy of it. */
  readonly from: string;
  /** The condition (in the engine's placeholders) picking the campaign days to split. */
  readonly where: string;
  /**
   * A campaign day's platform: a join of `r` (the campaign days; empty when the caller knows the
   * platform) and the platform type's SQL.
   */
  readonly platform: { readonly join: string; readonly type: string };
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
/** Split by a bucket's own conversion bounds where it has them (attribution windows). */
const CONVERSION_MEASURES = new Set(['conversions', 'conversion_value']);

/**
 * The INSERT of the breakdown rows of the campaign days `where` picks: each campaign day (and
 * device and network, where the breakdown keeps them) split into the buckets of its platform's
 * variant, every additive figure cut into exact integer parts (money in micros) that sum to it;
 * rows with nothing in them are left out.
 */
export function breakdownSplitSql(spelling: SplitSpelling, statement: SplitStatement): string {
  const { source, profiles } = statement;
  if (profiles.length === 0) throw new Error(`no breakdown profile of ${source.name}`);
  const carried = source.grain.filter((c) => CARRIED.includes(c));
  const buckets = source.grain.filter((c) => !CAMPAIGN_DAY.includes(c) && !carried.includes(c));
  const keys = [...CAMPAIGN_DAY, ...carried];
  const measures = ROLLUP_MEASURES.map((m) => ({
    column: m,
    split: source.measures.includes(MEASURE_OF[m])
      ? part(spelling, m, CONVERSION_MEASURES.has(m) ? 'conversions' : 'share')
      : '0',
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
        : `(r.campaign_id + ${spelling.epochDay('r.day')})`;
  const weights = spelling.constantTable(
    'w',
    [
      ['platform', 'text'],
      ['variant', 'integer'],
      ...buckets.map((c) => [c, bucketType(profiles, c)] as const),
      ['share_from', 'integer'],
      ['share_to', 'integer'],
      ['conversions_from', 'integer'],
      ['conversions_to', 'integer'],
    ],
    weightRows(spelling, profiles, buckets),
  );
  return `INSERT INTO ${statement.into} (${[...keys, ...buckets, ...ROLLUP_MEASURES.map(quote)].join(', ')})
    SELECT * FROM (
      SELECT ${keys.map((c) => `r.${c}`).join(', ')}, ${buckets.map((c) => `w.${c}`).join(', ')},
             ${measures.map((m) => `${m.split} AS ${quote(m.column)}`).join(', ')}
        FROM (${campaignDays(statement, keys)}) r
        ${statement.platform.join}
        JOIN ${weights}
          ON w.platform = ${statement.platform.type} AND w.variant = ${variant} % ${variants}
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
function campaignDays(statement: SplitStatement, keys: readonly FactColumn[]): string {
  if (ROLLUP_GRAIN.every((c) => keys.includes(c))) return `SELECT * FROM ${statement.from} WHERE ${statement.where}`;
  const sums = ROLLUP_MEASURES.map(
    (m) => `CAST(sum(${quote(m)}) AS ${DECIMAL_MEASURES.has(m) ? 'DECIMAL(18,6)' : 'BIGINT'}) AS ${quote(m)}`,
  );
  return `SELECT ${keys.join(', ')}, ${sums.join(', ')} FROM ${statement.from} WHERE ${statement.where} GROUP BY ALL`;
}

/**
 * One measure's part of the bucket [lower, upper) of P = SHARE_PARTS (the bucket's share bounds, or
 * for conversions its conversion bounds, which may pass P: conversions beyond the daily rows'), money and decimals in micros:
 * floor(x * upper / P) - floor(x * lower / P), computed as q * (upper - lower) + floor(r * upper
 * / P) - floor(r * lower / P) with x = q * P + r, so nothing exceeds x and 64 bits suffice.
 */
function part(spelling: SplitSpelling, measure: string, bounds: 'share' | 'conversions'): string {
  const x = DECIMAL_MEASURES.has(measure) ? spelling.micros(`r.${quote(measure)}`) : `r.${quote(measure)}`;
  const [from, to] = [`w.${bounds}_from`, `w.${bounds}_to`];
  const [q, rest] = [`(${spelling.integerDivide(x, String(SHARE_PARTS))})`, `(${x} % ${SHARE_PARTS})`];
  const upper = spelling.integerDivide(`${rest} * ${to}`, String(SHARE_PARTS));
  const lower = spelling.integerDivide(`${rest} * ${from}`, String(SHARE_PARTS));
  const cut = `(${q} * (${to} - ${from}) + ${upper} - ${lower})`;
  return DECIMAL_MEASURES.has(measure) ? spelling.fromMicros(cut) : cut;
}

function bucketType(profiles: readonly BreakdownProfile[], column: FactColumn): 'integer' | 'text' {
  return typeof profiles[0]!.variants[0]![0]!.values[column] === 'number' ? 'integer' : 'text';
}

/** The profiles' buckets as rows: platform, variant, bucket values, cumulative share bounds. */
function weightRows(
  spelling: SplitSpelling,
  profiles: readonly BreakdownProfile[],
  columns: readonly FactColumn[],
): string[][] {
  const rows: string[][] = [];
  for (const profile of profiles)
    for (const platform of profile.platforms)
      profile.variants.forEach((buckets, v) => {
        let lower = 0;
        for (const bucket of buckets) {
          const values = columns.map((c) => literal(spelling, bucket.values[c]!));
          // Conversions split as the rest unless the bucket says otherwise (attribution windows).
          const conversions = bucket.conversions ?? { from: lower, to: lower + bucket.share };
          rows.push([
            spelling.literal(platform),
            String(v),
            ...values,
            String(lower),
            String(lower + bucket.share),
            String(conversions.from),
            String(conversions.to),
          ]);
          lower += bucket.share;
        }
      });
  return rows;
}

/** Our own constants (bucket names of the profiles), never request text. */
function literal(spelling: SplitSpelling, value: string | number): string {
  return typeof value === 'number' ? String(value) : spelling.literal(value);
}

/** Quoted: DuckDB 1.5 reads a bare `cost` as a keyword in some positions (ClickHouse takes the quotes too). */
function quote(column: string): string {
  return `"${column}"`;
}

/** DuckDB's spelling of the split (the embedded writer, ./breakdowns.ts). */
export const DUCKDB_SPLIT: SplitSpelling = {
  integerDivide: (left, right) => `${left} // ${right}`,
  epochDay: (day) => `(${day} - DATE '1970-01-01')`,
  micros: (decimal) => `CAST(${decimal} * 1000000 AS BIGINT)`,
  fromMicros: (micros) => `CAST(CAST(${micros} AS DECIMAL(18,0)) * 0.000001 AS DECIMAL(18,6))`,
  literal: (text) => `'${text.replaceAll("'", "''")}'`,
  constantTable: (alias, columns, rows) =>
    `(VALUES ${rows.map((row) => `(${row.join(', ')})`).join(', ')}) ${alias}(${columns.map(([name]) => name).join(', ')})`,
};

/** DuckDB: a campaign day's platform from its platform account. */
export const DUCKDB_SPLIT_PLATFORM = {
  join: 'JOIN adplatform_accounts p ON p.id = r.adplatform_account_id',
  type: 'p.ad_platform_type',
} as const;
