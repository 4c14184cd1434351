import type { IdempotentRequest } from '../provisioning/job-queue.js';
import type { ReportService } from '../reporting/report-service.js';
import { ApiError, conflict, notFound } from '../shared/errors.js';
import type { Store } from '../store/store.js';
import type { ReportFiles } from './report-files.js';
import { normalizeStoredQuery } from '../reporting/report-request.js';
import { endpointOf, reportJobRequest, type ReportJobQueryInput } from './report-job-request.js';
import type { ReportJobRunner } from './report-job-runner.js';
import {
  bytesPerRowOf,
  deleteReportJob,
  findReportJobByIdempotencyKey,
  getReportJob,
  insertReportJob,
  listReportJobs,
  organizationUsage,
  type ReportJobFormat,
  type ReportJobStatus,
  type StoredReportJob,
} from './report-job-store.js';
import { REPORT_JOB_RETENTION_MS, toReportJob, type ReportJob } from './report-job-view.js';

export interface ReportJobLimits {
  /** Jobs of one organization QUEUED or RUNNING at once; a POST beyond is 429. */
  readonly maxUnfinishedPerOrganization: number;
  /** Bytes of stored files per organization (ADREPORT_REPORT_FILES_MB); a POST at or beyond is 429. */
  readonly filesBytes: number;
}

export interface NewReportJobRequest {
  readonly endpoint: string;
  readonly query: ReportJobQueryInput;
  readonly format: ReportJobFormat;
}

/** A SUCCEEDED job's file, to be served. */
export interface ReportJobFile {
  readonly job: ReportJob;
  readonly path: string;
  /** The GET export's file name: <endpoint>_<from>_<to>.<format>. */
  readonly name: string;
}

const IDEMPOTENCY_MS = 24 * 3600_000;

/**
 * Bytes per row assumed before the organization has a finished file of that endpoint and format;
 * from its first one on, its own files' average is used. Rough on purpose (not measured per
 * query): an estimate only decides when the next POST is refused.
 */
const DEFAULT_BYTES_PER_ROW: Readonly<Record<ReportJobFormat, number>> = { csv: 250, ndjson: 550, parquet: 80 };
const RETRY_AFTER_SECONDS = 10;

/** POST, GET, list and DELETE of /reporting/v0/report-jobs; every lookup scoped to the organization. */
export class ReportJobService {
  constructor(
    private readonly db: Store,
    private readonly reports: ReportService,
    private readonly files: ReportFiles,
    private readonly runner: Pick<ReportJobRunner, 'wake' | 'progressOf' | 'cancel' | 'expire'>,
    private readonly now: () => Date,
    private readonly limits: ReportJobLimits,
  ) {}

  /**
   * Validates the query exactly as the GET does (its 400s, before anything is stored), then
   * queues the job. With an Idempotency-Key seen in the last 24 h: the same job for the same
   * body, 422 for another.
   */
  async create(
    organizationId: number,
    input: NewReportJobRequest,
    idempotency: IdempotentRequest | undefined,
  ): Promise<ReportJob> {
    const endpoint = endpointOf(input.endpoint);
    const query = normalizeStoredQuery(input.query);
    const now = this.now();
    const request = reportJobRequest(endpoint, query, input.format, organizationId);
    const { plan } = this.reports.prepare(endpoint, request, now);
    // The rows (the GET's X-TotalCount) before the write: a report query has no place on the writer.
    const rows = await this.reports.count(endpoint, request, now);
    const job = await this.db.write('no-report-data', async (tx) => {
      if (idempotency) {
        const since = new Date(now.getTime() - IDEMPOTENCY_MS);
        const earlier = await findReportJobByIdempotencyKey(tx, organizationId, idempotency.key, since);
        if (earlier) {
          if (earlier.requestFingerprint === idempotency.fingerprint) return earlier;
          throw new ApiError(
            422,
            'idempotency_key_reused',
            'This Idempotency-Key was used in the last 24 hours for a different request.',
            [{ field: 'Idempotency-Key', code: 'reused', message: 'belongs to another request' }],
          );
        }
      }
      const usage = await organizationUsage(tx, organizationId, now);
      if (usage.unfinished >= this.limits.maxUnfinishedPerOrganization) {
        throw new ApiError(
          429,
          'too_many_report_jobs',
          `This organization has ${usage.unfinished} report jobs queued or running, its limit; retry when one has ended.`,
          [],
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        );
      }
      // Files of queued and running jobs count with their estimates: admitted against stored files
      // alone, a burst of POSTs (nothing stored yet) ended at twice the quota.
      if (usage.storedBytes + usage.reservedBytes >= this.limits.filesBytes) {
        throw new ApiError(
          429,
          'report_files_quota_exceeded',
          `This organization's report files take ${usage.storedBytes} bytes and its queued or running report jobs (${usage.unfinished}) an estimated ${usage.reservedBytes} more, its limit is ${this.limits.filesBytes} (ADREPORT_REPORT_FILES_MB); wait for jobs to finish, delete files (DELETE /reporting/v0/report-jobs/id/{id}) or wait until they expire.`,
        );
      }
      const perRow =
        (await bytesPerRowOf(tx, organizationId, endpoint.path, input.format)) ?? DEFAULT_BYTES_PER_ROW[input.format];
      return insertReportJob(tx, {
        organizationId,
        endpoint: endpoint.path,
        query,
        format: input.format,
        startDate: plan.from,
        endDate: plan.to,
        now,
        expiresAt: new Date(now.getTime() + REPORT_JOB_RETENTION_MS),
        estimatedBytes: Math.ceil(rows * perRow),
        idempotencyKey: idempotency?.key,
        requestFingerprint: idempotency?.fingerprint,
      });
    });
    this.runner.wake();
    return this.view(job);
  }

  async get(organizationId: number, id: number): Promise<ReportJob> {
    return this.view(await this.stored(organizationId, id));
  }

  /** Jobs created in the last seven days, by id. */
  async list(
    organizationId: number,
    status: ReportJobStatus | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; jobs: ReportJob[] }> {
    const since = new Date(this.now().getTime() - REPORT_JOB_RETENTION_MS);
    const { total, jobs } = await this.db.read((r) => listReportJobs(r, organizationId, { since, status }, page));
    return { total, jobs: jobs.map((job) => this.view(job)) };
  }

  /** Removes the job and its file; a running job stops. */
  async delete(organizationId: number, id: number): Promise<void> {
    const job = await this.db.write('no-report-data', (tx) => deleteReportJob(tx, organizationId, id));
    if (!job) throw notFound(`No report job with id ${id}.`);
    this.runner.cancel(id);
    this.files.remove(job);
  }

  /** The stored file of a SUCCEEDED job: 409 before, 410 once expired. */
  async file(organizationId: number, id: number): Promise<ReportJobFile> {
    const stored = await this.stored(organizationId, id);
    const job = this.view(stored);
    if (job.status === 'EXPIRED') {
      // Past its seven days but not swept yet: the file goes now.
      if (stored.status !== 'EXPIRED') await this.runner.expire();
      throw new ApiError(
        410,
        'report_job_expired',
        `Report job ${id} expired at ${job.expiresAt}; its file was deleted. Create the job again.`,
      );
    }
    if (job.status !== 'SUCCEEDED')
      throw conflict(
        'report_job_not_ready',
        `Report job ${id} is ${job.status}; its file can be downloaded once it is SUCCEEDED.`,
      );
    return {
      job,
      path: this.files.pathOf(stored),
      name: `${stored.endpoint.replaceAll('/', '-')}_${stored.startDate}_${stored.endDate}.${stored.format}`,
    };
  }

  private async stored(organizationId: number, id: number): Promise<StoredReportJob> {
    const job = await this.db.read((r) => getReportJob(r, organizationId, id));
    if (!job) throw notFound(`No report job with id ${id}.`);
    return job;
  }

  private view(job: StoredReportJob): ReportJob {
    return toReportJob(job, this.now(), this.runner.progressOf(job.id));
  }
}
