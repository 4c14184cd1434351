import { liveLease } from '../store/work-leases.js';
import type { Executor } from '../store/database.js';
import type { SqlValue } from '../store/sql-values.js';

/** What a report job's life goes through; EXPIRED once its seven days are over (its file is gone). */
export const REPORT_JOB_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'EXPIRED'] as const;
export type ReportJobStatus = (typeof REPORT_JOB_STATUSES)[number];

export const REPORT_JOB_FORMATS = ['csv', 'ndjson', 'parquet'] as const;
export type ReportJobFormat = (typeof REPORT_JOB_FORMATS)[number];

/** The GET parameters of the report, as the POST gave them (a repeated parameter as a list). */
export type ReportJobQuery = Readonly<Record<string, string | readonly string[]>>;

export interface ReportJobError {
  readonly code: string;
  readonly message: string;
}

export interface StoredReportJob {
  readonly id: number;
  readonly organizationId: number;
  readonly endpoint: string;
  readonly query: ReportJobQuery;
  readonly format: ReportJobFormat;
  readonly status: ReportJobStatus;
  /** The date range as resolved when the job was created (a preset or the default range included). */
  readonly startDate: string;
  readonly endDate: string;
  readonly rows: number | null;
  readonly bytes: number | null;
  readonly sha256: string | null;
  readonly warnings: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly error: ReportJobError | null;
  readonly attempts: number;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly expiresAt: string;
  readonly idempotencyKey: string | null;
  readonly requestFingerprint: string | null;
}

const ISO = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
const COLUMNS = `id, organization_id AS "organizationId", endpoint, query, format, status,
  start_date AS "startDate", end_date AS "endDate", row_count AS "rows", byte_count AS "bytes", sha256, warnings, error, attempts,
  ${ISO('created_at')} AS "createdAt", ${ISO('started_at')} AS "startedAt", ${ISO('finished_at')} AS "finishedAt",
  ${ISO('expires_at')} AS "expiresAt", idempotency_key AS "idempotencyKey", request_fingerprint AS "requestFingerprint"`;

interface ReportJobRow extends Omit<StoredReportJob, 'query' | 'warnings' | 'error'> {
  readonly query: string;
  readonly warnings: string;
  readonly error: string | null;
}

function fromRow(row: ReportJobRow): StoredReportJob {
  return {
    ...row,
    query: JSON.parse(row.query) as ReportJobQuery,
    warnings: JSON.parse(row.warnings) as StoredReportJob['warnings'],
    error: row.error === null ? null : (JSON.parse(row.error) as ReportJobError),
  };
}

export interface NewReportJob {
  readonly organizationId: number;
  readonly endpoint: string;
  readonly query: ReportJobQuery;
  readonly format: ReportJobFormat;
  readonly startDate: string;
  readonly endDate: string;
  readonly now: Date;
  readonly expiresAt: Date;
  /** The file's size as estimated at creation; counts against the quota while the job is unfinished. */
  readonly estimatedBytes: number;
  readonly idempotencyKey?: string | undefined;
  readonly requestFingerprint?: string | undefined;
}

export async function insertReportJob(tx: Executor, job: NewReportJob): Promise<StoredReportJob> {
  const row = await tx.one<ReportJobRow>(
    `INSERT INTO report_jobs (organization_id, endpoint, query, format, status, start_date, end_date, created_at,
       expires_at, next_attempt_at, idempotency_key, request_fingerprint)
     VALUES ($1, $2, $3, $4, 'QUEUED', $5, $6, $7::TIMESTAMPTZ, $8::TIMESTAMPTZ, $7::TIMESTAMPTZ, $9, $10)
     RETURNING ${COLUMNS}`,
    [
      job.organizationId,
      job.endpoint,
      JSON.stringify(job.query),
      job.format,
      job.startDate,
      job.endDate,
      job.now.toISOString(),
      job.expiresAt.toISOString(),
      job.idempotencyKey ?? null,
      job.requestFingerprint ?? null,
    ],
  );
  await tx.run('INSERT INTO report_job_estimates (report_job_id, estimated_bytes) VALUES ($1, $2)', [
    row!.id,
    job.estimatedBytes,
  ]);
  return fromRow(row!);
}

export async function getReportJob(db: Executor, organizationId: number, id: number) {
  const row = await db.one<ReportJobRow>(`SELECT ${COLUMNS} FROM report_jobs WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ]);
  return row ? fromRow(row) : undefined;
}

export async function findReportJobByIdempotencyKey(db: Executor, organizationId: number, key: string, since: Date) {
  const row = await db.one<ReportJobRow>(
    `SELECT ${COLUMNS} FROM report_jobs WHERE organization_id = $1 AND idempotency_key = $2 AND created_at >= $3::TIMESTAMPTZ
     ORDER BY id DESC LIMIT 1`,
    [organizationId, key, since.toISOString()],
  );
  return row ? fromRow(row) : undefined;
}

/** Jobs created since `since` (the last seven days), by id, with the total over all pages. */
export async function listReportJobs(
  db: Executor,
  organizationId: number,
  filter: { since: Date; status?: ReportJobStatus | undefined },
  page: { limit: number; offset: number },
): Promise<{ total: number; jobs: StoredReportJob[] }> {
  const params: SqlValue[] = [organizationId, filter.since.toISOString()];
  let where = 'organization_id = $1 AND created_at >= $2::TIMESTAMPTZ';
  if (filter.status) {
    params.push(filter.status);
    where += ` AND status = $${params.length}`;
  }
  const total = await db.one<{ n: number }>(`SELECT count(*) AS n FROM report_jobs WHERE ${where}`, params);
  const rows = await db.all<ReportJobRow>(
    `SELECT ${COLUMNS} FROM report_jobs WHERE ${where} ORDER BY id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { total: total?.n ?? 0, jobs: rows.map(fromRow) };
}

/**
 * What counts against an organization's limits: jobs not yet ended, bytes of files kept, and the
 * estimated bytes of the jobs not yet ended (reserved: their files are coming).
 */
export async function organizationUsage(
  db: Executor,
  organizationId: number,
  now: Date,
): Promise<{ unfinished: number; storedBytes: number; reservedBytes: number }> {
  const row = await db.one<{ unfinished: number; storedBytes: number; reservedBytes: number }>(
    `SELECT count(*) FILTER (WHERE status IN ('QUEUED', 'RUNNING'))::BIGINT AS unfinished,
            coalesce(sum(byte_count) FILTER (WHERE status = 'SUCCEEDED' AND expires_at > $2::TIMESTAMPTZ), 0)::BIGINT AS "storedBytes",
            coalesce(sum(e.estimated_bytes) FILTER (WHERE status IN ('QUEUED', 'RUNNING')), 0)::BIGINT AS "reservedBytes"
       FROM report_jobs j LEFT JOIN report_job_estimates e ON e.report_job_id = j.id
      WHERE j.organization_id = $1`,
    [organizationId, now.toISOString()],
  );
  return {
    unfinished: Number(row?.unfinished ?? 0),
    storedBytes: Number(row?.storedBytes ?? 0),
    reservedBytes: Number(row?.reservedBytes ?? 0),
  };
}

/**
 * Bytes per row of the organization's finished files of this endpoint and format (expired ones
 * too: the row keeps the counts), or undefined when it has none yet.
 */
export async function bytesPerRowOf(
  db: Executor,
  organizationId: number,
  endpoint: string,
  format: ReportJobFormat,
): Promise<number | undefined> {
  const row = await db.one<{ perRow: number | null }>(
    `SELECT sum(byte_count)::DOUBLE / sum(row_count) AS "perRow" FROM report_jobs
      WHERE organization_id = $1 AND endpoint = $2 AND format = $3 AND status IN ('SUCCEEDED', 'EXPIRED') AND row_count > 0`,
    [organizationId, endpoint, format],
  );
  return row?.perRow ?? undefined;
}

/**
 * Takes the oldest due QUEUED job whose organization runs fewer than `maxRunningPerOrganization`
 * report jobs, and counts the attempt.
 */
export async function claimReportJob(
  tx: Executor,
  now: Date,
  maxRunningPerOrganization: number,
): Promise<StoredReportJob | undefined> {
  const due = await tx.one<{ id: number }>(
    `SELECT q.id FROM report_jobs q
      WHERE q.status = 'QUEUED' AND q.next_attempt_at <= $1::TIMESTAMPTZ
        AND (SELECT count(*) FROM report_jobs r WHERE r.organization_id = q.organization_id AND r.status = 'RUNNING') < $2
      ORDER BY q.id LIMIT 1`,
    [now.toISOString(), maxRunningPerOrganization],
  );
  if (!due) return undefined;
  const row = await tx.one<ReportJobRow>(
    `UPDATE report_jobs SET status = 'RUNNING', attempts = attempts + 1, started_at = $2::TIMESTAMPTZ
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [due.id, now.toISOString()],
  );
  return fromRow(row!);
}

/** When the next QUEUED job is due (the runner sleeps until then, or its poll). */
export async function nextReportJobDueAt(db: Executor): Promise<Date | undefined> {
  const row = await db.one<{ dueAt: string | null }>(
    `SELECT ${ISO('min(next_attempt_at)')} AS "dueAt" FROM report_jobs WHERE status = 'QUEUED'`,
  );
  return row?.dueAt ? new Date(row.dueAt) : undefined;
}

/** Jobs a dead process (or replica: its lease is not live) left RUNNING run again from the beginning. */
export async function requeueRunningReportJobs(tx: Executor, now: Date): Promise<number> {
  const rows = await tx.all(
    `UPDATE report_jobs SET status = 'QUEUED', started_at = NULL, next_attempt_at = $1::TIMESTAMPTZ
      WHERE status = 'RUNNING' AND NOT ${liveLease('report_jobs', 'report_jobs.id')} RETURNING id`,
    [now.toISOString()],
  );
  return rows.length;
}

/** Back to the queue (the export slots were busy), due at `at`; the attempt is not counted. */
export async function requeueReportJob(tx: Executor, id: number, at: Date): Promise<void> {
  await tx.run(
    `UPDATE report_jobs SET status = 'QUEUED', started_at = NULL, attempts = attempts - 1, next_attempt_at = $2::TIMESTAMPTZ
      WHERE id = $1 AND status = 'RUNNING'`,
    [id, at.toISOString()],
  );
}

export type ReportJobOutcome =
  | {
      readonly status: 'SUCCEEDED';
      readonly rows: number;
      readonly bytes: number;
      readonly sha256: string;
      readonly warnings: ReadonlyArray<Readonly<Record<string, unknown>>>;
    }
  | { readonly status: 'FAILED'; readonly error: ReportJobError };

/** Ends a RUNNING job; undefined when it is no longer RUNNING (deleted meanwhile). */
export async function finishReportJob(
  tx: Executor,
  id: number,
  outcome: ReportJobOutcome,
  now: Date,
): Promise<StoredReportJob | undefined> {
  const done =
    outcome.status === 'SUCCEEDED'
      ? [outcome.rows, outcome.bytes, outcome.sha256, JSON.stringify(outcome.warnings), null]
      : [null, null, null, '[]', JSON.stringify(outcome.error)];
  const row = await tx.one<ReportJobRow>(
    `UPDATE report_jobs SET status = $2, row_count = $3, byte_count = $4, sha256 = $5, warnings = $6, error = $7, finished_at = $8::TIMESTAMPTZ
      WHERE id = $1 AND status = 'RUNNING' RETURNING ${COLUMNS}`,
    [id, outcome.status, ...done, now.toISOString()],
  );
  return row ? fromRow(row) : undefined;
}

export async function deleteReportJob(tx: Executor, organizationId: number, id: number) {
  const row = await tx.one<ReportJobRow>(
    `DELETE FROM report_jobs WHERE organization_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [organizationId, id],
  );
  if (row) await tx.run('DELETE FROM report_job_estimates WHERE report_job_id = $1', [row.id]);
  return row ? fromRow(row) : undefined;
}

/** Jobs whose seven days are over become EXPIRED (a RUNNING one ends first); their files go. */
export async function expireReportJobs(tx: Executor, now: Date): Promise<StoredReportJob[]> {
  const rows = await tx.all<ReportJobRow>(
    `UPDATE report_jobs SET status = 'EXPIRED'
      WHERE expires_at <= $1::TIMESTAMPTZ AND status IN ('QUEUED', 'SUCCEEDED', 'FAILED') RETURNING ${COLUMNS}`,
    [now.toISOString()],
  );
  return rows.map(fromRow);
}

/** Expired jobs are answered (410 for the file) for a while, then forgotten. */
export async function purgeReportJobsExpiredBefore(tx: Executor, cutoff: Date): Promise<number> {
  const rows = await tx.all(
    `DELETE FROM report_jobs WHERE status = 'EXPIRED' AND expires_at < $1::TIMESTAMPTZ RETURNING id`,
    [cutoff.toISOString()],
  );
  if (rows.length > 0)
    await tx.run('DELETE FROM report_job_estimates WHERE report_job_id NOT IN (SELECT id FROM report_jobs)');
  return rows.length;
}

/** Ids of jobs whose file is kept: any other file in the directory is left over from a crash. */
export async function keptReportFiles(db: Executor): Promise<Set<number>> {
  const rows = await db.all<{ id: number }>(`SELECT id FROM report_jobs WHERE status = 'SUCCEEDED'`);
  return new Set(rows.map((r) => r.id));
}
