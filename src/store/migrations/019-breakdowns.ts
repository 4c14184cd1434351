import type { Migration } from './migration.js';

/**
 * Breakdown facts (issue 40, src/catalog/fact-sources.ts): a campaign's day split by what the
 * platforms report beside their daily rows. Each table sums exactly to rollup_campaign_daily over
 * its bucket columns; the writers rewrite them with the rollups (src/statistics/breakdowns.ts).
 * Hours keep device and network (Google and Microsoft segment hours by device); the others are
 * per campaign day. Measures as in the rollups; the backfill runs at the next write of each day
 * (existing days get breakdowns when they are synced or generated again).
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
const campaignDay = `
       organization_id BIGINT NOT NULL,
       day DATE NOT NULL,
       adplatform_account_id BIGINT NOT NULL,
       campaign_id BIGINT NOT NULL,`;

export const m019Breakdowns: Migration = {
  version: 19,
  name: 'breakdown facts: hours, audience, placement, geography, conversion actions, attribution windows',
  statements: [
    `CREATE TABLE fact_campaign_hourly (${campaignDay}
       device device_type NOT NULL,
       network network_type NOT NULL,
       hour TINYINT NOT NULL,${measures}
     )`,
    `CREATE TABLE fact_campaign_audience_daily (${campaignDay}
       age VARCHAR NOT NULL,
       gender VARCHAR NOT NULL,${measures}
     )`,
    `CREATE TABLE fact_campaign_placement_daily (${campaignDay}
       publisher_platform VARCHAR NOT NULL,
       platform_position VARCHAR NOT NULL,${measures}
     )`,
    `CREATE TABLE fact_campaign_geo_daily (${campaignDay}
       country VARCHAR NOT NULL,
       region VARCHAR NOT NULL,${measures}
     )`,
    `CREATE TABLE fact_campaign_conversion_action_daily (${campaignDay}
       conversion_action VARCHAR NOT NULL,${measures}
     )`,
    // FACEBOOK: a part 'base' with everything but conversions, then the conversions by attribution window part.
    `CREATE TABLE fact_campaign_attribution_daily (${campaignDay}
       attribution_part VARCHAR NOT NULL,${measures}
     )`,
  ],
};
