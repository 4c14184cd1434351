import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/**
 * Issue 36 item 2: a list parameter means the same list sent as a comma list (`explode: false`,
 * as the document declares), repeated (`explode: true`, as orval and other generators send it)
 * or both mixed, in the order sent; its limits count the whole list. A parameter that is not a
 * list, given twice, stays a 400.
 */

let fx: ReportingFixture;
let token: string;
let accountIds: number[];

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d' });
  token = fx.orgs[0]!.token;
  // Three accounts with a markup period each, made through the API, besides the world's.
  accountIds = [];
  for (const name of ['Lists A', 'Lists B', 'Lists C']) {
    const created = await fx.json('POST', '/provisioning/v0/accounts', token, {
      account: { name, languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
    });
    if (created.status !== 201) throw new Error(`POST account: ${created.status} ${created.text}`);
    const id = created.json.account.id as number;
    const markup = await fx.json('POST', `/provisioning/v0/accounts/id/${id}/markups`, token, {
      markup: { rate: 0.1, startDate: '2026-01-01', endDate: null },
    });
    if (markup.status !== 201) throw new Error(`POST markup: ${markup.status} ${markup.text}`);
    accountIds.push(id);
  }
});
afterAll(async () => {
  await fx?.close();
});

const get = (pathAndQuery: string) => fx.get(pathAndQuery, token);

async function ok(pathAndQuery: string) {
  const res = await get(pathAndQuery);
  expect(res.status, `${pathAndQuery}: ${res.text.slice(0, 300)}`).toBe(200);
  return res;
}

/** Two requests that must answer the same: the same status and byte for byte the same body. */
async function sameAnswer(comma: string, repeated: string) {
  const [a, b] = [await ok(comma), await ok(repeated)];
  expect(b.text, `${repeated} answers as ${comma}`).toBe(a.text);
  expect(b.headers['x-totalcount']).toBe(a.headers['x-totalcount']);
  return a;
}

async function refused(pathAndQuery: string, field: string) {
  const res = await get(pathAndQuery);
  expect(res.status, `${pathAndQuery}: ${res.text.slice(0, 300)}`).toBe(400);
  expect(res.json.error.details[0].field, pathAndQuery).toBe(field);
  return res.json.error as { code: string; message: string; details: Array<{ field: string; code: string }> };
}

const R = '/reporting/v0';

describe('a list sent repeated is the list sent with commas', () => {
  it('statistics and segments of a report', async () => {
    const res = await sameAnswer(
      `${R}/campaigns?segments=Week,DeviceType&statistics=clicks,cost&limit=50`,
      `${R}/campaigns?segments=Week&segments=DeviceType&statistics=clicks&statistics=cost&limit=50`,
    );
    // Not two empty answers alike: rows per week and device with just the two statistics.
    const rows = res.json.campaigns as Array<{ segments: Record<string, unknown>; statistics: object }>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row.segments).sort()).toEqual(['deviceType', 'week']);
      expect(Object.keys(row.statistics).sort()).toEqual(['clicks', 'cost']);
    }
  });

  it('a mix of both forms is one list in the order sent', async () => {
    await sameAnswer(
      `${R}/campaigns?segments=DeviceType,Week&statistics=cost,clicks,impressions&limit=30`,
      `${R}/campaigns?segments=DeviceType&segments=Week&statistics=cost,clicks&statistics=impressions&limit=30`,
    );
    const ordered = await sameAnswer(
      `${R}/campaigns?statistics=impressions,clicks,cost&limit=5`,
      `${R}/campaigns?statistics=impressions&statistics=clicks,cost&limit=5`,
    );
    // The order is kept: the statistics come back in the order they were asked for.
    expect(Object.keys(ordered.json.campaigns[0].statistics)).toEqual(['impressions', 'clicks', 'cost']);
    const reversed = await ok(`${R}/campaigns?statistics=cost&statistics=clicks,impressions&limit=5`);
    expect(Object.keys(reversed.json.campaigns[0].statistics)).toEqual(['cost', 'clicks', 'impressions']);
  });

  it('sort keys, embeds and formulas of a report', async () => {
    await sameAnswer(
      `${R}/campaigns?sort=-statistics.clicks,name&limit=20`,
      `${R}/campaigns?sort=-statistics.clicks&sort=name&limit=20`,
    );
    await sameAnswer(`${R}/accounts?embed=labels,customFields`, `${R}/accounts?embed=labels&embed=customFields`);
    await sameAnswer(
      `${R}/campaigns?formulas=${encodeURIComponent('a:statistics.clicks*2:Integer,b:statistics.cost:Money')}&limit=5`,
      `${R}/campaigns?formulas=${encodeURIComponent('a:statistics.clicks*2:Integer')}&formulas=${encodeURIComponent('b:statistics.cost:Money')}&limit=5`,
    );
  });

  it('markup periods by account and call details by sort keys', async () => {
    const [a, b] = accountIds as [number, number];
    const markups = await sameAnswer(`${R}/markups?accountId=${a},${b}`, `${R}/markups?accountId=${a}&accountId=${b}`);
    expect(markups.json.markups.map((m: { accountId: number }) => m.accountId)).toEqual([a, b]);
    await sameAnswer(
      `${R}/call-details?sort=-durationSeconds,id&limit=20`,
      `${R}/call-details?sort=-durationSeconds&sort=id&limit=20`,
    );
  });

  it('the account list by ids and by label filters', async () => {
    const [a, b, c] = accountIds as [number, number, number];
    const res = await sameAnswer(
      `/provisioning/v0/accounts?id=${a},${b},${c}`,
      `/provisioning/v0/accounts?id=${a}&id=${b},${c}`,
    );
    expect(res.json.accounts.map((account: { id: number }) => account.id)).toEqual([a, b, c]);
    const labels = await fx.json('PUT', `/provisioning/v0/accounts/id/${a}/labels`, token, {
      labels: { tier: 'gold', team: 'north' },
    });
    expect(labels.status).toBe(200);
    const filtered = await sameAnswer(
      `/provisioning/v0/accounts?labels=tier:gold,team:north`,
      `/provisioning/v0/accounts?labels=tier:gold&labels=team:north`,
    );
    expect(filtered.json.accounts.map((account: { id: number }) => account.id)).toEqual([a]);
  });

  it('a report job takes a list as a JSON array, as the GET takes it repeated', async () => {
    const created = await fx.json('POST', `${R}/report-jobs`, token, {
      reportJob: { endpoint: 'campaigns', format: 'csv', query: { segments: ['Week', 'DeviceType'] } },
    });
    expect(created.status, created.text).toBe(202);
    expect(created.json.reportJob.query.segments).toEqual(['Week', 'DeviceType']);
  });
});

describe('the rules of a list hold for the whole list', () => {
  it('an empty entry in either form is a 400 naming the list', async () => {
    for (const query of ['segments=Week&segments=', 'segments=&segments=Week', 'segments=Week,&segments=Day'])
      await refused(`${R}/campaigns?${query}`, 'segments');
    await refused(`${R}/campaigns?statistics=clicks&statistics=bogus`, 'statistics');
  });

  it('at most 100 account ids, counted over every value', async () => {
    const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => String(from + i + 1));
    await ok(`/provisioning/v0/accounts?id=${ids(50).join(',')}&id=${ids(50, 50).join(',')}`);
    const error = await refused(`/provisioning/v0/accounts?id=${ids(50).join(',')}&id=${ids(51, 50).join(',')}`, 'id');
    expect(error.message).toContain('at most 100');
    await refused(
      `/provisioning/v0/accounts?${ids(101)
        .map((id) => `id=${id}`)
        .join('&')}`,
      'id',
    );
  });

  it('at most 5 label filters, counted over every value', async () => {
    const filters = ['a:1', 'b:2', 'c:3', 'd:4', 'e:5', 'f:6'];
    await ok(
      `/provisioning/v0/accounts?labels=${filters.slice(0, 3).join(',')}&labels=${filters.slice(3, 5).join(',')}`,
    );
    const error = await refused(
      `/provisioning/v0/accounts?labels=${filters.slice(0, 3).join(',')}&labels=${filters.slice(3).join(',')}`,
      'labels',
    );
    expect(error.message).toContain('at most 5');
  });

  it('at most 20 formulas, counted over every value', async () => {
    const f = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => encodeURIComponent(`f${from + i}:statistics.clicks+${i}:Integer`));
    await ok(`${R}/campaigns?formulas=${f(0, 12).join(',')}&formulas=${f(12, 8).join(',')}&limit=1`);
    await refused(`${R}/campaigns?formulas=${f(0, 12).join(',')}&formulas=${f(12, 9).join(',')}`, 'formulas');
  });
});

describe('a parameter that is not a list, given twice, is still a 400', () => {
  it.each([
    [`${R}/campaigns?limit=10&limit=10`, 'limit'],
    [`${R}/campaigns?filter=id%20%3E%200&filter=id%20%3E%201`, 'filter'],
    [`${R}/campaigns?startDate=2026-01-01&startDate=2026-01-01`, 'startDate'],
    [`${R}/campaigns?currency=EUR&currency=EUR`, 'currency'],
    [`${R}/campaigns?totals=true&totals=true`, 'totals'],
    [`${R}/campaigns?name=a&name=b`, 'name'],
    [`${R}/markups?startDate=2026-01-01&startDate=2026-01-02`, 'startDate'],
    [`${R}/call-details?filter=id%20%3E%200&filter=id%20%3E%200`, 'filter'],
    ['/provisioning/v0/accounts?offset=0&offset=0', 'offset'],
    ['/provisioning/v0/jobs?status=DONE&status=FAILED', 'status'],
  ])('%s', async (pathAndQuery, field) => {
    const error = await refused(pathAndQuery, field);
    expect(error.code).toBe('invalid_parameter');
    expect(error.details[0]!.code).toBe('repeated');
  });
});
