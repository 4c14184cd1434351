import { ROLLUPS, ROLLUP_MEASURES, type RollupDefinition } from '../catalog/rollups.js';
import type { Executor } from '../store/database.js';
import { rewriteBreakdowns } from './breakdowns.js';
import { rewriteSearchTerms } from './search-terms.js';
import type { SqlValue } from '../store/sql-values.js';

/** Fact rows just written: one organization's days, optionally of one platform account and some campaigns. */
export interface RollupScope {
  readonly organizationId: number;
  /** Inclusive, YYYY-MM-DD. */
  readonly from: string;
  readonly to: string;
  /** Undefined: every platform account of the organization. */
  readonly adPlatformAccountId?: number | undefined;
  /** Our campaign ids; undefined: every campaign. */
  readonly campaignIds?: readonly number[] | undefined;
  /** The first day whose hourly breakdown is kept (./breakdowns.ts). */
  readonly hoursFrom: string;
}

/**
 * Rewrites every rollup row the scope's facts sum into, from the facts (or the finer rollup it
 * is built from), in the caller's transaction, after the facts were written: so each rollup stays
 * equal to GROUP BY over fact_ad_daily, whatever the write did (insert, replace, restate). A
 * rollup without campaign_id is rewritten for the whole platform account and days: its rows sum
 * campaigns outside the scope too, which its source still holds unchanged. Then the breakdowns
 * of the scope's campaign days, split from the campaign rollup, and the search terms of its
 * keyword days, split from the keyword facts.
 */
export async function rewriteRollups(tx: Executor, scope: RollupScope): Promise<void> {
  for (const rollup of ROLLUPS) {
    const { where, params } = scopeOf(rollup, scope);
    await tx.run(`DELETE FROM ${rollup.table} WHERE ${where}`, params);
    const grain = rollup.grain.join(', ');
    await tx.run(
      `INSERT INTO ${rollup.table} (${grain}, ${MEASURES.join(', ')})
       SELECT ${grain}, ${MEASURES.map((m) => `sum(${m})`).join(', ')}
         FROM ${rollup.source} WHERE ${where}
        GROUP BY ${grain} ORDER BY ${grain}`,
      params,
    );
  }
  // The breakdowns are split from the campaign rollup just written.
  await rewriteBreakdowns(tx, scope);
  // The search terms are split from the keyword facts the same write left (./search-terms.ts).
  await rewriteSearchTerms(tx, scope);
}

/** Quoted: DuckDB 1.5 reads a bare `cost` as a keyword in some positions. */
const MEASURES = ROLLUP_MEASURES.map((m) => `"${m}"`);

function scopeOf(rollup: RollupDefinition, scope: RollupScope): { where: string; params: SqlValue[] } {
  const params: SqlValue[] = [scope.organizationId, scope.from, scope.to];
  const where = ['organization_id = $1', 'day BETWEEN $2::DATE AND $3::DATE'];
  if (scope.adPlatformAccountId !== undefined) {
    params.push(scope.adPlatformAccountId);
    where.push(`adplatform_account_id = $${params.length}`);
  }
  if (scope.campaignIds !== undefined && rollup.grain.includes('campaign_id')) {
    params.push(scope.campaignIds.map(String));
    where.push(`campaign_id IN (SELECT unnest($${params.length}::VARCHAR[])::BIGINT)`);
  }
  return { where: where.join(' AND '), params };
}
