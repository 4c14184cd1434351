import type { Store } from '../store/store.js';
import type { JobService } from './job-service.js';
import type { StoredJob } from './job-store.js';

/**
 * The periodic platform sync: one AUTO_IMPORT per account with autoImport on, so campaigns
 * created later at the platform are imported too (supplement 3). An account that already has one
 * queued or running gets no second.
 */
export async function queueAutoImports(db: Store, jobs: JobService, organizationId?: number): Promise<StoredJob[]> {
  const queued = await db.write('no-report-data', async (tx) => {
    const accounts = await tx.all<{ organizationId: number; id: number }>(
      organizationId === undefined
        ? 'SELECT organization_id AS "organizationId", id FROM accounts WHERE auto_import ORDER BY id'
        : 'SELECT organization_id AS "organizationId", id FROM accounts WHERE auto_import AND organization_id = $1 ORDER BY id',
      organizationId === undefined ? [] : [organizationId],
    );
    const pending = await tx.all<{ organizationId: number; input: string }>(
      `SELECT organization_id AS "organizationId", input FROM jobs WHERE type = 'AUTO_IMPORT' AND status IN ('QUEUED', 'RUNNING')`,
    );
    const busy = new Set(
      pending.map((job) => `${job.organizationId}:${(JSON.parse(job.input) as { accountId: number }).accountId}`),
    );
    const out: StoredJob[] = [];
    for (const account of accounts) {
      if (busy.has(`${account.organizationId}:${account.id}`)) continue;
      out.push(await jobs.enqueueIn(tx, account.organizationId, 'AUTO_IMPORT', { accountId: account.id }));
    }
    return out;
  });
  if (queued.length > 0) jobs.started();
  return queued;
}
