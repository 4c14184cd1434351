import type { Migration } from './migration.js';

/**
 * Rollups of fact_ad_daily (issue 21, DESIGN D10): its additive measures summed per campaign and
 * per ad platform account, each per day, device and network. Reports of accounts, platform
 * accounts and campaigns read them instead of the facts (src/sql/fact-source.ts): 9.6x and 46x
 * fewer rows at scale 10. Every fact write rewrites the rollup rows of its scope in the same
 * transaction (src/statistics/rollups.ts), so they are never stale.
 *
 * Counts are BIGINT (a sum of INTEGER rows may pass 2^31); money and decimals stay DECIMAL(18,6),
 * as in the facts: exact, 64-bit (summing them was ~20 % faster than DECIMAL(38,6) on a month of
 * campaigns), and 10^12 currency units per campaign or account, day, device and network, the same
 * order as the platforms' int64 micros; a sum beyond it fails the write, never stores a wrong one.
 * Rows are written in (organization, day) order, like the facts, so zone maps skip the rest.
 */
const measures = `
       impressions BIGINT NOT NULL,
       clicks BIGINT NOT NULL,
       cost DECIMAL(18,6) NOT NULL,
       conversions DECIMAL(18,6) NOT NULL,
       conversion_value DECIMAL(18,6) NOT NULL,
       calls BIGINT NOT NULL,
       call_conversions BIGINT NOT NULL,
       call_conversions_fractional DECIMAL(18,6) NOT NULL`;
const sums = `sum(impressions), sum(clicks), sum("cost"), sum(conversions), sum(conversion_value),
       sum(calls), sum(call_conversions), sum(call_conversions_fractional)`;

export const m010Rollups: Migration = {
  version: 10,
  name: 'rollups of fact_ad_daily per campaign and per platform account, day, device, network',
  statements: [
    `CREATE TABLE rollup_campaign_daily (
       organization_id BIGINT NOT NULL,
       day DATE NOT NULL,
       adplatform_account_id BIGINT NOT NULL,
       campaign_id BIGINT NOT NULL,
       device device_type NOT NULL,
       network network_type NOT NULL,${measures}
     )`,
    `CREATE TABLE rollup_platform_account_daily (
       organization_id BIGINT NOT NULL,
       day DATE NOT NULL,
       adplatform_account_id BIGINT NOT NULL,
       device device_type NOT NULL,
       network network_type NOT NULL,${measures}
     )`,
    // The backfill: once, at the upgrade (scale 10, 3.9 M fact rows: see README "Aggregate navigation").
    `INSERT INTO rollup_campaign_daily
     SELECT organization_id, day, adplatform_account_id, campaign_id, device, network, ${sums}
       FROM fact_ad_daily GROUP BY ALL ORDER BY organization_id, day, adplatform_account_id, campaign_id`,
    `INSERT INTO rollup_platform_account_daily
     SELECT organization_id, day, adplatform_account_id, device, network, ${sums}
       FROM rollup_campaign_daily GROUP BY ALL ORDER BY organization_id, day, adplatform_account_id`,
  ],
};
