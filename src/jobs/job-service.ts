import crypto from 'node:crypto';
import { ApiError, notFound } from '../shared/errors.js';
import type { Database, Executor } from '../store/database.js';
import type { JobRunner } from './job-runner.js';
import { findJobByIdempotencyKey, getJob, insertJob, listJobs, type StoredJob } from './job-store.js';
import { IDEMPOTENCY_HOURS, RETENTION_DAYS, type Job, type JobStatus, type JobType, type JsonObject } from './job-types.js';

/** What an endpoint that starts a job knows about the request, for Idempotency-Key. */
export interface IdempotentRequest {
  readonly key: string;
  /** Identifies the request: same key with another fingerprint is a misuse (422). */
  readonly fingerprint: string;
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');
}

/** JSON with sorted keys, so {"a":1,"b":2} and {"b":2,"a":1} are one request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function toJobResponse(job: StoredJob): Job {
  const { id, type, status, createdAt, startedAt, finishedAt, attempts, input, result, errors } = job;
  return { id, type, status, createdAt, startedAt, finishedAt, attempts, input, result, errors };
}

export class JobService {
  constructor(
    private readonly db: Database,
    private readonly runner: Pick<JobRunner, 'wake'>,
    private readonly now: () => Date,
  ) {}

  /**
   * Queues a job in the caller's transaction. With an Idempotency-Key seen in the last 24 h the
   * first job is returned instead (same request) or the request is refused (another request).
   * Call `started()` after the transaction commits.
   */
  async enqueueIn(tx: Executor, organizationId: number, type: JobType, input: JsonObject, idempotency?: IdempotentRequest): Promise<StoredJob> {
    const now = this.now();
    if (idempotency) {
      const since = new Date(now.getTime() - IDEMPOTENCY_HOURS * 3600_000);
      const earlier = await findJobByIdempotencyKey(tx, organizationId, idempotency.key, since);
      if (earlier) {
        if (earlier.requestFingerprint !== idempotency.fingerprint) {
          throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used in the last 24 hours for a different request.', [
            { field: 'Idempotency-Key', code: 'reused', message: 'belongs to another request' },
          ]);
        }
        return earlier;
      }
    }
    return insertJob(tx, { organizationId, type, input, idempotencyKey: idempotency?.key, requestFingerprint: idempotency?.fingerprint, now });
  }

  /** Wakes the runner once queued jobs are committed. */
  started(): void {
    this.runner.wake();
  }

  async get(organizationId: number, id: number): Promise<StoredJob> {
    const job = await this.db.read((r) => getJob(r, organizationId, id, this.visibleSince()));
    if (!job) throw notFound(`No job with id ${id} in the last ${RETENTION_DAYS} days.`);
    return job;
  }

  list(organizationId: number, filter: { status?: JobStatus | undefined; type?: JobType | undefined }, page: { limit: number; offset: number }) {
    return this.db.read((r) => listJobs(r, organizationId, { ...filter, visibleSince: this.visibleSince() }, page));
  }

  private visibleSince(): Date {
    return new Date(this.now().getTime() - RETENTION_DAYS * 24 * 3600_000);
  }
}
