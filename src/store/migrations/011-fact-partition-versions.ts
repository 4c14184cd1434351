import type { Migration } from './migration.js';

/**
 * A version per (organization, month) of the facts (issue 22): every fact write bumps the months
 * it touched in its own transaction (src/statistics/fact-partition-versions.ts), so the ClickHouse
 * replicator knows exactly which partitions differ from what it copied, across restarts and
 * crashes, without reading the facts. Versions come from one sequence: a partition's version only
 * grows, and a number is never reused for different rows. No key (an upsert on a key in a long
 * transaction trips DuckDB's eager constraint checks); the writer updates, then inserts the months
 * that had no row. The backfill gives every month that has facts today its first version.
 */
export const m011FactPartitionVersions: Migration = {
  version: 11,
  name: 'a version per organization and month of the facts, for replication',
  statements: [
    `CREATE SEQUENCE fact_partition_version_seq START 1`,
    `CREATE TABLE fact_partition_versions (
       organization_id BIGINT NOT NULL,
       month DATE NOT NULL,
       version BIGINT NOT NULL
     )`,
    `INSERT INTO fact_partition_versions
     SELECT organization_id, month, nextval('fact_partition_version_seq')
       FROM (SELECT DISTINCT organization_id, date_trunc('month', day)::DATE AS month
               FROM (SELECT organization_id, day FROM rollup_platform_account_daily
                     UNION ALL SELECT organization_id, day FROM fact_keyword_daily
                     UNION ALL SELECT organization_id, day FROM fact_impression_share_daily
                     UNION ALL SELECT organization_id, day FROM fact_audience_runs
                     UNION ALL SELECT organization_id, day FROM call_details)
              ORDER BY organization_id, month)`,
  ],
};
