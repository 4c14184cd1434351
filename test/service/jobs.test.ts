import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { insertJob } from '../../src/jobs/job-store.js';
import { otherTenantToken } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
let auth: Record<string, string>;
let masterId: number;
beforeAll(async () => {
  server = await startTestServer({
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    jobs: { backoffBaseMs: 20, maxBackoffMs: 200 },
  });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  masterId = (await server.http.get('/provisioning/v0/adplatform-master-accounts', auth)).json
    .adPlatformMasterAccounts[0].id;
});
afterAll(() => server.close());
afterEach(() => server.service.platforms.clearFaults());

let counter = 0;
async function startCreateJob(): Promise<number> {
  const res = await server.http.request(
    'POST',
    `/provisioning/v0/adplatform-master-accounts/id/${masterId}/adplatform-accounts`,
    {
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        adPlatformAccount: { name: `Job test ${++counter}`, currency: 'USD', timeZone: 'America/New_York' },
      }),
    },
  );
  expect(res.status).toBe(202);
  return res.json.job.id;
}

describe('job lifecycle with platform faults', () => {
  it('retries transient failures with backoff, then succeeds; each failure is recorded', async () => {
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { failNext: 2 });
    const job = await waitForJob(server, token, await startCreateJob());
    expect(job.status).toBe('SUCCEEDED');
    expect(job.attempts).toBe(3);
    expect(job.errors.map((e: { code: string; attempt: number }) => [e.code, e.attempt])).toEqual([
      ['platform_unavailable', 1],
      ['platform_unavailable', 2],
    ]);
    expect(job.result.adPlatformAccount.adPlatformId).toEqual(expect.any(String));
  });

  it('retries after the platform throttles, honouring its retry-after', async () => {
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { throttleNext: 1 });
    const job = await waitForJob(server, token, await startCreateJob());
    expect(job.status).toBe('SUCCEEDED');
    expect(job.errors[0].code).toBe('platform_rate_limited');
    const gap = Date.parse(job.finishedAt) - Date.parse(job.errors[0].at);
    expect(gap).toBeGreaterThanOrEqual(900);
  });

  it('fails at once, with the platform reason, on a permanent failure', async () => {
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: true });
    const job = await waitForJob(server, token, await startCreateJob());
    expect(job.status).toBe('FAILED');
    expect(job.attempts).toBe(1);
    expect(job.result).toBeNull();
    expect(job.errors).toEqual([
      {
        code: 'platform_access_denied',
        message: expect.stringContaining('GOOGLE_ADS'),
        attempt: 1,
        at: expect.any(String),
      },
    ]);
  });

  it('gives up after five attempts', async () => {
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { failNext: 100 });
    const job = await waitForJob(server, token, await startCreateJob());
    expect(job.status).toBe('FAILED');
    expect(job.attempts).toBe(5);
    expect(job.errors).toHaveLength(5);
  });
});

describe('GET /provisioning/v0/jobs', () => {
  it('lists the jobs of the last seven days with filters and X-TotalCount', async () => {
    const failed = await server.http.get('/provisioning/v0/jobs?status=FAILED&type=CREATE_ADPLATFORM_ACCOUNT', auth);
    expect(failed.status).toBe(200);
    expect(failed.json.jobs.length).toBeGreaterThanOrEqual(2);
    expect(failed.json.jobs.every((j: { status: string }) => j.status === 'FAILED')).toBe(true);
    expect(failed.headers['x-totalcount']).toBe(String(failed.json.jobs.length));
    const ids = failed.json.jobs.map((j: { id: number }) => j.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it.each([
    ['?status=DONE', 'status'],
    ['?type=EXPORT', 'type'],
    ['?limit=500', 'limit'],
    ['?sort=id', 'sort'],
  ])('GET %s is a 400 naming %s', async (query, parameter) => {
    const res = await server.http.get(`/provisioning/v0/jobs${query}`, auth);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain(parameter);
  });

  it("answers 404 for another organization's job", async () => {
    const id = await startCreateJob();
    const theirs = { authorization: `Bearer ${await otherTenantToken(server)}` };
    expect((await server.http.get(`/provisioning/v0/jobs/id/${id}`, theirs)).status).toBe(404);
    expect((await server.http.get('/provisioning/v0/jobs', theirs)).json.jobs).toEqual([]);
  });
});

describe('retention', () => {
  it('hides jobs older than seven days at once and purges them', async () => {
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000);
    const old = await server.service.db.write('all-organizations', (tx) =>
      insertJob(tx, { organizationId: 1, type: 'SYNC_STATISTICS', input: {}, now: eightDaysAgo }),
    );
    await server.service.db.write('all-organizations', (tx) =>
      tx.run("UPDATE jobs SET status = 'SUCCEEDED' WHERE id = $1", [old.id]),
    );
    expect((await server.http.get(`/provisioning/v0/jobs/id/${old.id}`, auth)).status).toBe(404);
    const listed = (await server.http.get('/provisioning/v0/jobs?limit=100', auth)).json.jobs.map(
      (j: { id: number }) => j.id,
    );
    expect(listed).not.toContain(old.id);
    expect(await server.service.jobRunner.purge()).toBeGreaterThanOrEqual(1);
    const row = await server.service.db.read((r) => r.one('SELECT id FROM jobs WHERE id = $1', [old.id]));
    expect(row).toBeUndefined();
  });
});
