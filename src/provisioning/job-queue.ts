import type { Executor } from '../store/database.js';

/**
 * The job contract of provisioning: the job vocabulary (supplement 3), and the queue the services
 * put work on. Provisioning owns it and src/jobs implements it (JobService), so the services and
 * the HTTP routes never import the concrete queue (DESIGN D4: nothing imports jobs).
 */

/** Job vocabulary of supplement 3. */
export const JOB_TYPES = [
  'IMPORT_CAMPAIGN',
  'AUTO_IMPORT',
  'CREATE_ADPLATFORM_ACCOUNT',
  'COPY_CAMPAIGNS',
  'SYNC_STATISTICS',
] as const;
export type JobType = (typeof JOB_TYPES)[number];

export const JOB_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'PARTIALLY_SUCCEEDED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export type JsonObject = { [key: string]: unknown };

export interface JobError {
  readonly code: string;
  readonly message: string;
  readonly attempt: number;
  readonly at: string;
}

/** A job as the API shows it. */
export interface Job {
  readonly id: number;
  readonly type: JobType;
  readonly status: JobStatus;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly attempts: number;
  readonly input: JsonObject;
  readonly result: JsonObject | null;
  readonly errors: JobError[];
}

/** A job as stored: the API's view plus what scopes and deduplicates it. */
export interface StoredJob extends Job {
  readonly organizationId: number;
  readonly idempotencyKey: string | null;
  readonly requestFingerprint: string | null;
}

export function toJobResponse(job: StoredJob): Job {
  const { id, type, status, createdAt, startedAt, finishedAt, attempts, input, result, errors } = job;
  return { id, type, status, createdAt, startedAt, finishedAt, attempts, input, result, errors };
}

/** What an endpoint that starts a job knows about the request, for Idempotency-Key. */
export interface IdempotentRequest {
  readonly key: string;
  /** Identifies the request: same key with another fingerprint is a misuse (422). */
  readonly fingerprint: string;
}

/** Where services put work to be done later, in their own transaction. */
export interface JobQueue {
  /**
   * Queues a job in the caller's transaction. With an Idempotency-Key seen in the last 24 h the
   * first job is returned instead (same request) or the request is refused (another request).
   * Call `started()` after the transaction commits.
   */
  enqueueIn(
    tx: Executor,
    organizationId: number,
    type: JobType,
    input: JsonObject,
    idempotency?: IdempotentRequest,
  ): Promise<StoredJob>;
  /** Wakes the runner once queued jobs are committed. */
  started(): void;
}

/** The jobs an organization can see (the retention window), for the job endpoints. */
export interface JobLookup {
  /** The job, or a 404 ApiError. */
  get(organizationId: number, id: number): Promise<StoredJob>;
  list(
    organizationId: number,
    filter: { status?: JobStatus | undefined; type?: JobType | undefined },
    page: { limit: number; offset: number },
  ): Promise<{ total: number; jobs: StoredJob[] }>;
}
