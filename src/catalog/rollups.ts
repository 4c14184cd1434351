/**
 * Rollups of fact_ad_daily (DESIGN D10, README "Aggregate navigation"): the additive measures
 * summed over the columns a rollup leaves out. The compiler reads a rollup instead of the facts
 * when every column a plan touches is one of its grain (src/sql/fact-source.ts); the writers keep
 * them equal to GROUP BY over the facts in the transaction of every fact write
 * (src/statistics/rollups.ts). Migration 010 made the tables; a new grain is a new migration and
 * an entry here (src/sql/README.md, "How to add a rollup").
 *
 * Reach (runs), impression share and call details are not additive over these grains, or have
 * tables of their own already, and keep being read from them.
 */

import type { FactColumn } from './fact-columns.js';

export type { FactColumn } from './fact-columns.js';

/** The additive measure columns, as fact_ad_daily and every rollup name them. */
export const ROLLUP_MEASURES = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversion_value',
  'calls',
  'call_conversions',
  'call_conversions_fractional',
] as const;

export interface RollupDefinition {
  readonly table: string;
  /** The grain: one row per distinct value of these columns (with any activity). */
  readonly grain: readonly FactColumn[];
  /** What it is summed from: the facts or a finer rollup (whose grain includes this one). */
  readonly source: string;
}

/**
 * In the order they are written: a rollup's source comes before it. Rows at scale 10 (3.93 M
 * fact_ad_daily rows): campaign 411 k (9.6x fewer), platform account 86 k (46x). An ad group
 * grain was measured and left out: 1.55 M rows (2.5x fewer) made ad group reports no faster.
 */
export const ROLLUPS: readonly RollupDefinition[] = [
  {
    table: 'rollup_campaign_daily',
    grain: ['organization_id', 'day', 'adplatform_account_id', 'campaign_id', 'device', 'network'],
    source: 'fact_ad_daily',
  },
  {
    table: 'rollup_platform_account_daily',
    grain: ['organization_id', 'day', 'adplatform_account_id', 'device', 'network'],
    source: 'rollup_campaign_daily',
  },
];
