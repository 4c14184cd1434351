import type { Migration } from './migration.js';

/**
 * Issue 36 item 12: the report-file quota was checked against stored files only, so a burst of
 * POSTs, all admitted while nothing was stored yet, ended at twice the quota. A job now keeps the
 * size it was estimated at when created; queued and running jobs count with it. Jobs created
 * before have none (they count as 0, as they did).
 *
 * A table of its own, not a column of report_jobs: DuckDB 1.5 cannot replay from its WAL an
 * ALTER TABLE ... ADD COLUMN on a table whose key defaults to nextval() ("GetDefaultDatabase with
 * no default database set", fatal at the next start), so a crash before the next checkpoint left
 * a database no release could open (test/cli/crash-recovery.test.ts found it).
 */
export const m017ReportJobEstimates: Migration = {
  version: 17,
  name: 'report job size estimates',
  statements: [
    `CREATE TABLE report_job_estimates (
       report_job_id BIGINT PRIMARY KEY,
       estimated_bytes BIGINT NOT NULL
     )`,
  ],
};
