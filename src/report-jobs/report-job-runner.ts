import { sweepLeases, type WorkLeases } from '../store/work-leases.js';
import { recordEvent } from '../events/event-log.js';
import type { ReportService } from '../reporting/report-service.js';
import { WorkPump, type Taken } from '../runtime/work-pump.js';
import { ApiError, OverloadedError } from '../shared/errors.js';
import type { Store } from '../store/store.js';
import type { ReportFiles } from './report-files.js';
import { endpointOf, reportJobRequest } from './report-job-request.js';
import {
  claimReportJob,
  expireReportJobs,
  finishReportJob,
  keptReportFiles,
  nextReportJobDueAt,
  purgeReportJobsExpiredBefore,
  requeueReportJob,
  requeueRunningReportJobs,
  type ReportJobOutcome,
  type StoredReportJob,
} from './report-job-store.js';
import { eventJob, REPORT_JOB_RETENTION_MS } from './report-job-view.js';

export interface ReportJobRunnerOptions {
  readonly now: () => Date;
  /** Report jobs running at once in the service. */
  readonly concurrency: number;
  /** Report jobs of one organization running at once; more wait QUEUED. */
  readonly maxRunningPerOrganization: number;
  /** Bytes of stored files an organization may keep (ADREPORT_REPORT_FILES_MB): no single file may be larger. */
  readonly filesBytes: number;
  /** Safety net besides wake(): how often to look for due jobs. */
  readonly pollMs: number;
  readonly log: (entry: { jobId: number; error: unknown }) => void;
  /** This replica's claims; a job a dead replica ran is queued again on the expiry sweep. */
  readonly leases: WorkLeases;
}

/** What the API shows of a job while it runs (rows are line feeds: unknown for Parquet until the end). */
export interface RunningProgress {
  readonly rows: number | null;
  readonly bytes: number;
  /** Rows of the whole result (X-TotalCount of the GET), for progress. */
  readonly total: number;
}

/** A rerun after this many starts is not tried again: a job that keeps killing the process fails. */
const MAX_ATTEMPTS = 3;
/** The export slots were all taken (should not happen with matching limits): try again after this. */
const BUSY_RETRY_MS = 2_000;
const EXPIRY_SWEEP_MS = 60_000;

class ReportFilesQuotaError extends ApiError {
  constructor(limitBytes: number) {
    super(
      429,
      'report_files_quota_exceeded',
      `The file alone is larger than the organization's ${limitBytes} bytes of report files (ADREPORT_REPORT_FILES_MB); ask for less (a shorter range, fewer statistics or segments, limit and offset).`,
    );
  }
}

interface Run {
  readonly controller: AbortController;
  progress: RunningProgress;
}

/**
 * Runs report jobs inside the service: claims QUEUED jobs (per-organization limit), streams each
 * export into its file, and records the outcome with its event in one transaction. A job a dead
 * process left RUNNING is queued again at start and reruns from the beginning; partial files are
 * removed then. Jobs expire seven days after creation: the file goes, the row says EXPIRED.
 */
export class ReportJobRunner {
  private readonly runs = new Map<number, Run>();
  private readonly pump: WorkPump<StoredReportJob>;
  private sweeper: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly db: Store,
    private readonly reports: ReportService,
    private readonly files: ReportFiles,
    private readonly options: ReportJobRunnerOptions,
  ) {
    this.pump = new WorkPump(
      { take: () => this.takeDue(), run: (job) => this.runJob(job), idOf: (job) => job.id },
      {
        concurrency: options.concurrency,
        pollMs: options.pollMs,
        now: options.now,
        log: (error, jobId) => options.log({ jobId: jobId ?? 0, error }),
        // A full read pool is a busy moment, not a fault: look again after pollMs.
        isQuiet: (error) => error instanceof OverloadedError,
      },
    );
  }

  async start(): Promise<void> {
    // One write: the writer has a lane of its own, where a read at start could find the read pool
    // full (the provisioning job runner polls beside it) and refuse the start.
    const kept = await this.db.write('no-report-data', async (tx) => {
      await requeueRunningReportJobs(tx, this.options.now());
      return keptReportFiles(tx);
    });
    this.files.removeLeftovers(kept);
    await this.expire();
    this.stopping = false;
    this.sweeper = setInterval(() => {
      this.expire().catch((error: unknown) => this.options.log({ jobId: 0, error }));
    }, EXPIRY_SWEEP_MS);
    this.sweeper.unref();
    this.pump.start();
  }

  /** Stops claiming and ends running jobs without an outcome: they stay RUNNING and rerun at the next start. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweeper);
    const stopped = this.pump.stop(timeoutMs);
    for (const run of this.runs.values()) run.controller.abort(new Error('the service is shutting down'));
    await stopped;
  }

  progressOf(id: number): RunningProgress | undefined {
    return this.runs.get(id)?.progress;
  }

  /** Stops a job's run (its row was deleted); its files are removed by the run. */
  cancel(id: number): void {
    this.runs.get(id)?.controller.abort(new Error('the report job was deleted'));
  }

  /** Expires jobs past their seven days and removes their files; forgets them seven days later. */
  async expire(): Promise<void> {
    const now = this.options.now();
    const expired = await this.db.write('no-report-data', async (tx) => {
      await sweepLeases(tx, 'report_jobs', `SELECT id FROM report_jobs WHERE status = 'RUNNING'`);
      // Only another replica's: with one process, its own running jobs hold leases no heartbeat renews.
      if (this.options.leases.shared && (await requeueRunningReportJobs(tx, now)) > 0) this.pump.wake();
      const jobs = await expireReportJobs(tx, now);
      await purgeReportJobsExpiredBefore(tx, new Date(now.getTime() - REPORT_JOB_RETENTION_MS));
      return jobs;
    });
    for (const job of expired) this.files.remove(job);
  }

  wake(): void {
    this.pump.wake();
  }

  /** One due job, claimed; none while every due job's organization runs as many as it may (a finishing job wakes the pump). */
  private async takeDue(): Promise<Taken<StoredReportJob>> {
    // Look before taking: an idle poll stays a read, not a commit.
    const due = await this.db.read(nextReportJobDueAt);
    if (!due || due.getTime() > this.options.now().getTime()) return { items: [], nextDueAt: due };
    const job = await this.db.write('no-report-data', async (tx) => {
      const claimed = await claimReportJob(tx, this.options.now(), this.options.maxRunningPerOrganization);
      if (claimed) await this.options.leases.take(tx, 'report_jobs', claimed.id);
      return claimed;
    });
    return { items: job ? [job] : [] };
  }

  private async runJob(job: StoredReportJob): Promise<void> {
    const run: Run = { controller: new AbortController(), progress: { rows: null, bytes: 0, total: 0 } };
    this.runs.set(job.id, run);
    try {
      await this.execute(job, run);
    } finally {
      this.runs.delete(job.id);
    }
  }

  private async execute(job: StoredReportJob, run: Run): Promise<void> {
    try {
      if (job.attempts > MAX_ATTEMPTS)
        throw new ApiError(500, 'too_many_attempts', `The job was started ${MAX_ATTEMPTS} times without finishing.`);
      const outcome = await this.produce(job, run);
      if (outcome === 'busy') {
        await this.db.write('no-report-data', (tx) =>
          requeueReportJob(tx, job.id, new Date(this.options.now().getTime() + BUSY_RETRY_MS)),
        );
        return;
      }
      await this.finish(job, outcome);
    } catch (error) {
      // Shutting down or deleted: no outcome to record (a shut-down job reruns at the next start).
      if (run.controller.signal.aborted || this.stopping) {
        this.files.remove(job);
        return;
      }
      if (!(error instanceof ApiError)) this.options.log({ jobId: job.id, error });
      this.files.remove(job);
      const failure =
        error instanceof ApiError
          ? { code: error.code, message: error.message }
          : { code: 'export_failed', message: 'The export failed unexpectedly; create the job again.' };
      await this.finish(job, { status: 'FAILED', error: failure });
    }
  }

  /** The export of the job's query, as GET /reporting/v0/<endpoint>?format= would stream it, into its file. */
  private async produce(job: StoredReportJob, run: Run): Promise<ReportJobOutcome | 'busy'> {
    const endpoint = endpointOf(job.endpoint);
    const request = reportJobRequest(endpoint, job.query, job.format, job.organizationId);
    // The creation time resolves presets and the default range: a rerun writes the same period.
    const createdAt = new Date(job.createdAt);
    const prepared = this.reports.prepare(endpoint, request, createdAt);
    const total = await this.reports.count(endpoint, request, createdAt);
    run.progress = { rows: job.format === 'parquet' ? null : 0, bytes: 0, total };
    let opened;
    try {
      opened = await this.reports.export(prepared, job.format);
    } catch (error) {
      if (error instanceof ApiError && error.status === 503) return 'busy';
      throw error;
    }
    const { stream, warnings } = opened;
    // Errors reach the writer through its iteration; a destroy after the end must not be unhandled.
    stream.on('error', () => undefined);
    const abort = () => stream.destroy(run.controller.signal.reason as Error);
    if (run.controller.signal.aborted) abort();
    run.controller.signal.addEventListener('abort', abort, { once: true });
    const header = job.format === 'csv' ? 1 : 0;
    let written;
    try {
      written = await this.files.write(
        job,
        stream,
        ({ bytes, lines }) => {
          // The quota admits jobs (POST); a single file larger than all of it could never be kept.
          if (bytes > this.options.filesBytes) throw new ReportFilesQuotaError(this.options.filesBytes);
          run.progress = { rows: job.format === 'parquet' ? null : Math.max(0, lines - header), bytes, total };
        },
        async () => {
          const failure = await stream.outcome;
          if (failure) throw failure;
        },
      );
    } finally {
      run.controller.signal.removeEventListener('abort', abort);
    }
    const rows = job.format === 'parquet' ? total : Math.max(0, written.lines - header);
    return { status: 'SUCCEEDED', rows, bytes: written.bytes, sha256: written.sha256, warnings: [...warnings] };
  }

  /** The outcome and its event in one transaction. */
  private async finish(job: StoredReportJob, outcome: ReportJobOutcome): Promise<void> {
    const now = this.options.now();
    const recorded = await this.db.write('no-report-data', async (tx) => {
      const finished = await finishReportJob(tx, job.id, outcome, now);
      if (!finished) return undefined;
      await recordEvent(tx, {
        organizationId: job.organizationId,
        type: finished.status === 'SUCCEEDED' ? 'job.succeeded' : 'job.failed',
        data: { job: eventJob(finished) },
        occurredAt: now,
      });
      return finished;
    });
    // Deleted while it ran: its file must not stay.
    if (!recorded || recorded.status !== 'SUCCEEDED') this.files.remove(job);
  }
}
