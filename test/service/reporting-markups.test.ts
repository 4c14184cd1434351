import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest, otherTenantToken } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
let auth: Record<string, string>;
const made: Array<{ id: number; accountId: number; rate: number; startDate: string; endDate: string | null }> = [];
const accounts: number[] = [];

const addMarkup = async (accountId: number, markup: { rate: number; startDate: string; endDate?: string | null }) => {
  const res = await jsonRequest(server, token, 'POST', `/provisioning/v0/accounts/id/${accountId}/markups`, { markup });
  expect(res.status).toBe(201);
  made.push(res.json.markup);
};
const markups = (query = '', headers = auth) => server.http.get(`/reporting/v0/markups${query}`, headers);

beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  for (const name of ['Markup A', 'Markup B']) accounts.push((await createAccount(server, token, { name })).id);
  await addMarkup(accounts[0]!, { rate: 0.1, startDate: '2026-01-01', endDate: '2026-03-31' });
  await addMarkup(accounts[0]!, { rate: 0.15, startDate: '2026-04-01', endDate: null });
  await addMarkup(accounts[1]!, { rate: 0.2, startDate: '2025-06-01', endDate: '2025-12-31' });
  // Another organization's markup must never show.
  const theirs = await otherTenantToken(server);
  const theirAccount = await createAccount(server, theirs, { name: 'Theirs' });
  expect(
    (
      await jsonRequest(server, theirs, 'POST', `/provisioning/v0/accounts/id/${theirAccount.id}/markups`, {
        markup: { rate: 0.5, startDate: '2026-01-01' },
      })
    ).status,
  ).toBe(201);
});
afterAll(() => server.close());

describe('GET /reporting/v0/markups', () => {
  it('lists every period of the organization by account and start date, with the account', async () => {
    const res = await markups();
    expect(res.status).toBe(200);
    expect(res.headers['x-totalcount']).toBe('3');
    const expected = [...made].sort((a, b) => a.accountId - b.accountId || a.startDate.localeCompare(b.startDate));
    expect(res.json.markups).toEqual(
      expected.map((m) => ({
        ...m,
        accountName: m.accountId === accounts[0] ? 'Markup A' : 'Markup B',
        currency: 'EUR',
      })),
    );
  });

  it('with a date range, lists the periods sharing at least one day with it (open ends included)', async () => {
    const ids = async (query: string) =>
      ((await markups(query)).json.markups as Array<{ id: number }>).map((m) => m.id);
    expect(await ids('?startDate=2026-03-31&endDate=2026-03-31')).toEqual([made[0]!.id]);
    expect(await ids('?startDate=2026-04-01&endDate=2026-04-01')).toEqual([made[1]!.id]);
    expect(await ids('?startDate=2030-01-01')).toEqual([made[1]!.id]);
    expect(await ids('?endDate=2025-06-01')).toEqual([made[2]!.id]);
    expect(await ids('?startDate=2025-01-01&endDate=2025-05-31')).toEqual([]);
  });

  it('filters by account and pages with X-TotalCount over all pages', async () => {
    expect(((await markups(`?accountId=${accounts[1]}`)).json.markups as unknown[]).length).toBe(1);
    const first = await markups('?limit=2');
    const second = await markups('?limit=2&offset=2');
    expect(first.headers['x-totalcount']).toBe('3');
    expect(second.headers['x-totalcount']).toBe('3');
    expect([...first.json.markups, ...second.json.markups].map((m: { id: number }) => m.id).sort()).toEqual(
      made.map((m) => m.id).sort(),
    );
  });

  it.each([
    ['?startDate=2026-02-30', 'startDate'],
    ['?startDate=2026-05-01&endDate=2026-04-01', 'endDate'],
    ['?accountId=1,x', 'accountId'],
    ['?limit=0', 'limit'],
    ['?limit=2&offset=1', 'offset'],
    ['?bogus=1', 'bogus'],
  ])('%s is a 400 naming %s', async (query, field) => {
    const res = await markups(query);
    expect(res.status).toBe(400);
    expect(res.json.error.details[0].field).toBe(field);
  });

  it('needs the reporting scope and is listed in /reporting/v0/fields', async () => {
    const provisioningOnly = await server.token('provisioning');
    expect((await markups('', { authorization: `Bearer ${provisioningOnly}` })).status).toBe(403);
    const fields = (await server.http.get('/reporting/v0/fields', auth)).json.endpoints as Array<{ path: string }>;
    expect(fields.map((e) => e.path)).toContain('/reporting/v0/markups');
  });
});
