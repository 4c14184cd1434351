import { noFactsHere } from '../no-facts-here.js';
import { z } from 'zod';
import { getOrganization } from '../../organizations/organizations.js';
import type { Executor } from '../../store/database.js';
import type { Store } from '../../store/store.js';
import { adminCommand } from '../admin/admin-command.js';
import { statisticsSettings } from '../admin/statistics-settings.js';
import { CliError, parseId, printResult, requireOption } from '../command.js';

const MAX_DAYS = 1827;

export const sync = adminCommand({
  path: ['sync'],
  summary:
    'Run the platform sync of an organization now: import campaigns new at the platforms for every account with autoImport, then replace the trailing window of statistics',
  usage: 'adreport sync --org ID [--days N] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization; jobs already queued in the database run too',
    `--days N           statistics window: the N days before today (default ADREPORT_STATISTICS_TRAILING_DAYS, 30; at most ${MAX_DAYS})`,
  ],
  notes: ["Through a server, the jobs run on the server's job runner with its settings (also the default --days)."],
  options: { org: { type: 'string' }, days: { type: 'string' } },
  parse({ values, io }) {
    const organizationId = parseId(requireOption(values, 'org'), 'org');
    // Checked here, so a bad value is a usage error also when the server's settings apply.
    statisticsSettings(io.env);
    // No --days: the trailing window of whoever runs the jobs (the server's setting through the channel).
    return { organizationId, days: values.days === undefined ? null : parseDays(String(values.days)) };
  },
  operation: {
    name: 'sync',
    input: z.object({
      organizationId: z.number().int().positive(),
      days: z.number().int().min(1).max(MAX_DAYS).nullable(),
    }),
    async run({ db, services, progress }, input) {
      if (!db.dialect.servesReports) throw noFactsHere('sync');
      // The job modules load only where the operation runs (in the server, for a CLI that asks it).
      const [{ toJobResponse }, { getJob }, { queueAutoImports }, { queueTrailingSyncs }] = await Promise.all([
        import('../../provisioning/job-queue.js'),
        import('../../jobs/job-store.js'),
        import('../../jobs/platform-sync.js'),
        import('../../jobs/statistics-sync-queue.js'),
      ]);
      const { organizationId } = input;
      const days = input.days ?? services.statistics.trailingDays;
      if (!(await db.read((r) => getOrganization(r, organizationId))))
        throw new CliError(`organization ${organizationId} does not exist`);
      const firstId = (await db.read((r) => pendingJobIds(r, organizationId)))[0] ?? (await db.read(nextJobId));
      const jobs = await services.jobs();
      const imports = await queueAutoImports(db, jobs, organizationId);
      // The trailing sync runs after imports (and their backfills) so new campaigns are included.
      await waitForPending(db, organizationId);
      const syncs = await queueTrailingSyncs(db, jobs, services.now(), days, organizationId);
      progress({ event: 'queued', autoImports: imports.length, statisticsSyncs: syncs.length });
      await waitForPending(db, organizationId);
      const ids = await db.read((r) =>
        r.all<{ id: number }>('SELECT id FROM jobs WHERE organization_id = $1 AND id >= $2 ORDER BY id', [
          organizationId,
          firstId,
        ]),
      );
      const done = [];
      for (const { id } of ids) {
        const job = await db.read((r) => getJob(r, organizationId, id, new Date(0)));
        if (job) done.push(toJobResponse(job));
      }
      return { jobs: done };
    },
  },
  present: (context) => ({
    onEvent(event) {
      if (event.event === 'queued' && !context.json) {
        context.io.stderr.write(
          `sync: ${String(event.autoImports)} AUTO_IMPORT and ${String(event.statisticsSyncs)} SYNC_STATISTICS job(s) queued\n`,
        );
      }
    },
    done(result) {
      printResult(context, result);
      const failed = result.jobs.filter((job) => job.status === 'FAILED').length;
      if (failed > 0)
        context.io.stderr.write(`adreport: ${failed} sync job(s) failed; their errors are in the output\n`);
      return failed > 0 ? 1 : 0;
    },
  }),
});

function parseDays(text: string): number {
  if (!/^[1-9][0-9]{0,3}$/.test(text) || Number(text) > MAX_DAYS)
    throw new CliError(`--days must be a whole number of days from 1 to ${MAX_DAYS}, not "${text}"`, 2);
  return Number(text);
}

async function pendingJobIds(db: Executor, organizationId: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(
    `SELECT id FROM jobs WHERE organization_id = $1 AND status IN ('QUEUED', 'RUNNING') ORDER BY id`,
    [organizationId],
  );
  return rows.map((row) => row.id);
}

async function nextJobId(db: Executor): Promise<number> {
  const row = await db.one<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM jobs');
  return row!.id;
}

/** Until the organization has no queued or running job left (follow-up jobs included). */
async function waitForPending(db: Store, organizationId: number): Promise<void> {
  while ((await db.read((r) => pendingJobIds(r, organizationId))).length > 0)
    await new Promise((resolve) => setTimeout(resolve, 100));
}
