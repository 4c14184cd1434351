import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest, otherTenantToken } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
let otherToken: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
  otherToken = await otherTenantToken(server);
});
afterAll(() => server.close());

const path = (accountId: number | string) => `/provisioning/v0/accounts/id/${accountId}/markups`;
const list = (accountId: number | string, query = '', as = token) =>
  server.http.get(`${path(accountId)}${query}`, { authorization: `Bearer ${as}` });
const post = (accountId: number | string, body: unknown, as = token) =>
  jsonRequest(server, as, 'POST', path(accountId), body);
const postMarkup = (accountId: number, markup: Record<string, unknown>) => post(accountId, { markup });
const remove = (accountId: number | string, markupId: number | string, as = token) =>
  server.http.request('DELETE', `${path(accountId)}/id/${markupId}`, { headers: { authorization: `Bearer ${as}` } });
/** `field code` of every detail, sorted, so one assertion states every broken rule. */
const details = (res: { json: any }) =>
  (res.json.error.details as Array<{ field: string; code: string }>).map((d) => `${d.field} ${d.code}`).sort();
const storedRows = () =>
  server.service.db.read((r) => r.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM markups'));

async function created(accountId: number, markup: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await postMarkup(accountId, markup);
  if (res.status !== 201) throw new Error(`markup create failed: ${res.status} ${res.text}`);
  return res.json.markup;
}

describe('create and list', () => {
  it('creates a markup: 201, Location, the response shape; endDate missing or null is open-ended', async () => {
    const account = await createAccount(server, token);
    const res = await postMarkup(account.id, { rate: 0.15, startDate: '2026-01-01', endDate: '2026-01-31' });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      markup: {
        id: expect.any(Number),
        accountId: account.id,
        rate: 0.15,
        startDate: '2026-01-01',
        endDate: '2026-01-31',
      },
    });
    expect(res.headers.location).toBe(`${path(account.id)}/id/${res.json.markup.id}`);

    expect(await created(account.id, { rate: 0, startDate: '2026-02-01' })).toMatchObject({
      rate: 0,
      startDate: '2026-02-01',
      endDate: null,
    });
    const other = await createAccount(server, token);
    expect(await created(other.id, { rate: 10, startDate: '2020-02-29', endDate: null })).toMatchObject({
      rate: 10,
      endDate: null,
    });
  });

  it('keeps six decimals exactly (DECIMAL(9,6)), in the database and in the answer', async () => {
    const account = await createAccount(server, token);
    const markup = await created(account.id, { rate: 0.123456, startDate: '2026-01-01', endDate: '2026-01-01' });
    expect(markup.rate).toBe(0.123456);
    const stored = await server.service.db.read((r) =>
      r.one<{ rate: string }>('SELECT rate::VARCHAR AS rate FROM markups WHERE id = $1', [markup.id]),
    );
    expect(stored?.rate).toBe('0.123456');
    expect((await list(account.id)).json.markups).toEqual([markup]);
  });

  it('lists by startDate then id, with X-TotalCount and paging', async () => {
    const account = await createAccount(server, token);
    const c = await created(account.id, { rate: 0.3, startDate: '2026-03-01', endDate: '2026-03-31' });
    const a = await created(account.id, { rate: 0.1, startDate: '2026-01-01', endDate: '2026-01-31' });
    const d = await created(account.id, { rate: 0.4, startDate: '2026-04-01' });
    const b = await created(account.id, { rate: 0.2, startDate: '2026-02-01', endDate: '2026-02-28' });

    const all = await list(account.id);
    expect(all.status).toBe(200);
    expect(all.headers['x-totalcount']).toBe('4');
    expect(all.json).toEqual({ markups: [a, b, c, d] });

    const second = await list(account.id, '?limit=2&offset=2');
    expect(second.headers['x-totalcount']).toBe('4');
    expect(second.json.markups).toEqual([c, d]);
    const past = await list(account.id, '?limit=2&offset=4');
    expect(past.status).toBe(200);
    expect(past.json.markups).toEqual([]);
    expect(past.headers['x-totalcount']).toBe('4');
  });

  it('an account without markups lists none', async () => {
    const account = await createAccount(server, token);
    const res = await list(account.id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ markups: [] });
    expect(res.headers['x-totalcount']).toBe('0');
  });

  it('refuses bad paging and unknown or repeated parameters with 400 naming them', async () => {
    const account = await createAccount(server, token);
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=x',
      '?limit=10&offset=5',
      '?offset=-1',
      '?limt=10',
      '?limit=1&limit=2',
    ]) {
      const res = await list(account.id, query);
      expect(res.status, query).toBe(400);
      expect(['invalid_parameter', 'unknown_parameter']).toContain(res.json.error.code);
    }
  });
});

describe('periods of one account must not overlap', () => {
  it('a period ending 2026-01-31 and one starting 2026-02-01 do not overlap; sharing one day does', async () => {
    const account = await createAccount(server, token);
    const january = await created(account.id, { rate: 0.1, startDate: '2026-01-01', endDate: '2026-01-31' });
    await created(account.id, { rate: 0.2, startDate: '2026-02-01', endDate: '2026-02-28' });
    await created(account.id, { rate: 0.05, startDate: '2025-12-01', endDate: '2025-12-31' });

    const before = await storedRows();
    const res = await postMarkup(account.id, { rate: 0.3, startDate: '2026-01-31', endDate: '2026-01-31' });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation_failed');
    expect(res.json.error.message).toContain(`markup ${january.id}`);
    expect(res.json.error.details).toEqual([
      {
        field: 'markup',
        code: 'overlapping_period',
        message: `overlaps markup ${january.id} (2026-01-01 to 2026-01-31)`,
      },
    ]);

    const lastDay = await postMarkup(account.id, { rate: 0.3, startDate: '2025-11-01', endDate: '2025-12-01' });
    expect(lastDay.status).toBe(422);
    expect(await storedRows()).toEqual(before);
    expect((await list(account.id)).headers['x-totalcount']).toBe('3');
  });

  it('names every markup a period overlaps', async () => {
    const account = await createAccount(server, token);
    const first = await created(account.id, { rate: 0.1, startDate: '2026-01-01', endDate: '2026-01-31' });
    const second = await created(account.id, { rate: 0.2, startDate: '2026-02-01', endDate: '2026-02-28' });
    const res = await postMarkup(account.id, { rate: 0.3, startDate: '2026-01-15', endDate: '2026-02-15' });
    expect(res.status).toBe(422);
    expect(res.json.error.details.map((d: { message: string }) => d.message)).toEqual([
      `overlaps markup ${first.id} (2026-01-01 to 2026-01-31)`,
      `overlaps markup ${second.id} (2026-02-01 to 2026-02-28)`,
    ]);
  });

  it('an open-ended period overlaps everything from its start on, and a new open one overlaps what comes after it', async () => {
    const account = await createAccount(server, token);
    const open = await created(account.id, { rate: 0.1, startDate: '2026-06-01' });
    for (const period of [
      { startDate: '2030-01-01', endDate: '2030-01-31' },
      { startDate: '2026-05-01', endDate: '2026-06-01' },
      { startDate: '2026-07-01' },
      { startDate: '2020-01-01', endDate: null },
    ]) {
      const res = await postMarkup(account.id, { rate: 0.2, ...period });
      expect(res.status, JSON.stringify(period)).toBe(422);
      expect(res.json.error.details[0]).toMatchObject({
        code: 'overlapping_period',
        message: `overlaps markup ${open.id} (2026-06-01 to open end)`,
      });
    }
    // Ending the day before the open period starts is fine.
    await created(account.id, { rate: 0.2, startDate: '2026-01-01', endDate: '2026-05-31' });

    const closed = await createAccount(server, token);
    const march = await created(closed.id, { rate: 0.1, startDate: '2026-03-01', endDate: '2026-03-31' });
    const res = await postMarkup(closed.id, { rate: 0.2, startDate: '2026-03-15' });
    expect(res.status).toBe(422);
    expect(res.json.error.details[0].message).toBe(`overlaps markup ${march.id} (2026-03-01 to 2026-03-31)`);
    await created(closed.id, { rate: 0.2, startDate: '2026-04-01' });
  });

  it('periods of different accounts are independent', async () => {
    const one = await createAccount(server, token);
    const two = await createAccount(server, token);
    await created(one.id, { rate: 0.1, startDate: '2026-01-01' });
    expect((await postMarkup(two.id, { rate: 0.1, startDate: '2026-01-01' })).status).toBe(201);
  });

  it('a deleted period frees its days', async () => {
    const account = await createAccount(server, token);
    const markup = await created(account.id, { rate: 0.1, startDate: '2026-01-01', endDate: '2026-12-31' });
    expect((await postMarkup(account.id, { rate: 0.2, startDate: '2026-06-01', endDate: '2026-06-30' })).status).toBe(
      422,
    );
    expect((await remove(account.id, markup.id)).status).toBe(204);
    expect((await postMarkup(account.id, { rate: 0.2, startDate: '2026-06-01', endDate: '2026-06-30' })).status).toBe(
      201,
    );
  });

  it('concurrent requests for overlapping periods: exactly one is created', async () => {
    const account = await createAccount(server, token);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        postMarkup(account.id, { rate: 0.01 * (i + 1), startDate: '2026-01-01', endDate: '2026-01-31' }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
    expect((await list(account.id)).json.markups).toHaveLength(1);
  });
});

describe('delete', () => {
  it('answers 204 with an empty body and the markup is gone', async () => {
    const account = await createAccount(server, token);
    const keep = await created(account.id, { rate: 0.1, startDate: '2026-01-01', endDate: '2026-01-31' });
    const gone = await created(account.id, { rate: 0.2, startDate: '2026-02-01' });
    const res = await remove(account.id, gone.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await list(account.id)).json.markups).toEqual([keep]);
  });

  it('404 with an empty body for an unknown markup, a markup of another account, or one already deleted', async () => {
    const account = await createAccount(server, token);
    const other = await createAccount(server, token);
    const markup = await created(account.id, { rate: 0.1, startDate: '2026-01-01' });
    for (const [accountId, markupId] of [
      [account.id, 999_999],
      [other.id, markup.id],
      [999_999, markup.id],
    ] as const) {
      const res = await remove(accountId, markupId);
      expect(res.status).toBe(404);
      expect(res.text).toBe('');
    }
    expect((await list(account.id)).json.markups).toEqual([markup]);
    expect((await remove(account.id, markup.id)).status).toBe(204);
    expect((await remove(account.id, markup.id)).status).toBe(404);
  });

  it('400 for a path id that is not an int64', async () => {
    const account = await createAccount(server, token);
    expect((await remove(account.id, 'abc')).status).toBe(400);
    expect((await remove('abc', 1)).status).toBe(400);
  });
});

describe('bad input: each gives its 4xx and changes nothing', () => {
  let accountId: number;
  beforeAll(async () => {
    accountId = (await createAccount(server, token)).id;
  });

  const valid = { rate: 0.15, startDate: '2026-01-01', endDate: '2026-01-31' };

  it.each([
    ['rate missing', { startDate: '2026-01-01' }, ['markup.rate required']],
    ['rate as a string', { ...valid, rate: '0.15' }, ['markup.rate wrong_type']],
    ['rate below 0', { ...valid, rate: -0.01 }, ['markup.rate too_small']],
    ['rate above 10', { ...valid, rate: 10.000001 }, ['markup.rate too_big']],
    ['rate with 7 decimals', { ...valid, rate: 0.1234567 }, ['markup.rate too_precise']],
    ['rate null', { ...valid, rate: null }, ['markup.rate wrong_type']],
    ['startDate missing', { rate: 0.1 }, ['markup.startDate required']],
    ['startDate not YYYY-MM-DD', { ...valid, startDate: '2026-1-01' }, ['markup.startDate invalid_format']],
    ['startDate a timestamp', { ...valid, startDate: '2026-01-01T00:00:00Z' }, ['markup.startDate invalid_format']],
    ['startDate not a calendar day', { ...valid, startDate: '2026-02-30' }, ['markup.startDate invalid_date']],
    ['endDate not a calendar day', { ...valid, endDate: '2025-02-29' }, ['markup.endDate invalid_date']],
    ['endDate a number', { ...valid, endDate: 20260131 }, ['markup.endDate wrong_type']],
    [
      'endDate before startDate',
      { ...valid, startDate: '2026-02-01', endDate: '2026-01-31' },
      ['markup.endDate before_start'],
    ],
    ['an unknown field', { ...valid, percent: 15 }, ['markup.percent unknown_field']],
    ['id and accountId', { ...valid, id: 1, accountId: 1 }, ['markup.accountId read_only', 'markup.id read_only']],
    [
      'several at once',
      { rate: 11, startDate: '2026-13-01', endDate: 'soon' },
      ['markup.endDate invalid_format', 'markup.rate too_big', 'markup.startDate invalid_date'],
    ],
  ])('422 for %s', async (_, markup, expected) => {
    const before = await storedRows();
    const res = await postMarkup(accountId, markup);
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation_failed');
    expect(details(res)).toEqual(expected);
    expect(await storedRows()).toEqual(before);
  });

  it('reports endDate before startDate together with another broken rule', async () => {
    const res = await postMarkup(accountId, { rate: -1, startDate: '2026-02-01', endDate: '2026-01-01' });
    expect(details(res)).toEqual(['markup.endDate before_start', 'markup.rate too_small']);
  });

  it.each([
    ['malformed JSON', '{"markup":', 'malformed_json'],
    ['no wrapper', JSON.stringify(valid), 'invalid_body'],
    ['a wrapper that is not an object', JSON.stringify({ markup: 'x' }), 'invalid_body'],
    ['an array', JSON.stringify([{ markup: valid }]), 'invalid_body'],
    ['a member beside the wrapper', JSON.stringify({ markup: valid, extra: 1 }), 'invalid_body'],
  ])('400 for %s', async (_, body, code) => {
    const before = await storedRows();
    const res = await post(accountId, body);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(code);
    expect(await storedRows()).toEqual(before);
  });

  it('415 for a body that is not JSON', async () => {
    const res = await jsonRequest(
      server,
      token,
      'POST',
      path(accountId),
      JSON.stringify({ markup: valid }),
      'text/plain',
    );
    expect(res.status).toBe(415);
  });

  it('404 for an unknown account, 400 for a path id that is not an int64', async () => {
    expect((await postMarkup(999_999, valid)).status).toBe(404);
    expect((await list(999_999)).status).toBe(404);
    expect((await post('x1', { markup: valid })).status).toBe(400);
    expect((await list('x1')).status).toBe(400);
  });
});

describe('tenancy and scope', () => {
  it("another organization's account is 404 for list, create and delete, and nothing changes", async () => {
    const account = await createAccount(server, token);
    const markup = await created(account.id, { rate: 0.1, startDate: '2026-01-01' });
    const listed = await list(account.id, '', otherToken);
    expect(listed.status).toBe(404);
    expect(listed.json.error.code).toBe('not_found');
    expect((await post(account.id, { markup: { rate: 0.2, startDate: '2030-01-01' } }, otherToken)).status).toBe(404);
    const deleted = await remove(account.id, markup.id, otherToken);
    expect(deleted.status).toBe(404);
    expect(deleted.text).toBe('');
    expect((await list(account.id)).json.markups).toEqual([markup]);
  });

  it('needs the provisioning scope', async () => {
    const account = await createAccount(server, token);
    const reportingOnly = await server.token('reporting');
    expect((await list(account.id, '', reportingOnly)).status).toBe(403);
    expect((await post(account.id, { markup: { rate: 0.1, startDate: '2026-01-01' } }, reportingOnly)).status).toBe(
      403,
    );
    expect((await server.http.get(path(account.id))).status).toBe(401);
  });

  it('the four routes are in the OpenAPI document', async () => {
    const doc = (await server.http.get('/openapi.json')).json;
    expect(Object.keys(doc.paths['/provisioning/v0/accounts/id/{id}/markups']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/provisioning/v0/accounts/id/{id}/markups/id/{mid}']).sort()).toEqual([
      'delete',
      'get',
    ]);
  });
});
