import { liveLease } from '../store/work-leases.js';
import type { Executor } from '../store/database.js';
import type { SqlValue } from '../store/sql-values.js';
import type { StoredJob } from '../provisioning/job-queue.js';
import type { JobError, JobStatus, JobType, JsonObject } from './job-types.js';

export type { StoredJob } from '../provisioning/job-queue.js';

/** Timestamps are passed in (the clock is an edge) and stored as TIMESTAMPTZ. */
const ISO = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
const JOB_COLUMNS = `id, organization_id AS "organizationId", type, status, ${ISO('created_at')} AS "createdAt", ${ISO('started_at')} AS "startedAt",
  ${ISO('finished_at')} AS "finishedAt", attempts, input, result, errors, idempotency_key AS "idempotencyKey", request_fingerprint AS "requestFingerprint"`;

interface JobRow {
  id: number;
  organizationId: number;
  type: JobType;
  status: JobStatus;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  attempts: number;
  input: string;
  result: string | null;
  errors: string;
  idempotencyKey: string | null;
  requestFingerprint: string | null;
}

function fromRow(row: JobRow): StoredJob {
  return {
    ...row,
    input: JSON.parse(row.input) as JsonObject,
    result: row.result === null ? null : (JSON.parse(row.result) as JsonObject),
    errors: JSON.parse(row.errors) as JobError[],
  };
}

export async function insertJob(
  tx: Executor,
  job: {
    organizationId: number;
    type: JobType;
    input: JsonObject;
    idempotencyKey?: string | undefined;
    requestFingerprint?: string | undefined;
    now: Date;
  },
): Promise<StoredJob> {
  const row = await tx.one<JobRow>(
    `INSERT INTO jobs (organization_id, type, status, input, created_at, next_attempt_at, idempotency_key, request_fingerprint)
     VALUES ($1, $2, 'QUEUED', $3, $4::TIMESTAMPTZ, $4::TIMESTAMPTZ, $5, $6) RETURNING ${JOB_COLUMNS}`,
    [
      job.organizationId,
      job.type,
      JSON.stringify(job.input),
      job.now.toISOString(),
      job.idempotencyKey ?? null,
      job.requestFingerprint ?? null,
    ],
  );
  return fromRow(row!);
}

/** Jobs started before `visibleSince` are gone for the API (supplement 3: seven days). */
export async function getJob(
  db: Executor,
  organizationId: number,
  id: number,
  visibleSince: Date,
): Promise<StoredJob | undefined> {
  const row = await db.one<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE organization_id = $1 AND id = $2 AND created_at >= $3::TIMESTAMPTZ`,
    [organizationId, id, visibleSince.toISOString()],
  );
  return row ? fromRow(row) : undefined;
}

export async function findJobByIdempotencyKey(
  db: Executor,
  organizationId: number,
  key: string,
  since: Date,
): Promise<StoredJob | undefined> {
  const row = await db.one<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE organization_id = $1 AND idempotency_key = $2 AND created_at >= $3::TIMESTAMPTZ ORDER BY id DESC LIMIT 1`,
    [organizationId, key, since.toISOString()],
  );
  return row ? fromRow(row) : undefined;
}

export async function listJobs(
  db: Executor,
  organizationId: number,
  filter: { status?: JobStatus | undefined; type?: JobType | undefined; visibleSince: Date },
  page: { limit: number; offset: number },
): Promise<{ total: number; jobs: StoredJob[] }> {
  const params: SqlValue[] = [organizationId, filter.visibleSince.toISOString()];
  let where = 'organization_id = $1 AND created_at >= $2::TIMESTAMPTZ';
  if (filter.status) {
    params.push(filter.status);
    where += ` AND status = $${params.length}`;
  }
  if (filter.type) {
    params.push(filter.type);
    where += ` AND type = $${params.length}`;
  }
  const total = await db.one<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE ${where}`, params);
  const rows = await db.all<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE ${where} ORDER BY id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { total: total?.n ?? 0, jobs: rows.map(fromRow) };
}

/** Takes the next due job: QUEUED and its time has come. Counts the attempt. */
export async function claimDueJob(tx: Executor, now: Date): Promise<StoredJob | undefined> {
  const due = await tx.one<{ id: number }>(
    `SELECT id FROM jobs WHERE status = 'QUEUED' AND next_attempt_at <= $1::TIMESTAMPTZ ORDER BY next_attempt_at, id LIMIT 1`,
    [now.toISOString()],
  );
  if (!due) return undefined;
  const row = await tx.one<JobRow>(
    `UPDATE jobs SET status = 'RUNNING', attempts = attempts + 1, started_at = coalesce(started_at, $2::TIMESTAMPTZ) WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
    [due.id, now.toISOString()],
  );
  return fromRow(row!);
}

/** When the next QUEUED job is due, so the runner can sleep until then. */
export async function nextDueAt(db: Executor): Promise<Date | undefined> {
  const row = await db.one<{ dueAt: string | null }>(
    `SELECT ${ISO('min(next_attempt_at)')} AS "dueAt" FROM jobs WHERE status = 'QUEUED'`,
  );
  return row?.dueAt ? new Date(row.dueAt) : undefined;
}

export async function finishJob(
  tx: Executor,
  id: number,
  outcome: { status: JobStatus; result: JsonObject | null; errors: JobError[]; now: Date },
): Promise<void> {
  await tx.run('UPDATE jobs SET status = $2, result = $3, errors = $4, finished_at = $5::TIMESTAMPTZ WHERE id = $1', [
    id,
    outcome.status,
    outcome.result === null ? null : JSON.stringify(outcome.result),
    JSON.stringify(outcome.errors),
    outcome.now.toISOString(),
  ]);
}

export async function scheduleRetry(tx: Executor, id: number, errors: JobError[], nextAttemptAt: Date): Promise<void> {
  await tx.run(`UPDATE jobs SET status = 'QUEUED', errors = $2, next_attempt_at = $3::TIMESTAMPTZ WHERE id = $1`, [
    id,
    JSON.stringify(errors),
    nextAttemptAt.toISOString(),
  ]);
}

/**
 * A job left RUNNING by a process that died is queued again (supplement 3): at start, and on every
 * lease sweep, since another replica may have died (its lease names a replica that stopped beating).
 */
export async function requeueInterrupted(tx: Executor, now: Date): Promise<number> {
  const rows = await tx.all(
    `UPDATE jobs SET status = 'QUEUED', next_attempt_at = $1::TIMESTAMPTZ
      WHERE status = 'RUNNING' AND NOT ${liveLease('jobs', 'jobs.id')} RETURNING id`,
    [now.toISOString()],
  );
  return rows.length;
}

export async function purgeJobsBefore(tx: Executor, cutoff: Date): Promise<number> {
  const rows = await tx.all('DELETE FROM jobs WHERE created_at < $1::TIMESTAMPTZ RETURNING id', [cutoff.toISOString()]);
  return rows.length;
}

/** Queued jobs of one type in an organization, oldest first (to merge work into one not yet started). */
export async function queuedJobsOfType(tx: Executor, organizationId: number, type: JobType): Promise<StoredJob[]> {
  const rows = await tx.all<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE organization_id = $1 AND type = $2 AND status = 'QUEUED' ORDER BY id`,
    [organizationId, type],
  );
  return rows.map(fromRow);
}

/** Changes the input of a job nobody has claimed yet; false when it was claimed meanwhile. */
export async function updateQueuedJobInput(tx: Executor, id: number, input: JsonObject): Promise<boolean> {
  const row = await tx.one<{ id: number }>(
    `UPDATE jobs SET input = $2 WHERE id = $1 AND status = 'QUEUED' RETURNING id`,
    [id, JSON.stringify(input)],
  );
  return row !== undefined;
}
