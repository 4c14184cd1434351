import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DailyReport } from '../../src/platforms/connector.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import type { SqlValue } from '../../src/store/sql-values.js';
import { jsonRequest, linkedGoogleAccount, otherTenantToken } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const P = '/provisioning/v0';
let server: TestServer;
let token: string;
let auth: Record<string, string>;
let accountId: number;
let platformAccountId: number;
let campaignId: number;
const to = isoDate(new Date());
const from = addDays(to, -20);
const range = `startDate=${from}&endDate=${to}`;

interface Call {
  id: number;
  accountId: number | null;
  campaignId: number;
  adGroupId: number;
  adPlatformAccountId: number;
  adPlatformType: string;
  startTime: string;
  durationSeconds: number;
  status: string;
  callType: string;
  callerCountry: string;
  callerAreaCode: string;
  isConversion: boolean;
}

const get = (query: string, headers = auth) => server.http.get(`/reporting/v0/call-details?${query}`, headers);
const calls = async (query: string): Promise<Call[]> => {
  const res = await get(query);
  expect(res.status, res.text).toBe(200);
  return res.json.callDetails as Call[];
};

/** Ids of the organization's calls in [from, to] matching `where` over call_details, by start time and id. */
async function sqlIds(where = 'TRUE', params: SqlValue[] = [], order = 'start_time, id'): Promise<number[]> {
  const rows = await server.service.db.read((r) =>
    r.all<{ id: number }>(
      `SELECT id FROM call_details WHERE organization_id = 1 AND day BETWEEN $1::DATE AND $2::DATE AND (${where}) ORDER BY ${order}`,
      [from, to, ...params],
    ),
  );
  return rows.map((row) => row.id);
}

beforeAll(async () => {
  server = await startTestServer({
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    statistics: { backfillDays: 20 },
  });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  const linked = await linkedGoogleAccount(server, token, 'Calls');
  ({ accountId, platformAccountId } = linked);
  const adPlatformId = linked.adPlatformId;
  // The campaign with the most traffic over the window, so calls of every kind occur.
  const connector = server.service.platforms.connector(1, 'GOOGLE_ADS');
  const report: DailyReport = await connector.fetchDailyReport(adPlatformId, from, to);
  const byCampaign = new Map<string, number>();
  for (const row of report.statistics)
    byCampaign.set(row.campaignId, (byCampaign.get(row.campaignId) ?? 0) + row.impressions);
  const busiest = [...byCampaign.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const imported = await jsonRequest(
    server,
    token,
    'POST',
    `${P}/adplatform-accounts/id/${platformAccountId}/campaigns`,
    { campaign: { adPlatformId: busiest, campaignGroup: 'Calls' } },
  );
  campaignId = (await waitForJob(server, token, imported.json.job.id)).result.campaign.id;
  const jobs = (await server.http.get(`${P}/jobs?type=SYNC_STATISTICS`, auth)).json.jobs as Array<{
    id: number;
    input: { campaignIds?: number[] };
  }>;
  const backfill = jobs.find((job) => job.input.campaignIds?.includes(campaignId));
  expect(backfill).toBeDefined();
  expect((await waitForJob(server, token, backfill!.id, undefined, 60_000)).status).toBe('SUCCEEDED');
}, 300_000);
afterAll(() => server.close());

describe('GET /reporting/v0/call-details', () => {
  it('lists exactly the calls of call_details in the range, with the linked account and ISO start times', async () => {
    const expected = await sqlIds();
    expect(expected.length).toBeGreaterThan(10);
    const res = await get(`${range}&limit=10000`);
    expect(res.status).toBe(200);
    expect(res.headers['x-totalcount']).toBe(String(expected.length));
    const rows = res.json.callDetails as Call[];
    expect(rows.map((r) => r.id)).toEqual(expected);
    const stored = await server.service.db.read((r) =>
      r.one<Record<string, unknown>>(
        `SELECT id, campaign_id, ad_group_id, adplatform_account_id, epoch_ms(start_time) AS ms, duration_seconds, status, call_type, caller_country, caller_area_code, is_conversion
           FROM call_details WHERE id = $1`,
        [expected[0]!],
      ),
    );
    expect(rows[0]).toEqual({
      id: stored!.id,
      accountId,
      campaignId: stored!.campaign_id,
      adGroupId: stored!.ad_group_id,
      adPlatformAccountId: platformAccountId,
      adPlatformType: 'GOOGLE_ADS',
      startTime: new Date(Number(stored!.ms)).toISOString(),
      durationSeconds: stored!.duration_seconds,
      status: stored!.status,
      callType: stored!.call_type,
      callerCountry: stored!.caller_country,
      callerAreaCode: stored!.caller_area_code,
      isConversion: stored!.is_conversion,
    });
    for (const row of rows) {
      expect(row.startTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(row.accountId).toBe(accountId);
      expect(row.campaignId).toBe(campaignId);
    }
    // A narrower range: count and ids match SQL on `day`.
    const narrow = `startDate=${addDays(to, -5)}&endDate=${addDays(to, -2)}`;
    const narrowIds = (
      await server.service.db.read((r) =>
        r.all<{ id: number }>(
          `SELECT id FROM call_details WHERE organization_id = 1 AND day BETWEEN $1::DATE AND $2::DATE ORDER BY start_time, id`,
          [addDays(to, -5), addDays(to, -2)],
        ),
      )
    ).map((r) => r.id);
    const narrowRes = await get(`${narrow}&limit=10000`);
    expect(narrowRes.headers['x-totalcount']).toBe(String(narrowIds.length));
    expect((narrowRes.json.callDetails as Call[]).map((r) => r.id)).toEqual(narrowIds);
  });

  it('filters on status, isConversion, durationSeconds, callerCountry and adPlatformType as SQL does', async () => {
    const ids = async (filter: string) =>
      (await calls(`${range}&limit=10000&filter=${encodeURIComponent(filter)}`)).map((r) => r.id);
    const missed = await sqlIds(`status = 'MISSED'`);
    const received = await sqlIds(`status = 'RECEIVED'`);
    expect(missed.length).toBeGreaterThan(0);
    expect(received.length).toBeGreaterThan(0);
    expect(await ids(`status == 'MISSED'`)).toEqual(missed);
    expect(await ids(`status in ['RECEIVED']`)).toEqual(received);
    const converting = await sqlIds('is_conversion');
    expect(converting.length).toBeGreaterThan(0);
    expect(await ids('isConversion == true')).toEqual(converting);
    expect(await ids('isConversion == 1')).toEqual(converting);
    expect(await ids('isConversion')).toEqual(converting);
    expect(await ids('isConversion == false')).toEqual(await sqlIds('NOT is_conversion'));
    expect(await ids('not (isConversion != 0)')).toEqual(await sqlIds('NOT is_conversion'));
    expect(await ids('durationSeconds >= 60 && durationSeconds < 300')).toEqual(
      await sqlIds('duration_seconds >= 60 AND duration_seconds < 300'),
    );
    const country = (await server.service.db.read((r) =>
      r.one<{ c: string }>(`SELECT caller_country AS c FROM call_details GROUP BY ALL ORDER BY count(*) DESC LIMIT 1`),
    ))!.c;
    expect(await ids(`callerCountry == '${country}' or durationSeconds == 0`)).toEqual(
      await sqlIds('caller_country = $3 OR duration_seconds = 0', [country]),
    );
    expect(await ids(`startsWith(callerCountry, '${country.slice(0, 1)}')`)).toEqual(
      await sqlIds('starts_with(caller_country, $3)', [country.slice(0, 1)]),
    );
    const all = await sqlIds();
    expect(await ids(`adPlatformType == 'GOOGLE_ADS'`)).toEqual(all);
    expect(await ids(`adPlatformType == 'ADWORDS'`)).toEqual(all);
    expect(await ids(`adPlatformType in ['ADWORDS', 'BING_ADS']`)).toEqual(all);
    expect(await ids(`adPlatformType == 'MICROSOFT_ADVERTISING'`)).toEqual([]);
    expect(await ids(`accountId == ${accountId} && accountId != null`)).toEqual(all);
    expect(await ids('accountId == null')).toEqual([]);
    const middle = all[Math.floor(all.length / 2)]!;
    const startTime = (await calls(`${range}&filter=${encodeURIComponent(`id == ${middle}`)}`))[0]!.startTime;
    expect(await ids(`startTime >= '${startTime}'`)).toEqual(
      (await calls(`${range}&limit=10000`)).filter((r) => r.startTime >= startTime).map((r) => r.id),
    );
  });

  it('sorts by -durationSeconds with ties by id, and by several keys', async () => {
    expect((await calls(`${range}&limit=10000&sort=-durationSeconds`)).map((r) => r.id)).toEqual(
      await sqlIds('TRUE', [], 'duration_seconds DESC, id'),
    );
    expect((await calls(`${range}&limit=10000&sort=status,-callerCountry`)).map((r) => r.id)).toEqual(
      await sqlIds('TRUE', [], 'status, caller_country DESC, id'),
    );
  });

  it('pages by 7: every row once, X-TotalCount on each page', async () => {
    const all = await sqlIds();
    const seen: number[] = [];
    for (let offset = 0; offset < all.length; offset += 7) {
      const res = await get(`${range}&limit=7&offset=${offset}`);
      expect(res.status).toBe(200);
      expect(res.headers['x-totalcount']).toBe(String(all.length));
      const page = res.json.callDetails as Call[];
      expect(page.length).toBe(Math.min(7, all.length - offset));
      seen.push(...page.map((r) => r.id));
    }
    expect(seen).toEqual(all);
    expect((await calls(`${range}&limit=7&offset=${Math.ceil(all.length / 7) * 7}`)).length).toBe(0);
  });

  it('defaults to the 30 days ending yesterday', async () => {
    const yesterday = addDays(to, -1);
    const expected = await server.service.db.read((r) =>
      r.one<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM call_details WHERE organization_id = 1 AND day BETWEEN $1::DATE AND $2::DATE`,
        [addDays(yesterday, -29), yesterday],
      ),
    );
    const res = await get('limit=1');
    expect(res.status).toBe(200);
    expect(res.headers['x-totalcount']).toBe(String(expected!.n));
  });

  it('names every bad parameter in a 400', async () => {
    const bad = async (query: string, field: string, message?: RegExp) => {
      const res = await get(query);
      expect(res.status, `${query}: ${res.text}`).toBe(400);
      expect(res.json.error.details[0].field).toBe(field);
      if (message) expect(res.json.error.details[0].message).toMatch(message);
    };
    await bad(
      `filter=${encodeURIComponent('durationSeconds > 5 && duration > 3')}`,
      'filter',
      /unknown field duration at position 23 near "duration"/,
    );
    await bad(`filter=${encodeURIComponent('status == ')}`, 'filter', /position/);
    await bad(
      `filter=${encodeURIComponent("status > 'A' && id == 'x'")}`,
      'filter',
      /cannot compare a number with a string at position 16 near "=="/,
    );
    await bad(
      `filter=${encodeURIComponent('isConversion > true')}`,
      'filter',
      /only be compared with == or != at position 0 near ">"/,
    );
    await bad(`filter=${encodeURIComponent("lower(status) == 'x'")}`, 'filter', /position 0/);
    await bad('startDate=2026-02-30', 'startDate');
    await bad('startDate=yesterday', 'startDate');
    await bad('startDate=2026-02-01&endDate=2026-01-31', 'endDate');
    await bad('startDate=2020-01-01&endDate=2025-01-01', 'endDate', /five years/);
    await bad('limit=0', 'limit');
    await bad('limit=10001', 'limit');
    await bad('limit=10&offset=5', 'offset');
    await bad('sort=-duration', 'sort', /unknown sort key "duration" at position 1/);
    await bad('sort=id,,status', 'sort');
    await bad('limt=10', 'limt');
    await bad('accountId=1', 'accountId');
    await bad('filter=a&filter=b', 'filter');
  });

  it('binds every value: hostile filters give 400 or 200, never 500', async () => {
    const hostile = [
      "status == 'x'' OR 1=1 --'",
      "status == 'x\\' OR 1=1 --'",
      "callerCountry == '\"; DROP TABLE call_details; --'",
      'status == "MISSED" -- comment',
      "callerAreaCode == 'ä😀\\u0000'",
      "contains(callType, '%') or startsWith(status, '_')",
      "status in ['a', 'b'); DELETE FROM call_details; --']",
      'id == 1; SELECT 1',
      'c."id" == 1',
      '1 == 1',
      "'a' == 'a'",
      `durationSeconds == ${'9'.repeat(400)}`,
      `id == ${'('.repeat(40)}1${')'.repeat(40)}`,
      "__proto__ == 'x'",
      "adPlatformType == '__proto__' or adPlatformType == 'constructor'",
    ];
    for (const filter of hostile) {
      const res = await get(`${range}&filter=${encodeURIComponent(filter)}`);
      expect([200, 400], `${filter}: ${res.status} ${res.text}`).toContain(res.status);
      if (res.status === 400) expect(res.json.error.details[0].field).toBe('filter');
    }
    for (const sort of ["id'--", 'id;DROP', '-"id"', 'ä']) {
      expect((await get(`sort=${encodeURIComponent(sort)}`)).status).toBe(400);
    }
    expect(await sqlIds('TRUE')).not.toEqual([]);
    expect(server.errors).toEqual([]);
  });

  it('shows another organization none of these calls', async () => {
    const theirs = await otherTenantToken(server);
    const res = await get(`${range}&limit=10000`, { authorization: `Bearer ${theirs}` });
    expect(res.status).toBe(200);
    expect(res.json.callDetails).toEqual([]);
    expect(res.headers['x-totalcount']).toBe('0');
  });

  it('is listed in /reporting/v0/fields', async () => {
    const endpoints = (await server.http.get('/reporting/v0/fields', auth)).json.endpoints as Array<{
      path: string;
      fields?: string[];
    }>;
    expect(endpoints.find((e) => e.path === '/reporting/v0/call-details')?.fields).toContain('isConversion');
  });
});
