import { PlatformError } from '../platforms/connector.js';
import type { Database } from '../store/database.js';
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
}

/**
 * Runs durable jobs inside the service: claims due jobs from the table, retries retryable
 * connector errors with exponential backoff (at most five attempts), resumes jobs a dead
 * process left RUNNING, and purges jobs after seven days.
 */
export class JobRunner {
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private pumping = false;
  private pumpAgain = false;

  constructor(
    private readonly db: Database,
    private readonly handlers: Partial<Record<JobType, JobHandler>>,
    private readonly options: JobRunnerOptions,
  ) {}

  async start(): Promise<void> {
    const now = this.options.now();
    await this.db.write('no-report-data', (tx) => requeueInterrupted(tx, now));
    await this.purge();
    this.stopped = false;
    this.wake();
  }

  /** Looks for due work now (called after an enqueue). */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.pump()
      .catch((error: unknown) => {
        if (!this.stopped) this.options.log({ jobId: 0, error });
      })
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.wake();
        }
      });
  }

  /** Stops claiming; waits up to `timeoutMs` for running jobs. Unfinished ones resume at the next start. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.race([Promise.all(this.running), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  async purge(): Promise<number> {
    const cutoff = new Date(this.options.now().getTime() - RETENTION_DAYS * 24 * 3600_000);
    return this.db.write('no-report-data', (tx) => purgeJobsBefore(tx, cutoff));
  }

  private async pump(): Promise<void> {
    while (!this.stopped && this.running.size < this.options.concurrency) {
      // Look before taking: an idle poll stays a read, not a commit (which would also expire every cached plan).
      const due = await this.db.read(nextDueAt);
      if (!due || due.getTime() > this.options.now().getTime()) {
        this.scheduleNextLook(due);
        return;
      }
      const job = await this.db.write('no-report-data', (tx) => claimDueJob(tx, this.options.now()));
      if (!job) continue;
      // A job whose bookkeeping fails (e.g. the store closed under a forced stop) stays RUNNING and resumes at the next start.
      const run = this.execute(job)
        .catch((error: unknown) => this.options.log({ jobId: job.id, error }))
        .finally(() => {
          this.running.delete(run);
          this.wake();
        });
      this.running.add(run);
    }
  }

  /** Sleeps until the next job is due (or pollMs); finished jobs and enqueues wake it earlier. */
  private scheduleNextLook(due: Date | undefined): void {
    if (this.stopped) return;
    const wait = due ? Math.max(0, due.getTime() - this.options.now().getTime()) : this.options.pollMs;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), Math.min(wait, this.options.pollMs));
    this.timer.unref();
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
