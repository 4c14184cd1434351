import type { Migration } from './migration.js';

/**
 * Issue 36 item 12: the report-file quota was checked against stored files only, so a burst of
 * POSTs, all admitted while nothing was stored yet, ended at twice the quota. A job now keeps the
 * size it was estimated at when created; queued and running jobs count with it. NULL for jobs
 * created before (they count as 0, as they did).
 */
export const m017ReportJobEstimates: Migration = {
  version: 17,
  name: 'report job size estimates',
  statements: [`ALTER TABLE report_jobs ADD COLUMN estimated_bytes BIGINT`],
};
