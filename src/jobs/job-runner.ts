import { PlatformError } from '../platforms/connector.js';
import { WorkPump, type Taken } from '../runtime/work-pump.js';
import type { Store } from '../store/store.js';
import { LEASE_SWEEP_MS, sweepLeases, type WorkLeases } from '../store/work-leases.js';
import {
  claimDueJob,
  nextDueAt,
  purgeJobsBefore,
  requeueInterrupted,
  scheduleRetry,
  type StoredJob,
} from './job-store.js';
import { finishJobWithEvent } from './job-events.js';
import { MAX_ATTEMPTS, RETENTION_DAYS, type JobError, type JobType, type JsonObject } from './job-types.js';

export interface JobOutcome {
  readonly status?: 'SUCCEEDED' | 'PARTIALLY_SUCCEEDED';
  readonly result: JsonObject;
  /** Per-item failures of a partly successful job. */
  readonly errors?: ReadonlyArray<{ code: string; message: string }>;
}

export type JobHandler = (job: StoredJob) => Promise<JobOutcome>;

/** A failure no retry can fix (e.g. the master account was removed meanwhile). */
export class PermanentJobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PermanentJobFailure';
  }
}

export interface JobRunnerOptions {
  now: () => Date;
  concurrency: number;
  /** First retry after this, doubling each attempt, capped at maxBackoffMs. */
  backoffBaseMs: number;
  maxBackoffMs: number;
  /** Safety net besides wake(): how often to look for due jobs. */
  pollMs: number;
  log: (entry: { jobId: number; error: unknown }) => void;
  /** This replica's claims; a job another replica left behind is taken over on the sweep. */
  leases: WorkLeases;
}

/**
 * Runs durable jobs inside the service: claims due jobs from the table, retries retryable
 * connector errors with exponential backoff (at most five attempts), resumes jobs a dead
 * process left RUNNING, and purges jobs after seven days.
 */
export class JobRunner {
  private readonly pump: WorkPump<StoredJob>;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Store,
    private readonly handlers: Partial<Record<JobType, JobHandler>>,
    private readonly options: JobRunnerOptions,
  ) {
    this.pump = new WorkPump(
      { take: () => this.takeDue(), run: (job) => this.execute(job), idOf: (job) => job.id },
      {
        concurrency: options.concurrency,
        pollMs: options.pollMs,
        now: options.now,
        log: (error, jobId) => options.log({ jobId: jobId ?? 0, error }),
      },
    );
  }

  async start(): Promise<void> {
    await this.sweep();
    await this.purge();
    if (this.options.leases.shared) {
      this.sweepTimer = setInterval(() => {
        this.sweep().catch((error: unknown) => this.options.log({ jobId: 0, error }));
      }, LEASE_SWEEP_MS);
      this.sweepTimer.unref();
    }
    this.pump.start();
  }

  /** Jobs whose replica died (or, at start, this process before it) run again. */
  private async sweep(): Promise<void> {
    const requeued = await this.db.write('no-report-data', async (tx) => {
      await sweepLeases(tx, 'jobs', `SELECT id FROM jobs WHERE status = 'RUNNING'`);
      return requeueInterrupted(tx, this.options.now());
    });
    if (requeued > 0) this.pump.wake();
  }

  /** Looks for due work now (called after an enqueue). */
  wake(): void {
    this.pump.wake();
  }

  /** Stops claiming; waits up to `timeoutMs` for running jobs. Unfinished ones resume at the next start. */
  stop(timeoutMs: number): Promise<void> {
    clearInterval(this.sweepTimer);
    return this.pump.stop(timeoutMs);
  }

  async purge(): Promise<number> {
    const cutoff = new Date(this.options.now().getTime() - RETENTION_DAYS * 24 * 3600_000);
    return this.db.write('no-report-data', (tx) => purgeJobsBefore(tx, cutoff));
  }

  /** One due job, claimed. Look before taking: an idle poll stays a read, not a commit (which would also expire every cached plan). */
  private async takeDue(): Promise<Taken<StoredJob>> {
    for (;;) {
      const due = await this.db.read(nextDueAt);
      if (!due || due.getTime() > this.options.now().getTime()) return { items: [], nextDueAt: due };
      const job = await this.db.write('no-report-data', async (tx) => {
        const claimed = await claimDueJob(tx, this.options.now());
        if (claimed) await this.options.leases.take(tx, 'jobs', claimed.id);
        return claimed;
      });
      if (job) return { items: [job] };
    }
  }

  private async execute(job: StoredJob): Promise<void> {
    const handler = this.handlers[job.type];
    try {
      if (!handler)
        throw new PermanentJobFailure('unsupported_job_type', `No handler for ${job.type} in this release.`);
      if (job.attempts > MAX_ATTEMPTS)
        throw new PermanentJobFailure('too_many_attempts', `Gave up after ${MAX_ATTEMPTS} attempts.`);
      const outcome = await handler(job);
      const errors = (outcome.errors ?? []).map((e) => this.jobError(e.code, e.message, job.attempts));
      await this.db.write('no-report-data', (tx) =>
        finishJobWithEvent(tx, job, {
          status: outcome.status ?? 'SUCCEEDED',
          result: outcome.result,
          errors: [...job.errors, ...errors],
          now: this.options.now(),
        }),
      );
    } catch (error) {
      await this.fail(job, error);
    }
  }

  private async fail(job: StoredJob, error: unknown): Promise<void> {
    const now = this.options.now();
    if (error instanceof PlatformError) {
      const errors = [
        ...job.errors,
        this.jobError(`platform_${error.code.toLowerCase()}`, `${error.platform}: ${error.message}`, job.attempts),
      ];
      if (error.retryable && job.attempts < MAX_ATTEMPTS) {
        const backoff = Math.min(this.options.backoffBaseMs * 2 ** (job.attempts - 1), this.options.maxBackoffMs);
        const next = new Date(now.getTime() + Math.max(backoff, error.retryAfterMs ?? 0));
        await this.db.write('no-report-data', (tx) => scheduleRetry(tx, job.id, errors, next));
        return;
      }
      await this.db.write('no-report-data', (tx) =>
        finishJobWithEvent(tx, job, { status: 'FAILED', result: null, errors, now }),
      );
      return;
    }
    if (!(error instanceof PermanentJobFailure)) this.options.log({ jobId: job.id, error });
    const failure =
      error instanceof PermanentJobFailure
        ? this.jobError(error.code, error.message, job.attempts)
        : this.jobError('internal_error', 'The job failed unexpectedly.', job.attempts);
    await this.db.write('no-report-data', (tx) =>
      finishJobWithEvent(tx, job, { status: 'FAILED', result: null, errors: [...job.errors, failure], now }),
    );
  }

  private jobError(code: string, message: string, attempt: number): JobError {
    return { code, message, attempt, at: this.options.now().toISOString() };
  }
}
