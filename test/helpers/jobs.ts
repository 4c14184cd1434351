import type { TestServer } from './server.js';

/** Polls a job until it reaches one of the given statuses (or the deadline passes). */
export async function waitForJob(server: TestServer, token: string, id: number, statuses: string[] = ['SUCCEEDED', 'PARTIALLY_SUCCEEDED', 'FAILED'], timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await server.http.get(`/provisioning/v0/jobs/id/${id}`, { authorization: `Bearer ${token}` });
    if (res.status !== 200) throw new Error(`job ${id}: ${res.status} ${res.text}`);
    if (statuses.includes(res.json.job.status)) return res.json.job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${res.json.job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
