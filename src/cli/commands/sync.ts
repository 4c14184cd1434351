import { configFromEnv, serviceConfigSchema } from '../../config/config.js';
import { jobHandlers } from '../../jobs/handlers/index.js';
import { JobRunner } from '../../jobs/job-runner.js';
import { JobService, toJobResponse } from '../../jobs/job-service.js';
import { getJob } from '../../jobs/job-store.js';
import { queueAutoImports } from '../../jobs/platform-sync.js';
import { queueTrailingSyncs } from '../../jobs/statistics-sync-queue.js';
import { getOrganization } from '../../organizations/organizations.js';
import { SandboxPlatforms } from '../../platforms/sandbox/index.js';
import type { Database, Executor } from '../../store/database.js';
import { withAdminStore } from '../admin-store.js';
import { CliError, parseId, printResult, requireOption, type Command } from '../command.js';

export const sync: Command = {
  path: ['sync'],
  summary:
    'Run the platform sync of an organization now: import campaigns new at the platforms for every account with autoImport, then replace the trailing window of statistics',
  usage: 'adreport sync --org ID [--days N] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization; jobs already queued in the database run too',
    '--days N           statistics window: the N days before today (default 30, env ADREPORT_STATISTICS_TRAILING_DAYS; at most 1827)',
  ],
  options: { org: { type: 'string' }, days: { type: 'string' } },
  async run(context) {
    const organizationId = parseId(requireOption(context.values, 'org'), 'org');
    const env = serviceConfigSchema.shape.statistics.safeParse(configFromEnv(context.io.env).statistics);
    if (!env.success) throw new CliError(`invalid setting statistics.${env.error.issues[0]!.path.join('.')}: ${env.error.issues[0]!.message}`, 2);
    const settings = env.data;
    const days = context.values.days === undefined ? settings.trailingDays : parseDays(String(context.values.days));
    const now = () => new Date();
    const finished = await withAdminStore(context.dbPath, async (db) => {
      if (!(await db.read((r) => getOrganization(r, organizationId)))) throw new CliError(`organization ${organizationId} does not exist`);
      const platforms = new SandboxPlatforms(db, { now });
      const jobs = new JobService(db, { wake: () => runner.wake() }, now);
      const runner: JobRunner = new JobRunner(db, jobHandlers({ db, platforms, jobs, now, statistics: settings }), {
        now,
        concurrency: 2,
        backoffBaseMs: 2_000,
        maxBackoffMs: 60_000,
        pollMs: 200,
        log: ({ jobId, error }) => context.io.stderr.write(`adreport: job ${jobId}: ${error instanceof Error ? error.message : String(error)}\n`),
      });
      const firstId = (await db.read((r) => pendingJobIds(r, organizationId)))[0] ?? (await db.read(nextJobId));
      await runner.start();
      const imports = await queueAutoImports(db, jobs, organizationId);
      // The trailing sync runs after imports (and their backfills) so new campaigns are included.
      await waitForPending(db, organizationId);
      const syncs = await queueTrailingSyncs(db, jobs, now(), days, organizationId);
      if (!context.json) context.io.stderr.write(`sync: ${imports.length} AUTO_IMPORT and ${syncs.length} SYNC_STATISTICS job(s) queued\n`);
      await waitForPending(db, organizationId);
      await runner.stop(10_000);
      const ids = await db.read((r) => r.all<{ id: number }>('SELECT id FROM jobs WHERE organization_id = $1 AND id >= $2 ORDER BY id', [organizationId, firstId]));
      const done = [];
      for (const { id } of ids) {
        const job = await db.read((r) => getJob(r, organizationId, id, new Date(0)));
        if (job) done.push(toJobResponse(job));
      }
      return done;
    });
    printResult(context, { jobs: finished });
    const failed = finished.filter((job) => job.status === 'FAILED').length;
    if (failed > 0) context.io.stderr.write(`adreport: ${failed} sync job(s) failed; their errors are in the output\n`);
    return failed > 0 ? 1 : 0;
  },
};

function parseDays(text: string): number {
  if (!/^[1-9][0-9]{0,3}$/.test(text) || Number(text) > 1827) throw new CliError(`--days must be a whole number of days from 1 to 1827, not "${text}"`, 2);
  return Number(text);
}

async function pendingJobIds(db: Executor, organizationId: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(`SELECT id FROM jobs WHERE organization_id = $1 AND status IN ('QUEUED', 'RUNNING') ORDER BY id`, [organizationId]);
  return rows.map((row) => row.id);
}

async function nextJobId(db: Executor): Promise<number> {
  const row = await db.one<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM jobs');
  return row!.id;
}

/** Until the organization has no queued or running job left (follow-up jobs included). */
async function waitForPending(db: Database, organizationId: number): Promise<void> {
  while ((await db.read((r) => pendingJobIds(r, organizationId))).length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
}
