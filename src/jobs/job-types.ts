/** Job vocabulary of supplement 3. */
export const JOB_TYPES = ['IMPORT_CAMPAIGN', 'AUTO_IMPORT', 'CREATE_ADPLATFORM_ACCOUNT', 'COPY_CAMPAIGNS', 'SYNC_STATISTICS'] as const;
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

export const MAX_ATTEMPTS = 5;
export const RETENTION_DAYS = 7;
export const IDEMPOTENCY_HOURS = 24;
