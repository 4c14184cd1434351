import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Report jobs (issue 24 item 1) through HTTPS on a generated database: the file is the GET export
 * of the same query byte for byte, ranges stitch back to it, every route is tenant-scoped, bad
 * input is refused before a job exists, the limits answer 429, and files expire after seven days.
 */

const BASE = '/reporting/v0/report-jobs';

interface Raw {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** GET with the bytes as sent (the helper client decodes text). */
function rawGet(url: string, ca: string | undefined, target: string, headers: Record<string, string>): Promise<Raw> {
  const base = new URL(url);
  return new Promise((resolve, reject) => {
    https
      .get({ host: base.hostname, port: base.port, path: target, ca, headers, servername: 'localhost' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest();

async function waitForReportJob(
  get: (target: string) => Promise<{ status: number; json: any }>,
  id: number,
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await get(`${BASE}/id/${id}`);
    if (res.status !== 200) throw new Error(`report job ${id}: ${res.status}`);
    const job = res.json.reportJob;
    if (job.status !== 'QUEUED' && job.status !== 'RUNNING') return job;
    if (Date.now() > deadline) throw new Error(`report job ${id} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('report jobs on a generated database', () => {
  let fx: ReportingFixture;
  let token: string;
  let other: string;
  let from: string;
  let to: string;
  const file = (target: string, headers: Record<string, string> = {}, bearer = token) =>
    rawGet(fx.service.url, fx.service.tls?.cert, target, { authorization: `Bearer ${bearer}`, ...headers });
  const post = (body: unknown, headers: Record<string, string> = {}, bearer = token) =>
    fx.http.request('POST', BASE, {
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const done = (id: number) => waitForReportJob((target) => fx.get(target, token), id);

  beforeAll(async () => {
    fx = await startReportingFixture({ world: 'small-2orgs-30d' });
    token = fx.orgs[0]!.token;
    other = fx.orgs[1]!.token;
    to = fx.yesterday;
    from = addDays(to, -29);
  });
  afterAll(() => fx.close());

  const query = () => ({ startDate: from, endDate: to, segments: 'Day' });

  it('writes the GET export of the same query, byte for byte, with its digest, ETag and rows (csv, ndjson)', async () => {
    for (const format of ['csv', 'ndjson'] as const) {
      const created = await post({ reportJob: { endpoint: 'keywords', query: query(), format } });
      expect(created.status).toBe(202);
      const id = created.json.reportJob.id as number;
      expect(created.headers.location).toBe(`${BASE}/id/${id}`);
      expect(created.json.reportJob).toMatchObject({ endpoint: 'keywords', format, startDate: from, endDate: to });
      const job = await done(id);
      expect(job.status).toBe('SUCCEEDED');
      expect(job.progress).toBe(1);

      const got = await file(`${BASE}/id/${id}/file`);
      const exported = await file(`/reporting/v0/keywords?${new URLSearchParams({ ...query(), format })}`);
      expect(exported.status).toBe(200);
      expect(got.status).toBe(200);
      expect(got.body.equals(exported.body)).toBe(true);
      expect(Number(got.headers['content-length'])).toBe(got.body.length);
      expect(job.bytes).toBe(got.body.length);
      const digest = sha256(got.body);
      expect(job.sha256).toBe(digest.toString('hex'));
      expect(got.headers.etag).toBe(`"${digest.toString('hex')}"`);
      expect(got.headers['repr-digest']).toBe(`sha-256=:${digest.toString('base64')}:`);
      expect(got.headers['accept-ranges']).toBe('bytes');
      expect(got.headers['content-disposition']).toBe(`attachment; filename="keywords_${from}_${to}.${format}"`);
      // Rows: what the JSON form counts for the same query.
      const counted = await fx.report('keywords', token, { ...query(), limit: 1 });
      expect(job.rows).toBe(Number(counted.headers['x-totalcount']));
      expect(job.rows).toBeGreaterThan(1000);
    }
  });

  it('serves byte ranges that stitch back into the whole file (parquet), 416 past the end, If-Range', async () => {
    const created = await post({ reportJob: { endpoint: 'keywords', query: query(), format: 'parquet' } });
    const id = created.json.reportJob.id as number;
    const job = await done(id);
    expect(job.status).toBe('SUCCEEDED');
    const whole = await file(`${BASE}/id/${id}/file`);
    expect(whole.body.subarray(0, 4).toString()).toBe('PAR1');
    const size = whole.body.length;
    const piece = Math.ceil(size / 5);
    const pieces: Buffer[] = [];
    for (let start = 0; start < size; start += piece) {
      const end = Math.min(size, start + piece) - 1;
      const part = await file(`${BASE}/id/${id}/file`, {
        range: `bytes=${start}-${end}`,
        'if-range': whole.headers.etag!,
      });
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
      expect(Number(part.headers['content-length'])).toBe(end - start + 1);
      pieces.push(part.body);
    }
    const stitched = Buffer.concat(pieces);
    expect(stitched.equals(whole.body)).toBe(true);
    expect(`sha-256=:${sha256(stitched).toString('base64')}:`).toBe(whole.headers['repr-digest']);
    expect(job.rows).toBe(
      Number((await fx.report('keywords', token, { ...query(), limit: 1 })).headers['x-totalcount']),
    );

    const suffix = await file(`${BASE}/id/${id}/file`, { range: 'bytes=-10' });
    expect(suffix.status).toBe(206);
    expect(suffix.body.equals(whole.body.subarray(size - 10))).toBe(true);
    const open = await file(`${BASE}/id/${id}/file`, { range: `bytes=${size - 100}-` });
    expect(open.body.equals(whole.body.subarray(size - 100))).toBe(true);
    const past = await file(`${BASE}/id/${id}/file`, { range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${size}`);
    // If-Range naming another file: the whole file, not the range.
    const stale = await file(`${BASE}/id/${id}/file`, { range: 'bytes=0-9', 'if-range': '"0000"' });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(size);
    // Several ranges are not served piecewise: the whole file.
    expect((await file(`${BASE}/id/${id}/file`, { range: 'bytes=0-1,5-6' })).status).toBe(200);
    expect((await file(`${BASE}/id/${id}/file`, { 'if-none-match': whole.headers.etag! })).status).toBe(304);
  });

  it("keeps every job to its organization: another organization's ids are 404 on every route", async () => {
    const created = await post({ reportJob: { endpoint: 'campaigns', query: query(), format: 'csv' } });
    const id = created.json.reportJob.id as number;
    expect((await done(id)).status).toBe('SUCCEEDED');
    expect((await fx.get(`${BASE}/id/${id}`, other)).status).toBe(404);
    expect((await file(`${BASE}/id/${id}/file`, {}, other)).status).toBe(404);
    expect(
      (await fx.http.request('DELETE', `${BASE}/id/${id}`, { headers: { authorization: `Bearer ${other}` } })).status,
    ).toBe(404);
    const theirs = await fx.get(BASE, other);
    expect(theirs.status).toBe(200);
    expect(theirs.json.reportJobs.map((j: { id: number }) => j.id)).not.toContain(id);
    const ours = await fx.get(`${BASE}?limit=100`, token);
    expect(ours.json.reportJobs.map((j: { id: number }) => j.id)).toContain(id);
    expect(Number(ours.headers['x-totalcount'])).toBe(ours.json.reportJobs.length);
    // Still there for its owner after the others' DELETE.
    expect((await file(`${BASE}/id/${id}/file`)).status).toBe(200);
    // Another organization's job in the event log stays its own too.
    const events = await fx.sql<{ n: number }>(
      `SELECT count(*)::INT AS n FROM events WHERE organization_id = $1 AND type = 'job.succeeded' AND json_extract_string(data, '$.job.id')::BIGINT = $2 AND json_extract_string(data, '$.job.kind') = 'REPORT'`,
      [fx.orgs[0]!.id, id],
    );
    expect(events[0]!.n).toBe(1);
  });

  it("refuses bad input before a job exists, with the GET's own 400s", async () => {
    const before = Number((await fx.get(BASE, token)).headers['x-totalcount']);
    const bad: Array<[Record<string, string | string[]>, string]> = [
      [{ limt: '10' }, 'limt=10'],
      [{ statistics: 'clicks,nonsense' }, 'statistics=clicks,nonsense'],
      [{ startDate: '2026-02-30' }, 'startDate=2026-02-30'],
      [{ filter: 'clicks >' }, 'filter=clicks%20%3E'],
      [{ startDate: ['2026-01-01', '2026-01-02'] }, 'startDate=2026-01-01&startDate=2026-01-02'],
    ];
    for (const [q, url] of bad) {
      const res = await post({ reportJob: { endpoint: 'keywords', query: q, format: 'csv' } });
      const get = await fx.get(`/reporting/v0/keywords?format=csv&${url}`, token);
      expect(get.status).toBe(400);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe(get.json.error.code);
      expect(res.json.error.message).toBe(get.json.error.message);
    }
    const format = await post({ reportJob: { endpoint: 'keywords', query: { format: 'csv' }, format: 'csv' } });
    expect(format.status).toBe(400);
    expect((await post({ reportJob: { endpoint: 'nope', query: {}, format: 'csv' } })).status).toBe(422);
    // The README's one exception: the campaign-label endpoint's name is in its path, which a job does not take.
    const labels = await post({
      reportJob: { endpoint: 'accounts/campaign-labels/name/team', query: {}, format: 'csv' },
    });
    expect(labels.status).toBe(422);
    expect(labels.json.error.details[0].field).toMatch(/endpoint/);
    expect((await post({ reportJob: { endpoint: 'keywords', query: {}, format: 'xlsx' } })).status).toBe(422);
    expect((await post({ job: {} })).status).toBe(400);
    expect((await fx.get(`${BASE}/id/abc`, token)).status).toBe(400);
    expect((await file(`${BASE}/id/abc/file`)).status).toBe(400);
    expect((await fx.get(`${BASE}?status=DONE`, token)).status).toBe(400);
    expect(Number((await fx.get(BASE, token)).headers['x-totalcount'])).toBe(before);
  });

  it('honours Idempotency-Key: the same body is the same job, another body 422', async () => {
    const body = { reportJob: { endpoint: 'accounts', query: query(), format: 'ndjson' } };
    const first = await post(body, { 'idempotency-key': 'connector-run-1' });
    const again = await post(body, { 'idempotency-key': 'connector-run-1' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.json.reportJob.id).toBe(first.json.reportJob.id);
    const changed = await post(
      { reportJob: { ...body.reportJob, format: 'csv' } },
      { 'idempotency-key': 'connector-run-1' },
    );
    expect(changed.status).toBe(422);
    expect(changed.json.error.code).toBe('idempotency_key_reused');
  });

  it('409 for the file of a job not yet SUCCEEDED; DELETE removes the job and its file', async () => {
    await fx.service.reportJobRunner.stop(0);
    try {
      const queued = await post({ reportJob: { endpoint: 'accounts', query: query(), format: 'csv' } });
      const id = queued.json.reportJob.id as number;
      expect(queued.json.reportJob.status).toBe('QUEUED');
      const early = await file(`${BASE}/id/${id}/file`);
      expect(early.status).toBe(409);
      expect(JSON.parse(early.body.toString()).error.code).toBe('report_job_not_ready');
    } finally {
      await fx.service.reportJobRunner.start();
    }
    const created = await post({ reportJob: { endpoint: 'accounts', query: query(), format: 'csv' } });
    const id = created.json.reportJob.id as number;
    expect((await done(id)).status).toBe('SUCCEEDED');
    const stored = path.join(fx.dir, 'report-files', String(fx.orgs[0]!.id), `${id}.csv`);
    expect(fs.existsSync(stored)).toBe(true);
    const deleted = await fx.http.request('DELETE', `${BASE}/id/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(204);
    expect(fs.existsSync(stored)).toBe(false);
    expect((await fx.get(`${BASE}/id/${id}`, token)).status).toBe(404);
    expect((await file(`${BASE}/id/${id}/file`)).status).toBe(404);
  });
});

describe('report job limits (ADREPORT_REPORT_FILES_MB=1, 3 unfinished jobs)', () => {
  let fx: ReportingFixture;
  let token: string;
  const post = (body: unknown) =>
    fx.http.request('POST', BASE, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const done = (id: number) => waitForReportJob((target) => fx.get(target, token), id);
  const QUOTA = 2 ** 20;

  beforeAll(async () => {
    fx = await startReportingFixture({
      world: 'small-2orgs-30d',
      service: { reportJobs: { filesMb: 1, maxUnfinishedPerOrganization: 3 } },
    });
    token = fx.orgs[0]!.token;
  });
  afterAll(() => fx.close());

  it('429 beyond the unfinished jobs an organization may have; the queued ones run once the runner goes on', async () => {
    const body = { reportJob: { endpoint: 'accounts', query: { segments: 'Day' }, format: 'csv' } };
    await fx.service.reportJobRunner.stop(0);
    const ids: number[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const res = await post(body);
        expect(res.status).toBe(202);
        ids.push(res.json.reportJob.id);
      }
      const refused = await post(body);
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe('too_many_report_jobs');
      expect(refused.headers['retry-after']).toBeDefined();
    } finally {
      await fx.service.reportJobRunner.start();
    }
    for (const id of ids) expect((await done(id)).status).toBe('SUCCEEDED');
  });

  it('a file larger than the quota fails; once stored files reach it, a POST is 429 until one is deleted', async () => {
    const to = fx.yesterday;
    const sizeOf = async (q: Record<string, string>) =>
      (
        await rawGet(
          fx.service.url,
          fx.service.tls?.cert,
          `/reporting/v0/keywords?${new URLSearchParams({ ...q, format: 'csv' })}`,
          { authorization: `Bearer ${token}` },
        )
      ).body.length;
    const big = { startDate: addDays(to, -29), endDate: to, segments: 'Day' };
    const half = { startDate: addDays(to, -17), endDate: to, segments: 'Day' };
    // Preconditions from the GET export itself: the big file exceeds 1 MiB, two halves together too, one does not.
    expect(await sizeOf(big)).toBeGreaterThan(QUOTA);
    const halfSize = await sizeOf(half);
    expect(halfSize).toBeLessThan(QUOTA);
    expect(2 * halfSize).toBeGreaterThanOrEqual(QUOTA);

    const tooBig = await post({ reportJob: { endpoint: 'keywords', query: big, format: 'csv' } });
    const failed = await done(tooBig.json.reportJob.id);
    expect(failed.status).toBe('FAILED');
    expect(failed.error.code).toBe('report_files_quota_exceeded');
    expect(
      fs
        .readdirSync(path.join(fx.dir, 'report-files', String(fx.orgs[0]!.id)))
        .filter((n) => n.startsWith(`${failed.id}.`)),
    ).toEqual([]);

    const kept: number[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await post({ reportJob: { endpoint: 'keywords', query: half, format: 'csv' } });
      expect(res.status).toBe(202);
      const job = await done(res.json.reportJob.id);
      expect(job.status).toBe('SUCCEEDED');
      kept.push(job.id);
    }
    const refused = await post({ reportJob: { endpoint: 'keywords', query: half, format: 'csv' } });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('report_files_quota_exceeded');
    const deleted = await fx.http.request('DELETE', `${BASE}/id/${kept[0]}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(204);
    expect((await post({ reportJob: { endpoint: 'accounts', query: {}, format: 'csv' } })).status).toBe(202);
  });
});

describe('report job retention (seven days, clock control)', () => {
  let server: TestServer;
  let offset = 0;
  const DAY = 24 * 3600_000;

  beforeAll(async () => {
    server = await startTestServer({}, { nowMs: () => Date.now() + offset });
  });
  afterAll(() => server.close());

  it('expires a job seven days after its creation: EXPIRED, its file deleted (410), gone from the list', async () => {
    let token = await server.token();
    const auth = () => ({ authorization: `Bearer ${token}` });
    const created = await server.http.request('POST', BASE, {
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({
        reportJob: { endpoint: 'accounts', query: { startDate: '2025-01-01', endDate: '2025-01-02' }, format: 'csv' },
      }),
    });
    expect(created.status).toBe(202);
    const id = created.json.reportJob.id as number;
    const job = await waitForReportJob((target) => server.http.get(target, auth()), id);
    expect(job.status).toBe('SUCCEEDED');
    expect(Date.parse(job.expiresAt) - Date.parse(job.createdAt)).toBe(7 * DAY);
    const organizationId = (server.service.demo as { organization: { id: number } }).organization.id;
    const stored = path.join(server.dir, 'report-files', String(organizationId), `${id}.csv`);
    expect(fs.existsSync(stored)).toBe(true);

    offset = 7 * DAY - 60_000;
    token = await server.token();
    expect((await server.http.get(`${BASE}/id/${id}`, auth())).json.reportJob.status).toBe('SUCCEEDED');
    expect((await server.http.get(`${BASE}/id/${id}/file`, auth())).status).toBe(200);

    offset = 7 * DAY + 60_000;
    token = await server.token();
    expect((await server.http.get(`${BASE}/id/${id}`, auth())).json.reportJob.status).toBe('EXPIRED');
    const gone = await server.http.get(`${BASE}/id/${id}/file`, auth());
    expect(gone.status).toBe(410);
    expect(gone.json.error.code).toBe('report_job_expired');
    expect(fs.existsSync(stored)).toBe(false);
    const list = await server.http.get(BASE, auth());
    expect(list.json.reportJobs.map((j: { id: number }) => j.id)).not.toContain(id);
  });
});
