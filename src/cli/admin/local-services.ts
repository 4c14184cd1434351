import { configFromEnv } from '../../config/config.js';
import { jobHandlers } from '../../jobs/handlers/index.js';
import { JobRunner } from '../../jobs/job-runner.js';
import { JobService } from '../../jobs/job-service.js';
import { SandboxPlatforms } from '../../platforms/sandbox/index.js';
import { ExportService } from '../../reporting/export-stream.js';
import { ReportService } from '../../reporting/report-service.js';
import { PageCache } from '../../reporting/page-cache.js';
import { duckdbFactWriter } from '../../statistics/fact-writer.js';
import type { StatisticsSyncSettings } from '../../jobs/statistics-sync-queue.js';
import { WorkLeases } from '../../store/work-leases.js';
import type { Store } from '../../store/store.js';
import type { CliIo } from '../command.js';
import { statisticsSettings } from './statistics-settings.js';
import type { AdminServices } from './operation.js';

/**
 * The services an operation gets when the CLI holds the file itself: built on first use, for one
 * command, and stopped when it ends. Jobs run on a runner of the CLI's own; settings come from
 * the CLI's environment, like the server's from its own.
 */
export class LocalServices implements AdminServices {
  readonly now = () => new Date();
  readonly platforms: SandboxPlatforms;
  private exports: ExportService | undefined;
  private reportService: ReportService | undefined;
  private runner: JobRunner | undefined;
  private leases: WorkLeases | undefined;
  private queue: JobService | undefined;

  constructor(
    private readonly db: Store,
    private readonly io: CliIo,
  ) {
    this.platforms = new SandboxPlatforms(db, { now: this.now });
  }

  get reports(): ReportService {
    this.exports ??= new ExportService(this.db, 1);
    // ADREPORT_ROLLUPS of the CLI's environment, as the server reads its own.
    this.reportService ??= new ReportService(this.db, this.now, this.exports, new PageCache(0), {
      rollups: configFromEnv(this.io.env).rollups ?? true,
    });
    return this.reportService;
  }

  /** ADREPORT_STATISTICS_* of the CLI's environment. */
  get statistics(): StatisticsSyncSettings {
    return statisticsSettings(this.io.env);
  }

  async jobs(): Promise<JobService> {
    if (this.queue) return this.queue;
    const { db, platforms, now, statistics } = this;
    const jobs = new JobService(db, { wake: () => runner.wake() }, now);
    const log = (error: unknown) =>
      this.io.stderr.write(`adreport: work leases: ${error instanceof Error ? error.message : String(error)}\n`);
    this.leases = new WorkLeases(db, log);
    await this.leases.start();
    const runner: JobRunner = new JobRunner(
      db,
      jobHandlers({
        db,
        platforms,
        jobs,
        now,
        statistics,
        // The CLI holds no ClickHouse connection: on PostgreSQL it fetches no statistics.
        facts: db.dialect.servesReports ? duckdbFactWriter : undefined,
      }),
      {
        now,
        concurrency: 2,
        backoffBaseMs: 2_000,
        maxBackoffMs: 60_000,
        pollMs: 200,
        leases: this.leases,
        log: ({ jobId, error }) =>
          this.io.stderr.write(`adreport: job ${jobId}: ${error instanceof Error ? error.message : String(error)}\n`),
      },
    );
    await runner.start();
    this.runner = runner;
    this.queue = jobs;
    return jobs;
  }

  /** No server holds the file, so none has a list to refresh; a server started later reads it at its start. */
  async clientsDisabled(): Promise<void> {}

  async close(): Promise<void> {
    await this.runner?.stop(10_000);
    await this.leases?.stop();
    await this.exports?.close();
  }
}
