import https from 'node:https';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { queueTrailingSyncs } from '../../src/jobs/statistics-sync-queue.js';
import { startService } from '../../src/main.js';
import { importFxRates } from '../../src/reference/fx-import.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import type { SqlValue } from '../../src/store/sql-values.js';
import type { Executor } from '../../src/store/database.js';
import { createAccount, jsonRequest, linkedGoogleAccount, otherTenantToken } from '../helpers/accounts.js';
import { basic, FORM, HttpClient, type HttpResponse } from '../helpers/http.js';
import { waitForIdleJobs, waitForJob } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/*
 * Issue 21 item 3: ETag / If-None-Match / 304 and the page cache, on a real server over HTTPS
 * with a real DuckDB file. Every kind of write a report reads changes the ETag and the answer,
 * and the new answer is checked against the stored data (plain SQL), not just "different".
 */
const P = '/provisioning/v0';
let server: TestServer;
let token: string;
let otherToken: string;
let accountId: number;
let platformAccountId: number;
let adPlatformId: string;
let campaignId: number;
let available: Array<{ adPlatformId: string; status: string }>;
const today = isoDate(new Date());
const from = addDays(today, -29);
const range = `startDate=${from}&endDate=${today}`;

const get = (pathAndQuery: string, headers: Record<string, string> = {}, as = token) =>
  server.http.get(pathAndQuery, { authorization: `Bearer ${as}`, ...headers });
const sql = <T extends object>(text: string, params: SqlValue[] = []) =>
  server.service.db.read((r) => r.all<T>(text, params));
const etagOf = (res: HttpResponse) => String(res.headers.etag);

/**
 * Records the report statements the service runs, by wrapping the real store's read (they still
 * run). Background work (the job runner's poll) reads too: only statements over report tables count.
 */
function countReads(): { count: () => number; stop: () => void } {
  const db = server.service.db;
  const REPORT_TABLES = /fact_|rollup_|call_details|markups|report_rows/;
  let reads = 0;
  const spied = (r: Executor): Executor => {
    const seen = (sqlText: string) => void (REPORT_TABLES.test(sqlText) && reads++);
    return {
      ...r,
      all: (q, p) => (seen(q), r.all(q, p)),
      one: (q, p) => (seen(q), r.one(q, p)),
      lazy: (q, p) => (seen(q), r.lazy(q, p)),
      run: (q, p) => (seen(q), r.run(q, p)),
      append: (t, c) => r.append(t, c),
      runOnce: (q, p) => (seen(q), r.runOnce(q, p)),
      interrupt: () => r.interrupt(),
    };
  };
  // Every lane a report statement may take: the cheap one, the report lane, the exports'.
  const read = db.read.bind(db);
  const readReport = db.readReport.bind(db);
  const readExport = db.readExport.bind(db);
  db.read = ((work) => read((r) => work(spied(r)))) as typeof db.read;
  db.readReport = ((ticket, work) => readReport(ticket, (r) => work(spied(r)))) as typeof db.readReport;
  db.readExport = ((org, work) => readExport(org, (r) => work(spied(r)))) as typeof db.readExport;
  return {
    count: () => reads,
    stop: () => {
      db.read = read;
      db.readReport = readReport;
      db.readExport = readExport;
    },
  };
}

async function importCampaign(adPlatformId: string, group: string): Promise<number> {
  const res = await jsonRequest(server, token, 'POST', `${P}/adplatform-accounts/id/${platformAccountId}/campaigns`, {
    campaign: { adPlatformId, campaignGroup: group },
  });
  expect(res.status).toBe(202);
  const job = await waitForJob(server, token, res.json.job.id, undefined, 60_000);
  await waitForIdleJobs(server, token);
  return job.result.campaign.id as number;
}

beforeAll(async () => {
  server = await startTestServer({
    rateLimit: { ratePerSecond: 100_000, burst: 100_000 },
    statistics: { backfillDays: 10, trailingDays: 30 },
    jobs: { pollMs: 100 },
  });
  token = await server.token();
  ({ accountId, platformAccountId, adPlatformId } = await linkedGoogleAccount(server, token, 'Conditional'));
  available = (await get(`${P}/adplatform-accounts/id/${platformAccountId}/available-campaigns`)).json.campaigns;
  available = available.filter((c) => c.status !== 'REMOVED');
  campaignId = await importCampaign(available[0]!.adPlatformId, 'Cond');
  otherToken = await otherTenantToken(server);
  await createAccount(server, otherToken, { name: 'Theirs' });
}, 300_000);
afterAll(() => server.close());

describe('ETag and If-None-Match on report answers', () => {
  const url = `/reporting/v0/campaigns?${range}&statistics=clicks,impressions`;

  it('a 200 carries a weak ETag, Cache-Control: private, no-cache and X-Cache; a repeat is a cache hit with the same bytes', async () => {
    const first = await get(`${url}&limit=7`);
    expect(first.status).toBe(200);
    expect(etagOf(first)).toMatch(/^W\/"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.headers['x-cache']).toBe('miss');
    const reads = countReads();
    try {
      const second = await get(`${url}&limit=7`);
      expect(second.headers['x-cache']).toBe('hit');
      expect(reads.count()).toBe(0);
      expect(second.text).toBe(first.text);
      expect(etagOf(second)).toBe(etagOf(first));
      expect(second.headers['x-totalcount']).toBe(first.headers['x-totalcount']);
      expect(second.headers['content-type']).toBe(first.headers['content-type']);
      // The spy sees a miss's queries (so its zero above means something).
      expect((await get(`${url}&limit=8`)).headers['x-cache']).toBe('miss');
      expect(reads.count()).toBeGreaterThan(0);
    } finally {
      reads.stop();
    }
  });

  it('a hit in gzip or br: the same page, compressed once and kept (the same bytes again), Vary: Accept-Encoding', async () => {
    const target = `/reporting/v0/keywords?${range}&statistics=clicks,impressions&limit=50`;
    const identity = await get(target);
    expect(Number(identity.headers['content-length'])).toBeGreaterThan(1024);
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = https.get(
          `${server.service.url}${target}`,
          {
            ca: server.service.tls?.cert,
            servername: 'localhost',
            headers: { authorization: `Bearer ${token}`, 'accept-encoding': encoding },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject);
      });
    for (const [encoding, decode] of [
      ['gzip', zlib.gunzipSync],
      ['br', zlib.brotliDecompressSync],
    ] as const) {
      const first = await raw(encoding);
      const second = await raw(encoding);
      for (const answer of [first, second]) {
        expect(answer.headers['x-cache']).toBe('hit');
        expect(answer.headers['content-encoding']).toBe(encoding);
        expect(answer.headers.vary).toBe('Accept, Accept-Encoding');
        expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
        expect(answer.headers.etag).toBe(identity.headers.etag);
        expect(decode(answer.body).toString('utf8')).toBe(identity.text);
      }
      expect(second.body.equals(first.body)).toBe(true);
    }
  });

  it('If-None-Match naming the current ETag: 304 with the ETag and no body, without running a query', async () => {
    const first = await get(url);
    const etag = etagOf(first);
    const reads = countReads();
    try {
      for (const header of [etag, etag.slice(2), `"x", ${etag}`, `${etag} , "y"`, '*', `W/"a",W/"b", ${etag}`]) {
        const res = await get(url, { 'if-none-match': header });
        expect(res.status, header).toBe(304);
        expect(res.text).toBe('');
        expect(etagOf(res)).toBe(etag);
        expect(res.headers['cache-control']).toBe('private, no-cache');
        expect(res.headers.vary).toMatch(/Accept-Encoding/);
      }
      expect(reads.count()).toBe(0);
    } finally {
      reads.stop();
    }
  });

  it('If-None-Match naming other tags, or garbage: 200 with the body', async () => {
    const first = await get(url);
    // The tag with its last character changed (to another one: base64url tags may end in "-").
    const near = etagOf(first).replace(/(.)"$/, (_, last: string) => `${last === 'A' ? 'B' : 'A'}"`);
    expect(near).not.toBe(etagOf(first));
    for (const header of ['"nope"', 'W/"nope", "other"', 'garbage', '""', near]) {
      const res = await get(url, { 'if-none-match': header });
      expect(res.status, header).toBe(200);
      expect(res.text).toBe(first.text);
    }
  });

  it('an invalid request stays a 400 whatever If-None-Match says', async () => {
    const res = await get(`/reporting/v0/campaigns?filter=nope==1`, { 'if-none-match': '*' });
    expect(res.status).toBe(400);
  });

  it('the ETag names the request: another page, statistic or format has another; one request spelled differently has one', async () => {
    const base = etagOf(await get(url));
    expect(etagOf(await get(`${url}&offset=1`))).not.toBe(base);
    expect(etagOf(await get(`/reporting/v0/campaigns?${range}&statistics=clicks`))).not.toBe(base);
    // The same request with its parameters in another order and the default limit spelled out: the same plan.
    expect(etagOf(await get(`/reporting/v0/campaigns?statistics=clicks,impressions&limit=100&${range}`))).toBe(base);
    const csv = await get(`${url}&format=csv`);
    expect(csv.status).toBe(200);
    expect(etagOf(csv)).not.toBe(base);
    expect(csv.headers['x-cache']).toBeUndefined();
    expect((await get(`${url}&format=csv`, { 'if-none-match': etagOf(csv) })).status).toBe(304);
    expect((await get(`${url}&format=csv`, { 'if-none-match': base })).status).toBe(200);
    // The content coding is no part of it (a weak tag): gzip and identity share the tag.
    expect(etagOf(await get(url, { 'accept-encoding': 'gzip' }))).toBe(base);
    expect(etagOf(await get(`${url}&format=csv`, { 'accept-encoding': 'gzip' }))).toBe(etagOf(csv));
  });

  it('every report answer has one: the six levels, the platform endpoints, campaign labels, call details, markups, every export format', async () => {
    const paths = [
      'accounts',
      'adplatform-accounts',
      'campaigns',
      'adgroups',
      'keywords',
      'ads',
      'adplatform-accounts/facebook',
      'campaigns/facebook',
      'ads/facebook',
      'adplatform-accounts/google-ads',
      'accounts/campaign-labels/name/campaignGroup',
    ];
    for (const p of paths) {
      const first = await get(`/reporting/v0/${p}?${range}`);
      expect(first.status, p).toBe(200);
      expect((await get(`/reporting/v0/${p}?${range}`, { 'if-none-match': etagOf(first) })).status, p).toBe(304);
      for (const format of ['csv', 'ndjson', 'parquet']) {
        const exported = await get(`/reporting/v0/${p}?${range}&format=${format}`);
        expect(exported.status, `${p} ${format}`).toBe(200);
        const again = await get(`/reporting/v0/${p}?${range}&format=${format}`, { 'if-none-match': etagOf(exported) });
        expect(again.status, `${p} ${format}`).toBe(304);
      }
    }
    for (const p of [`call-details?${range}`, 'markups']) {
      const first = await get(`/reporting/v0/${p}`);
      expect(first.status, p).toBe(200);
      expect(first.headers['cache-control']).toBe('private, no-cache');
      expect((await get(`/reporting/v0/${p}`, { 'if-none-match': etagOf(first) })).status, p).toBe(304);
      expect((await get(`/reporting/v0/${p}`)).headers['x-cache'], p).toBe('hit');
    }
  });
});

describe('the OpenAPI document', () => {
  it('shows every report operation with If-None-Match, its 304, and ETag, Cache-Control, X-Cache and X-Report-Engine on the 200', async () => {
    const doc = (await server.http.get('/openapi.json')).json;
    const operations = Object.entries(doc.paths as Record<string, { get?: any }>).filter(
      // Not reports: the catalogue, the change feed (each answer holds a fresh cursor, so no 304),
      // report jobs (resources of their own; their files have a strong ETag from their sha256) and
      // saved views (resources that name a report, issue 43).
      ([p]) =>
        p.startsWith('/reporting/v0/') &&
        p !== '/reporting/v0/fields' &&
        p !== '/reporting/v0/changes' &&
        !p.startsWith('/reporting/v0/report-jobs') &&
        !p.startsWith('/reporting/v0/views'),
    );
    // Seven levels (search terms: issue 40), four platform endpoints, campaign labels, markups, call details.
    expect(operations.length).toBe(14);
    for (const [p, item] of operations) {
      const parameters = item.get.parameters.filter((x: any) => x.in === 'header').map((x: any) => x.name);
      expect(parameters, p).toEqual(['If-None-Match']);
      // Statistics reports also name their resolved range (issue 23), on the 304 too.
      const range =
        p === '/reporting/v0/markups' || p === '/reporting/v0/call-details' ? [] : ['X-Start-Date', 'X-End-Date'];
      expect(Object.keys(item.get.responses['304'].headers), p).toEqual([
        'ETag',
        'Cache-Control',
        'X-Report-Engine',
        'Vary',
        ...range,
      ]);
      expect(item.get.responses['304'].content, p).toBeUndefined();
      expect(Object.keys(item.get.responses['200'].headers), p).toEqual(
        expect.arrayContaining(['ETag', 'Cache-Control', 'X-Cache', 'X-Report-Engine']),
      );
    }
  });
});

/** A report, and its answer again under the old ETag: a 200 with a new ETag after a write. */
async function changed(pathAndQuery: string, before: HttpResponse): Promise<HttpResponse> {
  const after = await get(pathAndQuery, { 'if-none-match': etagOf(before) });
  expect(after.status).toBe(200);
  expect(after.headers['x-cache']).toBe('miss');
  expect(etagOf(after)).not.toBe(etagOf(before));
  return after;
}

describe('every kind of write a report reads changes the ETag and the answer', () => {
  it('statistics sync (facts): the trailing sync fills the days the 10-day backfill left out', async () => {
    const url = `/reporting/v0/campaigns?${range}&statistics=clicks,impressions&filter=id==${campaignId}`;
    const stored = async () =>
      (
        await sql<{ clicks: number; impressions: number }>(
          `SELECT coalesce(sum(clicks), 0)::DOUBLE AS clicks, coalesce(sum(impressions), 0)::DOUBLE AS impressions
             FROM fact_ad_daily WHERE organization_id = 1 AND campaign_id = $1 AND day BETWEEN $2::DATE AND $3::DATE`,
          [campaignId, from, today],
        )
      )[0]!;
    const before = await get(url);
    const was = await stored();
    expect(before.json.campaigns[0].statistics).toEqual(was);
    const [job] = await queueTrailingSyncs(server.service.db, server.service.jobs, new Date(), 30, 1);
    await waitForJob(server, token, job!.id, undefined, 60_000);
    const now = await stored();
    expect(now.impressions).toBeGreaterThan(was.impressions);
    const after = await changed(url, before);
    expect(after.json.campaigns[0].statistics).toEqual(now);
  }, 300_000);

  it('account rename and custom field (PATCH)', async () => {
    const url = `/reporting/v0/accounts?${range}&filter=id==${accountId}&embed=customFields`;
    const before = await get(url);
    expect(before.json.accounts[0].name).toBe('Conditional');
    const patched = await jsonRequest(
      server,
      token,
      'PATCH',
      `${P}/accounts/id/${accountId}`,
      { account: { name: 'Renamed', field1: 'blue' } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    const after = await changed(url, before);
    const [stored] = await sql<{ name: string; field1: string }>('SELECT name, field1 FROM accounts WHERE id = $1', [
      accountId,
    ]);
    expect(after.json.accounts[0].name).toBe(stored!.name);
    expect(after.json.accounts[0].customFields.field1).toBe(stored!.field1);
    expect(stored).toEqual({ name: 'Renamed', field1: 'blue' });
  });

  it('campaign labels (PUT)', async () => {
    const url = `/reporting/v0/campaigns?${range}&filter=${encodeURIComponent("labels.tier == 'gold'")}&statistics=clicks`;
    const before = await get(url);
    expect(before.json.campaigns).toEqual([]);
    const put = await jsonRequest(server, token, 'PUT', `${P}/campaigns/id/${campaignId}/labels`, {
      labels: { tier: 'gold' },
    });
    expect(put.status).toBe(200);
    const after = await changed(url, before);
    const labelled = await sql<{ id: number }>(
      "SELECT campaign_id AS id FROM campaign_labels WHERE name = 'tier' AND value = 'gold'",
    );
    expect(after.json.campaigns.map((c: { id: number }) => c.id)).toEqual(labelled.map((r) => r.id));
    expect(labelled.map((r) => r.id)).toEqual([campaignId]);
  });

  it('unlink and link (the account statistics follow its platform accounts)', async () => {
    const url = `/reporting/v0/accounts?${range}&filter=id==${accountId}&statistics=impressions`;
    const linkedSum = async () =>
      (
        await sql<{ n: number }>(
          `SELECT coalesce(sum(f.impressions), 0)::DOUBLE AS n FROM fact_ad_daily f
             JOIN account_adplatform_links l ON l.adplatform_account_id = f.adplatform_account_id AND l.account_id = $1
            WHERE f.day BETWEEN $2::DATE AND $3::DATE`,
          [accountId, from, today],
        )
      )[0]!.n;
    const before = await get(url);
    const linked = await linkedSum();
    expect(linked).toBeGreaterThan(0);
    expect(before.json.accounts[0].statistics.impressions).toBe(linked);
    const removed = await server.http.request(
      'DELETE',
      `${P}/accounts/id/${accountId}/adplatform-accounts/id/${platformAccountId}`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(removed.status).toBe(204);
    const unlinked = await changed(url, before);
    expect(await linkedSum()).toBe(0);
    expect(unlinked.json.accounts[0].statistics.impressions ?? 0).toBe(0);
    const relinked = await jsonRequest(server, token, 'POST', `${P}/accounts/id/${accountId}/adplatform-accounts`, {
      adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId },
    });
    expect(relinked.status).toBe(201);
    const after = await changed(url, unlinked);
    expect(after.json.accounts[0].statistics.impressions).toBe(await linkedSum());
    expect(etagOf(after)).not.toBe(etagOf(before));
  });

  it('campaign tree (a campaign imported with its ad groups)', async () => {
    const url = `/reporting/v0/adgroups?${range}&filter=adPlatformAccountId==${platformAccountId}&limit=1000`;
    const before = await get(url);
    const second = await importCampaign(available[1]!.adPlatformId, 'Second');
    const after = await changed(url, before);
    const groups = await sql<{ id: number }>(
      'SELECT id FROM ad_groups WHERE organization_id = 1 AND campaign_id = $1 ORDER BY id',
      [second],
    );
    expect(groups.length).toBeGreaterThan(0);
    const ids = new Set(after.json.adGroups.map((g: { id: number }) => g.id));
    for (const g of groups) expect(ids.has(g.id)).toBe(true);
    expect(after.json.adGroups.length).toBe(before.json.adGroups.length + groups.length);
  }, 300_000);

  it('markup (POST): the listing and costWithMarkup', async () => {
    const url = `/reporting/v0/accounts?${range}&filter=id==${accountId}&statistics=cost,costWithMarkup`;
    const before = await get(url);
    const listing = await get('/reporting/v0/markups');
    const { cost } = before.json.accounts[0].statistics;
    expect(cost).toBeGreaterThan(0);
    expect(before.json.accounts[0].statistics.costWithMarkup).toBe(cost);
    const created = await jsonRequest(server, token, 'POST', `${P}/accounts/id/${accountId}/markups`, {
      markup: { rate: 0.25, startDate: addDays(from, -1) },
    });
    expect(created.status).toBe(201);
    const after = await changed(url, before);
    expect(after.json.accounts[0].statistics.costWithMarkup).toBeCloseTo(cost * 1.25, 6);
    const listed = await changed('/reporting/v0/markups', listing);
    const [stored] = await sql<{ id: number; rate: number }>(
      'SELECT id, rate::DOUBLE AS rate FROM markups WHERE account_id = $1',
      [accountId],
    );
    expect(listed.json.markups.map((m: { id: number; rate: number }) => [m.id, m.rate])).toEqual([
      [stored!.id, stored!.rate],
    ]);
  });

  it('FX import: money converted at the imported rates', async () => {
    const [{ currency }] = (await sql<{ currency: string }>('SELECT currency FROM adplatform_accounts WHERE id = $1', [
      platformAccountId,
    ])) as [{ currency: string }];
    const target = ['CHF', 'GBP', 'JPY'].find((c) => c !== currency)!;
    const url = `/reporting/v0/campaigns?${range}&filter=id==${campaignId}&statistics=cost&currency=${target}`;
    const before = await get(url);
    // Constant rates over the whole range: the converted cost is cost / source rate x target rate.
    const lines = ['date,currency,unitsPerEur'];
    for (let day = addDays(from, -7); day <= today; day = addDays(day, 1)) {
      lines.push(`${day},${target},3.5`);
      if (currency !== 'EUR') lines.push(`${day},${currency},1.25`);
    }
    await importFxRates(server.service.db, lines.join('\n'));
    const after = await changed(url, before);
    const [{ cost }] = (await sql<{ cost: number }>(
      `SELECT coalesce(sum(cost), 0)::DOUBLE AS cost FROM fact_ad_daily
        WHERE organization_id = 1 AND campaign_id = $1 AND day BETWEEN $2::DATE AND $3::DATE`,
      [campaignId, from, today],
    )) as [{ cost: number }];
    const expected = (cost / (currency === 'EUR' ? 1 : 1.25)) * 3.5;
    expect(after.json.campaigns[0].statistics.cost).toBeCloseTo(expected, 4);
  });
});

describe("versions are per organization, and no organization gets another one's answer", () => {
  const url = `/reporting/v0/accounts?${range}&statistics=clicks`;

  it("a write in one organization leaves the other one's ETag (and its 304) as they were", async () => {
    const theirs = await get(url, {}, otherToken);
    const ours = await get(url);
    const patched = await jsonRequest(
      server,
      token,
      'PATCH',
      `${P}/accounts/id/${accountId}`,
      { account: { name: 'Renamed again' } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    await changed(url, ours);
    const again = await get(url, { 'if-none-match': etagOf(theirs) }, otherToken);
    expect(again.status).toBe(304);
    expect(etagOf(again)).toBe(etagOf(theirs));
  });

  it("the same request by two organizations: two ETags, two cache entries; B sending A's ETag gets B's answer", async () => {
    const ours = await get(url);
    expect((await get(url)).headers['x-cache']).toBe('hit');
    const theirs = await get(url, { 'if-none-match': etagOf(ours) }, otherToken);
    expect(theirs.status).toBe(200);
    expect(etagOf(theirs)).not.toBe(etagOf(ours));
    const [org] = await sql<{ org: number }>("SELECT organization_id AS org FROM accounts WHERE name = 'Theirs'");
    const names = await sql<{ name: string }>('SELECT name FROM accounts WHERE organization_id = $1 ORDER BY name', [
      org!.org,
    ]);
    expect(theirs.json.accounts.map((a: { name: string }) => a.name).sort()).toEqual(names.map((n) => n.name));
    expect(theirs.text).not.toContain('Renamed again');
    expect(ours.text).toContain('Renamed again');
    expect(ours.text).not.toContain('Theirs');
  });

  it('a failed write (422) changes nothing, nor the ETag', async () => {
    const before = await get(url);
    const refused = await jsonRequest(
      server,
      token,
      'PATCH',
      `${P}/accounts/id/${accountId}`,
      { account: { currency: 'XXX' } },
      'application/merge-patch+json',
    );
    expect(refused.status).toBe(422);
    const after = await get(url, { 'if-none-match': etagOf(before) });
    expect(after.status).toBe(304);
  });
});

describe('ADREPORT_CACHE_MB', () => {
  it('0 turns the cache off: every answer is a miss, ETags and 304 still work; after a restart the old ETag matches nothing', async () => {
    const off = await startTestServer({ cacheMb: 0, rateLimit: { ratePerSecond: 100_000, burst: 100_000 } });
    try {
      const offToken = await off.token();
      const auth = { authorization: `Bearer ${offToken}` };
      await createAccount(off, offToken, { name: 'Cacheless' });
      const url = `/reporting/v0/accounts?${range}`;
      const first = await off.http.get(url, auth);
      const second = await off.http.get(url, auth);
      expect([first.headers['x-cache'], second.headers['x-cache']]).toEqual(['miss', 'miss']);
      expect(etagOf(second)).toBe(etagOf(first));
      expect((await off.http.get(url, { ...auth, 'if-none-match': etagOf(first) })).status).toBe(304);
      // The same file under a new process: the data is the same, the ETag is not (versions are per process).
      await off.service.close();
      const config = serviceConfigSchema.parse({
        dbPath: path.join(off.dir, 'adreport.duckdb'),
        host: '127.0.0.1',
        port: 0,
      });
      const restarted = await startService(config, { logError: () => undefined });
      const http = new HttpClient(restarted.url, restarted.tls?.cert);
      try {
        const fresh = (
          await http.request('POST', '/token', {
            headers: { authorization: basic(off.clientId, off.clientSecret), 'content-type': FORM },
            body: 'grant_type=client_credentials',
          })
        ).json.access_token as string;
        const after = await http.get(url, { authorization: `Bearer ${fresh}`, 'if-none-match': etagOf(first) });
        expect(after.status).toBe(200);
        expect(after.text).toBe(first.text);
        expect(etagOf(after)).not.toBe(etagOf(first));
      } finally {
        http.close();
        await restarted.close();
      }
    } finally {
      await off.close().catch(() => undefined);
    }
  }, 300_000);

  it('a small cache evicts the least recently used page and stays within its bytes', async () => {
    // 0.05 MiB = 52,428 bytes: pages of up to 6,553 bytes (an eighth) are kept.
    const small = await startTestServer({ cacheMb: 0.05, rateLimit: { ratePerSecond: 100_000, burst: 100_000 } });
    try {
      const smallToken = await small.token();
      const auth = { authorization: `Bearer ${smallToken}` };
      await createAccount(small, smallToken, { name: 'Small' });
      const page = (i: number) => `/reporting/v0/accounts?${range}&name=Small${i}*`;
      const first = await small.http.get(page(0), auth);
      expect(Number(first.headers['content-length'])).toBeLessThan(6553 - 256);
      expect((await small.http.get(page(0), auth)).headers['x-cache']).toBe('hit');
      // Far more distinct pages than fit (each over 300 bytes with its overhead): page 0 is pushed out.
      for (let i = 1; i <= 200; i++) expect((await small.http.get(page(i), auth)).headers['x-cache']).toBe('miss');
      expect((await small.http.get(page(200), auth)).headers['x-cache']).toBe('hit');
      expect((await small.http.get(page(0), auth)).headers['x-cache']).toBe('miss');
      const cache = small.service.reports.freshness;
      expect(cache.cachedBytes).toBeLessThanOrEqual(Math.floor(0.05 * 2 ** 20));
      expect(cache.cachedBytes).toBeGreaterThan(Math.floor(0.05 * 2 ** 20) / 2);
    } finally {
      await small.close();
    }
  }, 300_000);
});
