import type { JsonObject } from '../provisioning/job-queue.js';
import type {
  ReportJobError,
  ReportJobFormat,
  ReportJobQuery,
  ReportJobStatus,
  StoredReportJob,
} from './report-job-store.js';

/** A job and its file are kept seven days from its creation (the spec's job retention). */
export const REPORT_JOB_RETENTION_MS = 7 * 24 * 3600_000;

/** A report job as the API shows it. */
export interface ReportJob {
  readonly id: number;
  readonly endpoint: string;
  readonly query: ReportJobQuery;
  readonly format: ReportJobFormat;
  readonly status: ReportJobStatus;
  /** 0..1: rows written over the rows of the result while RUNNING (0 for Parquet until it ends), 1 once SUCCEEDED. */
  readonly progress: number;
  readonly rows: number | null;
  readonly bytes: number | null;
  readonly sha256: string | null;
  readonly startDate: string;
  readonly endDate: string;
  readonly warnings: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly error: ReportJobError | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly expiresAt: string;
}

/** True once the job's seven days are over, whether or not the sweep has marked it yet. */
export function isExpired(job: StoredReportJob, now: Date): boolean {
  return job.status === 'EXPIRED' || (job.status !== 'RUNNING' && Date.parse(job.expiresAt) <= now.getTime());
}

export function toReportJob(
  job: StoredReportJob,
  now: Date,
  running: { readonly rows: number | null; readonly bytes: number; readonly total: number } | undefined,
): ReportJob {
  const status = isExpired(job, now) ? 'EXPIRED' : job.status;
  const live = status === 'RUNNING' ? running : undefined;
  const progress =
    status === 'SUCCEEDED'
      ? 1
      : live && live.rows !== null && live.total > 0
        ? Math.min(0.99, live.rows / live.total)
        : 0;
  return {
    id: job.id,
    endpoint: job.endpoint,
    query: job.query,
    format: job.format,
    status,
    progress,
    rows: live ? live.rows : job.rows,
    bytes: live ? live.bytes : job.bytes,
    sha256: status === 'SUCCEEDED' ? job.sha256 : null,
    startDate: job.startDate,
    endDate: job.endDate,
    warnings: job.warnings,
    error: job.error,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    expiresAt: job.expiresAt,
  };
}

/** The job in its job.succeeded / job.failed event (kind REPORT tells it from the provisioning jobs). */
export function eventJob(job: StoredReportJob): JsonObject {
  return {
    id: job.id,
    kind: 'REPORT',
    status: job.status,
    endpoint: job.endpoint,
    format: job.format,
    rows: job.rows,
    bytes: job.bytes,
    sha256: job.sha256,
    error: job.error,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
    expiresAt: job.expiresAt,
  };
}
