import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/*
 * Issue 36 item 12: the report-file quota was checked against stored files only, so a burst of
 * POSTs made while nothing was stored yet was all admitted and ended at twice the quota. Queued
 * and running jobs now count with their estimated size (the organization's own bytes per row of
 * that endpoint and format, times the rows of the query).
 */
const BASE = '/reporting/v0/report-jobs';
const QUOTA = 2 ** 20;

let fx: ReportingFixture;
let token: string;
beforeAll(async () => {
  fx = await startReportingFixture({
    world: 'small-2orgs-30d',
    service: { reportJobs: { filesMb: 1, maxUnfinishedPerOrganization: 10 } },
  });
  token = fx.orgs[0]!.token;
});
afterAll(() => fx.close());

const post = (body: unknown) =>
  fx.http.request('POST', BASE, {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const jobCount = async () => Number((await fx.get(`${BASE}?limit=1`, token)).headers['x-totalcount']);

async function finished(id: number): Promise<any> {
  for (;;) {
    const job = (await fx.get(`${BASE}/id/${id}`, token)).json.reportJob;
    if (job.status !== 'QUEUED' && job.status !== 'RUNNING') return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the report-file quota counts queued jobs', () => {
  it('refuses a burst once stored files and the estimates of queued jobs reach the quota', async () => {
    const to = fx.yesterday;
    const half = { startDate: addDays(to, -17), endDate: to, segments: 'Day' };
    const body = { reportJob: { endpoint: 'keywords', query: half, format: 'csv' } };
    // One such file, finished and kept: its size (and so the organization's bytes per row) is known.
    const first = await finished((await post(body)).json.reportJob.id);
    expect(first.status).toBe('SUCCEEDED');
    const size = first.bytes as number;
    // Preconditions: one file is under the quota, two reach it.
    expect(size).toBeLessThan(QUOTA);
    expect(2 * size).toBeGreaterThanOrEqual(QUOTA);

    // The burst, with the runner held so that nothing is stored meanwhile (the case of the issue).
    await fx.service.reportJobRunner.stop(0);
    const accepted: number[] = [];
    let refused;
    try {
      for (let i = 0; i < 10 && !refused; i++) {
        const res = await post(body);
        if (res.status === 202) accepted.push(res.json.reportJob.id);
        else refused = res;
      }
      // One file stored, under the quota: one more is admitted (before, all ten were); its estimate
      // (this organization's bytes per row of keywords CSV, times the rows) brings the sum to the quota.
      expect(accepted).toHaveLength(1);
      expect(refused?.status).toBe(429);
      expect(refused?.json.error).toMatchObject({ code: 'report_files_quota_exceeded' });
      expect(refused?.json.error.message).toContain(
        `take ${size} bytes and its queued or running report jobs (1) an estimated`,
      );
      // The refused POST left no job behind.
      expect(await jobCount()).toBe(2);
    } finally {
      await fx.service.reportJobRunner.start();
    }
    // The admitted job finishes (past the quota by less than one file, never by the burst).
    const done = await finished(accepted[0]!);
    expect(done.status).toBe('SUCCEEDED');
    expect(size + (done.bytes as number)).toBeLessThan(QUOTA + size);
    // Once files are stored, a POST is refused on them alone.
    expect((await post(body)).status).toBe(429);
  });
});
