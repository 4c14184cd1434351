/**
 * What every rollup table must equal, written here independently of src/: GROUP BY over
 * fact_ad_daily at the table's grain (issue 21). One statement; per table the rows that differ in
 * either direction (EXCEPT ALL both ways) and the rows it holds.
 */
export const ROLLUP_GRAINS: Readonly<Record<string, string>> = {
  rollup_campaign_daily: 'organization_id, day, adplatform_account_id, campaign_id, device, network',
  rollup_platform_account_daily: 'organization_id, day, adplatform_account_id, device, network',
};

const MEASURES = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversion_value',
  'calls',
  'call_conversions',
  'call_conversions_fractional',
];

export interface RollupCheck {
  t: string;
  /** Rows in one and not the other (0 when equal). */
  mismatched: number;
  rows: number;
}

export function rollupCheckSql(): string {
  return Object.entries(ROLLUP_GRAINS)
    .map(([table, grain]) => {
      const facts = `SELECT ${grain}, ${MEASURES.map((m) => `sum("${m}")::DECIMAL(38,6) AS "${m}"`).join(', ')} FROM fact_ad_daily GROUP BY ${grain}`;
      const rollup = `SELECT ${grain}, ${MEASURES.map((m) => `"${m}"::DECIMAL(38,6) AS "${m}"`).join(', ')} FROM ${table}`;
      return `SELECT '${table}' AS t,
                ((SELECT count(*) FROM ((${facts}) EXCEPT ALL (${rollup})))
                  + (SELECT count(*) FROM ((${rollup}) EXCEPT ALL (${facts}))))::INTEGER AS mismatched,
                (SELECT count(*) FROM ${table})::INTEGER AS rows`;
    })
    .join(' UNION ALL ');
}
