import { ApiError, notFound } from '../shared/errors.js';
import type { Executor } from '../store/database.js';
import type { Store } from '../store/store.js';
import type { JobRunner } from './job-runner.js';
import { findJobByIdempotencyKey, getJob, insertJob, listJobs, type StoredJob } from './job-store.js';
import { IDEMPOTENCY_HOURS, RETENTION_DAYS, type JobStatus, type JobType, type JsonObject } from './job-types.js';
import type { IdempotentRequest, JobLookup, JobQueue } from '../provisioning/job-queue.js';

/** The durable queue behind provisioning's JobQueue and JobLookup: jobs rows in the store, woken runner. */
export class JobService implements JobQueue, JobLookup {
  constructor(
    private readonly db: Store,
    private readonly runner: Pick<JobRunner, 'wake'>,
    private readonly now: () => Date,
  ) {}

  async enqueueIn(
    tx: Executor,
    organizationId: number,
    type: JobType,
    input: JsonObject,
    idempotency?: IdempotentRequest,
  ): Promise<StoredJob> {
    const now = this.now();
    if (idempotency) {
      const since = new Date(now.getTime() - IDEMPOTENCY_HOURS * 3600_000);
      const earlier = await findJobByIdempotencyKey(tx, organizationId, idempotency.key, since);
      if (earlier) {
        if (earlier.requestFingerprint !== idempotency.fingerprint) {
          throw new ApiError(
            422,
            'idempotency_key_reused',
            'This Idempotency-Key was used in the last 24 hours for a different request.',
            [{ field: 'Idempotency-Key', code: 'reused', message: 'belongs to another request' }],
          );
        }
        return earlier;
      }
    }
    return insertJob(tx, {
      organizationId,
      type,
      input,
      idempotencyKey: idempotency?.key,
      requestFingerprint: idempotency?.fingerprint,
      now,
    });
  }

  started(): void {
    this.runner.wake();
  }

  async get(organizationId: number, id: number): Promise<StoredJob> {
    const job = await this.db.read((r) => getJob(r, organizationId, id, this.visibleSince()));
    if (!job) throw notFound(`No job with id ${id} in the last ${RETENTION_DAYS} days.`);
    return job;
  }

  list(
    organizationId: number,
    filter: { status?: JobStatus | undefined; type?: JobType | undefined },
    page: { limit: number; offset: number },
  ) {
    return this.db.read((r) => listJobs(r, organizationId, { ...filter, visibleSince: this.visibleSince() }, page));
  }

  private visibleSince(): Date {
    return new Date(this.now().getTime() - RETENTION_DAYS * 24 * 3600_000);
  }
}
