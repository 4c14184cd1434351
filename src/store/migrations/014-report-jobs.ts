import type { Migration } from './migration.js';

/**
 * Report jobs (issue 24): an export of a reporting endpoint written to a file under the data
 * directory and downloaded later. The row is the truth: a file is served only while its job is
 * SUCCEEDED, and `sha256` / `bytes` describe the file as it was renamed into place.
 */
export const m014ReportJobs: Migration = {
  version: 14,
  name: 'report-jobs',
  statements: [
    `CREATE SEQUENCE report_job_id_seq START 1`,
    `CREATE TABLE report_jobs (
       id BIGINT PRIMARY KEY DEFAULT nextval('report_job_id_seq'),
       organization_id BIGINT NOT NULL,
       endpoint VARCHAR NOT NULL,
       query VARCHAR NOT NULL,
       format VARCHAR NOT NULL,
       status VARCHAR NOT NULL,
       start_date VARCHAR NOT NULL,
       end_date VARCHAR NOT NULL,
       row_count BIGINT,
       byte_count BIGINT,
       sha256 VARCHAR,
       warnings VARCHAR NOT NULL DEFAULT '[]',
       error VARCHAR,
       attempts INTEGER NOT NULL DEFAULT 0,
       created_at TIMESTAMPTZ NOT NULL,
       started_at TIMESTAMPTZ,
       finished_at TIMESTAMPTZ,
       expires_at TIMESTAMPTZ NOT NULL,
       next_attempt_at TIMESTAMPTZ NOT NULL,
       idempotency_key VARCHAR,
       request_fingerprint VARCHAR
     )`,
    `CREATE INDEX report_jobs_organization_idx ON report_jobs (organization_id, id)`,
  ],
};
