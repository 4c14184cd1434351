import type { Migration } from './migration.js';

/**
 * Search term facts (issue 40 item 5, src/catalog/search-terms.ts): the keyword's daily rows split
 * exactly into the search terms that matched it, per device and network, written with the rollups
 * (src/statistics/search-terms.ts) and kept for SEARCH_TERM_RETENTION_DAYS (90) days. Measures as
 * in the rollups. `search_term_id` is `keyword_id * 4 + slot`; the terms themselves are no table
 * (the level's entity SELECT derives them from the keywords). No backfill, as with migration 019:
 * the days of an existing database get their search terms when they are synced or generated again.
 */
export const m020SearchTerms: Migration = {
  version: 20,
  name: 'search term facts',
  statements: [
    `CREATE TABLE fact_search_term_daily (
       organization_id BIGINT NOT NULL,
       day DATE NOT NULL,
       adplatform_account_id BIGINT NOT NULL,
       campaign_id BIGINT NOT NULL,
       ad_group_id BIGINT NOT NULL,
       keyword_id BIGINT NOT NULL,
       search_term_id BIGINT NOT NULL,
       device device_type NOT NULL,
       network network_type NOT NULL,
       impressions BIGINT NOT NULL,
       clicks BIGINT NOT NULL,
       cost DECIMAL(18,6) NOT NULL,
       conversions DECIMAL(18,6) NOT NULL,
       conversion_value DECIMAL(18,6) NOT NULL,
       calls BIGINT NOT NULL,
       call_conversions BIGINT NOT NULL,
       call_conversions_fractional DECIMAL(18,6) NOT NULL
     )`,
  ],
};
