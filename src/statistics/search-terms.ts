import { HOURLY_RETENTION_DAYS, SEARCH_TERM_RETENTION_DAYS } from '../catalog/fact-sources.js';
import { ROLLUP_MEASURES } from '../catalog/rollups.js';
import { SEARCH_TERM_SLOTS } from '../catalog/search-terms.js';
import { SHARE_PARTS } from '../platforms/breakdown-profiles.js';
import { addDays } from '../shared/dates.js';
import type { Executor } from '../store/database.js';
import { DUCKDB_SPLIT, type SplitSpelling } from './breakdown-split.js';
import { scopeOf, type BreakdownScope } from './breakdowns.js';
import { dropExpiredRows } from './fact-partition-versions.js';

/** Keyword days just written (fact_keyword_daily holds them; the rollups were rewritten for them): the breakdowns' scope. */
export type SearchTermScope = BreakdownScope;

/**
 * The first day whose search terms a write keeps: SEARCH_TERM_RETENTION_DAYS before the same
 * reference day as `hoursFrom`, so a sync keeps today - 90 days on, as the planner counts it
 * (src/planner/source-check.ts refuses a range that starts earlier with 400 outside_retention).
 */
export function searchTermsFrom(hoursFrom: string): string {
  return addDays(hoursFrom, HOURLY_RETENTION_DAYS - SEARCH_TERM_RETENTION_DAYS);
}

/**
 * How the sandbox's keyword traffic splits into the keyword's search terms
 * (../catalog/search-terms.ts): for a keyword with n terms, the shares of its day in parts of
 * SHARE_PARTS, slot 0 (the keyword's own text) first. Two mixes per n, taken by (keyword id + days
 * since 1970-01-01) % 2, so the mix of terms shifts from day to day as real queries do.
 */
export const SEARCH_TERM_MIXES: readonly (readonly (readonly number[])[])[] = [
  [[10_000], [10_000]],
  [
    [7_200, 2_800],
    [6_400, 3_600],
  ],
  [
    [5_500, 2_700, 1_800],
    [6_100, 2_100, 1_800],
  ],
  [
    [4_600, 2_400, 1_700, 1_300],
    [5_200, 1_900, 1_800, 1_100],
  ],
];
const MIX_COUNT = 2;
if (
  SEARCH_TERM_MIXES.length !== SEARCH_TERM_SLOTS ||
  SEARCH_TERM_MIXES.some(
    (mixes, i) =>
      mixes.length !== MIX_COUNT ||
      mixes.some((shares) => shares.length !== i + 1 || shares.reduce((a, b) => a + b, 0) !== SHARE_PARTS),
  )
)
  throw new Error(
    `SEARCH_TERM_MIXES: per term count n (1..${SEARCH_TERM_SLOTS}), ${MIX_COUNT} mixes of n shares summing to ${SHARE_PARTS}`,
  );

const KEYS = [
  'organization_id',
  'day',
  'adplatform_account_id',
  'campaign_id',
  'ad_group_id',
  'keyword_id',
  'search_term_id',
  'device',
  'network',
];
const DECIMAL_MEASURES = new Set(['cost', 'conversions', 'conversion_value', 'call_conversions_fractional']);

/**
 * Rewrites fact_search_term_daily for the scope's keyword days, in the caller's transaction, after
 * the keyword facts were written: deletes every row of the scope, and the organization's rows
 * before the retention, then splits each fact_keyword_daily row (day, keyword, device, network)
 * of the scope from `searchTermsFrom` on into the keyword's terms. Every additive figure is cut
 * into exact integer parts as the breakdowns are (./breakdowns.ts; money in micros): part i =
 * floor(x * upper_i / P) - floor(x * lower_i / P) over the cumulative shares, which telescopes
 * to x, so a keyword's terms sum exactly to its row. Rows whose parts are all 0 are left out.
 * The same scope written twice leaves the same rows (never doubled).
 *
 * Like the breakdowns, the sandbox reports its search terms by this split of its own keyword rows,
 * so the sync and the generator derive them here; a real platform's connector would deliver the
 * search term report's rows instead (not built: the connector interface has no search terms yet).
 */
export async function rewriteSearchTerms(tx: Executor, scope: SearchTermScope): Promise<void> {
  const keptFrom = searchTermsFrom(scope.hoursFrom);
  const { where, params } = scopeOf(scope);
  await tx.run(`DELETE FROM fact_search_term_daily WHERE ${where}`, params);
  await dropExpiredRows(tx, 'fact_search_term_daily', scope.organizationId, keptFrom);
  if (scope.to < keptFrom) return;
  const kept = `${where} AND day >= $${params.push(keptFrom)}::DATE`;
  await tx.run(
    searchTermSplitSql(DUCKDB_SPLIT, { into: 'fact_search_term_daily', from: 'fact_keyword_daily', where: kept }),
    params,
  );
}

/**
 * The INSERT of the search term rows of the keyword days `where` picks in `from`
 * (fact_keyword_daily, or a staging copy of it) into `into`, in an engine's spelling
 * (./breakdown-split.ts): DuckDB's here, ClickHouse's in the facts deployment's partition writer.
 */
export function searchTermSplitSql(
  spelling: SplitSpelling,
  statement: { readonly into: string; readonly from: string; readonly where: string },
): string {
  const slot = 'r.keyword_id % ' + SEARCH_TERM_SLOTS;
  const mixes = spelling.constantTable(
    'w',
    [
      ['last_slot', 'integer'],
      ['mix', 'integer'],
      ['slot', 'integer'],
      ['share_from', 'integer'],
      ['share_to', 'integer'],
    ],
    mixRows(),
  );
  return `INSERT INTO ${statement.into} (${[...KEYS, ...ROLLUP_MEASURES.map(quote)].join(', ')})
    SELECT * FROM (
      SELECT r.organization_id, r.day, r.adplatform_account_id, r.campaign_id, r.ad_group_id, r.keyword_id,
             r.keyword_id * ${SEARCH_TERM_SLOTS} + w.slot AS search_term_id, r.device, r.network,
             ${ROLLUP_MEASURES.map((m) => `${part(spelling, m)} AS ${quote(m)}`).join(', ')}
        FROM (SELECT * FROM ${statement.from} WHERE ${statement.where}) r
        JOIN ${mixes}
          ON w.last_slot = ${slot} AND w.mix = (r.keyword_id + ${spelling.epochDay('r.day')}) % ${MIX_COUNT}
    ) s
    WHERE ${ROLLUP_MEASURES.map((m) => `s.${quote(m)} <> 0`).join(' OR ')}
    ORDER BY ${KEYS.join(', ')}`;
}

/**
 * One measure's part of the slot [share_from, share_to) of P = SHARE_PARTS, money and decimals in
 * micros: q * (share_to - share_from) + floor(rest * share_to / P) - floor(rest * share_from / P)
 * with x = q * P + rest, which is floor(x * share_to / P) - floor(x * share_from / P) in 64 bits.
 */
function part(spelling: SplitSpelling, measure: string): string {
  const x = DECIMAL_MEASURES.has(measure)
    ? spelling.micros(`r.${quote(measure)}`)
    : `CAST(r.${quote(measure)} AS BIGINT)`;
  const [q, rest] = [`(${spelling.integerDivide(x, String(SHARE_PARTS))})`, `(${x} % ${SHARE_PARTS})`];
  const upper = spelling.integerDivide(`${rest} * w.share_to`, String(SHARE_PARTS));
  const lower = spelling.integerDivide(`${rest} * w.share_from`, String(SHARE_PARTS));
  const cut = `(${q} * (w.share_to - w.share_from) + ${upper} - ${lower})`;
  return DECIMAL_MEASURES.has(measure) ? spelling.fromMicros(cut) : cut;
}

/** (last slot = term count - 1, mix, slot, cumulative share bounds) of every mix. */
function mixRows(): string[][] {
  const rows: string[][] = [];
  SEARCH_TERM_MIXES.forEach((mixes, lastSlot) =>
    mixes.forEach((shares, mix) => {
      let lower = 0;
      shares.forEach((share, slot) => {
        rows.push([lastSlot, mix, slot, lower, lower + share].map(String));
        lower += share;
      });
    }),
  );
  return rows;
}

/** Quoted: DuckDB 1.5 reads a bare `cost` as a keyword in some positions. */
function quote(column: string): string {
  return `"${column}"`;
}
