import { BREAKDOWN_SOURCES } from '../../catalog/fact-sources.js';
import { BREAKDOWN_PROFILES } from '../../platforms/breakdown-profiles.js';
import type { AdPlatformType } from '../../shared/ad-platforms.js';
import { breakdownSplitSql, type SplitSpelling } from '../../statistics/breakdown-split.js';
import { searchTermSplitSql, searchTermsFrom } from '../../statistics/search-terms.js';
import type { ClickHouseParams } from '../clickhouse-connection.js';

/**
 * The tables a fact write splits from what it wrote, in ClickHouse as the embedded writer splits
 * them in DuckDB (the same statements, ../../statistics/breakdown-split.ts and
 * ../../statistics/search-terms.ts, in ClickHouse's spelling): the breakdowns of issue 40 from
 * the campaign rollup, the search terms from the keyword facts. Each is staged a month at a time
 * by the partition writer (./partition-writer.ts): the old rows outside the write, then the
 * written days split again; rows before a table's retention go, in every month.
 */

/** ClickHouse's spelling of the split, giving DuckDB's values. */
export const CLICKHOUSE_SPLIT: SplitSpelling = {
  // Truncated toward zero, as DuckDB's `//`.
  integerDivide: (left, right) => `intDiv(${left}, ${right})`,
  // A Date32's number is its days since 1970-01-01 (negative before).
  epochDay: (day) => `toInt64(${day})`,
  // Decimal(18, 6) x 10^6 stays Decimal(18, 6) and overflows from 9.2 M on: in 38 digits first.
  micros: (decimal) => `toInt64(CAST(${decimal} AS Decimal(38, 6)) * 1000000)`,
  // Decimal(18, 0) x Decimal(9, 6) = Decimal(18, 6): exact, no float on the way.
  fromMicros: (micros) => `CAST(CAST(${micros} AS Decimal(18, 0)) * toDecimal32('0.000001', 6) AS Decimal(18, 6))`,
  literal: (text) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`,
  constantTable: (alias, columns, rows) => {
    const structure = columns.map(([name, type]) => `${name} ${type === 'integer' ? 'Int64' : 'String'}`).join(', ');
    return `values('${structure}', ${rows.map((row) => `(${row.join(', ')})`).join(', ')}) AS ${alias}`;
  },
};

/**
 * The days one fact write replaces (one platform account, its campaigns in scope, some days),
 * whose split tables are split again from the rewritten rollup and keyword facts.
 */
export interface SplitScope {
  /** A condition over a row's campaign day: in the write. Values only through `params`. */
  readonly written: string;
  readonly params: ClickHouseParams;
  /** The platform of the written platform account. */
  readonly platform: AdPlatformType;
  /** YYYY-MM-DD: the first day whose hours are kept (search terms: searchTermsFrom of it); older rows of the organization go. */
  readonly hoursFrom: string;
}

export const SEARCH_TERMS_TABLE = 'fact_search_term_daily';

/** The split tables with a retention, and the condition on the rows they keep (parameters of `splitParams`). */
const RETAINED: ReadonlyMap<string, string> = new Map([
  ...BREAKDOWN_SOURCES.filter((s) => s.retentionDays !== undefined).map(
    (s) => [s.table, 'day >= {hoursFrom:Date32}'] as const,
  ),
  [SEARCH_TERMS_TABLE, 'day >= {searchTermsFrom:Date32}'],
]);

/** Every breakdown table, in BREAKDOWN_SOURCES order. */
export const BREAKDOWN_TABLES: readonly string[] = BREAKDOWN_SOURCES.map((s) => s.table);

/** The condition on the rows `table` keeps: its retention, or none. */
export function kept(table: string): string {
  return RETAINED.get(table) ?? 'true';
}

/** The retained ones among `tables`. */
export function retained(tables: readonly string[]): string[] {
  return tables.filter((t) => RETAINED.has(t));
}

/** The scope's values and this module's (their names must not clash). */
export function splitParams(scope: SplitScope): ClickHouseParams {
  return {
    ...scope.params,
    breakdownPlatform: scope.platform,
    hoursFrom: scope.hoursFrom,
    searchTermsFrom: searchTermsFrom(scope.hoursFrom),
  };
}

/** Names of one month's tables: a split table's local and staging tables, and the staged facts it is split from. */
export interface StagingNames {
  readonly local: string;
  readonly staging: string;
  /** The staging table the written days are split from. */
  readonly source: string;
}

/** The old rows of the month outside the write that stay. */
function oldRows(table: string, scope: SplitScope, names: StagingNames, inPartition: string): string {
  return `INSERT INTO ${names.staging} SELECT * FROM ${names.local}
      WHERE ${inPartition} AND NOT (${scope.written}) AND ${kept(table)}`;
}

/**
 * A breakdown's staging partition for one month: the old rows outside the write, then the
 * written campaign days split from the staged campaign rollup (`names.source`). All run with
 * `splitParams(scope)` and the partition's parameters of `inPartition`.
 */
export function stageBreakdown(table: string, scope: SplitScope, names: StagingNames, inPartition: string): string[] {
  const source = BREAKDOWN_SOURCES.find((s) => s.table === table)!;
  // The written platform's buckets only: the rows of the other platforms would join nothing.
  const profiles = BREAKDOWN_PROFILES.filter(
    (p) => p.source === source.name && p.platforms.includes(scope.platform),
  ).map((p) => ({ ...p, platforms: [scope.platform] }));
  if (profiles.length === 0) return [oldRows(table, scope, names, inPartition)];
  return [
    oldRows(table, scope, names, inPartition),
    breakdownSplitSql(CLICKHOUSE_SPLIT, {
      source,
      profiles,
      into: names.staging,
      from: names.source,
      where: `${inPartition} AND (${scope.written}) AND ${kept(table)}`,
      platform: { join: '', type: '{breakdownPlatform:String}' },
    }),
  ];
}

/** The search terms' staging partition for one month: old rows, then the written keyword days split from the staged keyword facts. */
export function stageSearchTerms(scope: SplitScope, names: StagingNames, inPartition: string): string[] {
  return [
    oldRows(SEARCH_TERMS_TABLE, scope, names, inPartition),
    searchTermSplitSql(CLICKHOUSE_SPLIT, {
      into: names.staging,
      from: names.source,
      where: `${inPartition} AND (${scope.written}) AND ${kept(SEARCH_TERMS_TABLE)}`,
    }),
  ];
}
