// The vocabulary belongs to the contract provisioning owns (provisioning/job-queue.ts); jobs implements it.
export {
  JOB_STATUSES,
  JOB_TYPES,
  type Job,
  type JobError,
  type JobStatus,
  type JobType,
  type JsonObject,
} from '../provisioning/job-queue.js';

export const MAX_ATTEMPTS = 5;
export const RETENTION_DAYS = 7;
export const IDEMPOTENCY_HOURS = 24;
