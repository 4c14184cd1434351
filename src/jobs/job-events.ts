import { recordEvent } from '../events/event-log.js';
import { toJobResponse } from '../provisioning/job-queue.js';
import type { Executor } from '../store/database.js';
import { finishJob, getJob, type StoredJob } from './job-store.js';
import type { JobError, JobStatus, JsonObject } from './job-types.js';

/**
 * Ends a job and records job.succeeded / job.failed in the same transaction (webhooks deliver it):
 * `data.job` is the job as GET /provisioning/v0/jobs/id/{id} shows it, with `kind: 'PROVISIONING'`
 * (report jobs say `kind: 'REPORT'`). PARTIALLY_SUCCEEDED counts as succeeded; `status` tells.
 */
export async function finishJobWithEvent(
  tx: Executor,
  job: StoredJob,
  outcome: { status: JobStatus; result: JsonObject | null; errors: JobError[]; now: Date },
): Promise<void> {
  await finishJob(tx, job.id, outcome);
  const finished = (await getJob(tx, job.organizationId, job.id, new Date(0)))!;
  await recordEvent(tx, {
    organizationId: job.organizationId,
    type: outcome.status === 'FAILED' ? 'job.failed' : 'job.succeeded',
    data: { job: { kind: 'PROVISIONING', ...toJobResponse(finished) } },
    occurredAt: outcome.now,
  });
}
