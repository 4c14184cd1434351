import { jobHandlers } from '../../jobs/handlers/index.js';
import { JobRunner } from '../../jobs/job-runner.js';
import { JobService, toJobResponse } from '../../jobs/job-service.js';
import { getJob } from '../../jobs/job-store.js';
import { queueAutoImports } from '../../jobs/platform-sync.js';
import { getOrganization } from '../../organizations/organizations.js';
import { SandboxPlatforms } from '../../platforms/sandbox/index.js';
import { withAdminStore } from '../admin-store.js';
import { CliError, parseId, printResult, requireOption, type Command } from '../command.js';

const TERMINAL = new Set(['SUCCEEDED', 'PARTIALLY_SUCCEEDED', 'FAILED']);

export const sync: Command = {
  path: ['sync'],
  summary: "Run the platform sync of an organization now: import campaigns new at the platforms for every account with autoImport",
  usage: 'adreport sync --org ID [--db FILE] [--json]',
  optionHelp: ['--org ID           the organization; jobs already queued in the database run too'],
  options: { org: { type: 'string' } },
  async run(context) {
    const organizationId = parseId(requireOption(context.values, 'org'), 'org');
    const now = () => new Date();
    const finished = await withAdminStore(context.dbPath, async (db) => {
      if (!(await db.read((r) => getOrganization(r, organizationId)))) throw new CliError(`organization ${organizationId} does not exist`);
      const platforms = new SandboxPlatforms(db, { now });
      const runner = new JobRunner(db, jobHandlers(db, platforms), {
        now,
        concurrency: 2,
        backoffBaseMs: 2_000,
        maxBackoffMs: 60_000,
        pollMs: 200,
        log: ({ jobId, error }) => context.io.stderr.write(`adreport: job ${jobId}: ${error instanceof Error ? error.message : String(error)}\n`),
      });
      const jobs = new JobService(db, runner, now);
      await runner.start();
      const queued = await queueAutoImports(db, jobs, organizationId);
      if (!context.json) context.io.stderr.write(`sync: ${queued.length} AUTO_IMPORT job(s) queued\n`);
      const done = [];
      for (const job of queued) {
        for (;;) {
          const current = await db.read((r) => getJob(r, organizationId, job.id, new Date(0)));
          if (current && TERMINAL.has(current.status)) {
            done.push(toJobResponse(current));
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await runner.stop(10_000);
      return done;
    });
    printResult(context, { jobs: finished });
    const failed = finished.filter((job) => job.status === 'FAILED').length;
    if (failed > 0) context.io.stderr.write(`adreport: ${failed} sync job(s) failed; their errors are in the output\n`);
    return failed > 0 ? 1 : 0;
  },
};
