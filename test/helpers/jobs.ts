import type { TestServer } from './server.js';

/** Polls a job until it reaches one of the given statuses (or the deadline passes). */
export async function waitForJob(
  server: TestServer,
  token: string,
  id: number,
  statuses: string[] = ['SUCCEEDED', 'PARTIALLY_SUCCEEDED', 'FAILED'],
  timeoutMs = 120_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.http.get(`/provisioning/v0/jobs/id/${id}`, { authorization: `Bearer ${token}` });
    if (res.status !== 200) throw new Error(`job ${id}: ${res.status} ${res.text}`);
    if (statuses.includes(res.json.job.status)) return res.json.job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${res.json.job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until every job of the organization has ended (imports queue backfills while they run). */
export async function waitForIdleJobs(server: TestServer, token: string, timeoutMs = 120_000): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  for (let round = 0; round < 600; round++) {
    const jobs = (await server.http.get('/provisioning/v0/jobs?limit=100', auth)).json.jobs as Array<{
      id: number;
      status: string;
    }>;
    const pending = jobs.filter((job) => job.status === 'QUEUED' || job.status === 'RUNNING');
    if (jobs.length > 0 && pending.length === 0) return;
    if (pending[0]) await waitForJob(server, token, pending[0].id, undefined, timeoutMs);
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
