import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest, VALID_ACCOUNT } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * field21..field30 are doubles (spec 2.1): every finite double a client sends comes back as the
 * same double from every read path; a JSON number beyond the double range is a 422.
 */

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
});
afterAll(() => server.close());

const auth = () => ({ authorization: `Bearer ${token}` });
const path = (id: number) => `/provisioning/v0/accounts/id/${id}`;
const get = async (id: number) => (await server.http.get(path(id), auth())).json.account;

/** Integral doubles at and beyond int64 (2^63 = 9223372036854775808), the double extremes, and ordinary fractions. */
const DOUBLES: ReadonlyArray<[string, number]> = [
  ['1e20', 1e20],
  ['-1.7976931348623157e308', -1.7976931348623157e308],
  ['1.7976931348623157e308', Number.MAX_VALUE],
  ['5e-324', 5e-324],
  ['9.3e18', 9.3e18],
  ['2^63', 2 ** 63],
  ['-2^63', -(2 ** 63)],
  ['-1e20', -1e20],
  ['2^53 + 2', 2 ** 53 + 2],
  ['0.1', 0.1],
  ['1/3', 1 / 3],
  ['42', 42],
];

/** The ten number fields of one account, each a different value from DOUBLES (wrapping around). */
function numberFields(shift: number): Record<string, number> {
  return Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`field${21 + i}`, DOUBLES[(i + shift) % DOUBLES.length]![1]]),
  );
}

/** A value as the JSON text of a number, so the test sends exactly what a client would type. */
function bodyWith(values: Record<string, string>): string {
  const account = JSON.stringify(VALID_ACCOUNT).slice(0, -1);
  return `{"account":${account}${Object.entries(values)
    .map(([field, text]) => `,"${field}":${text}`)
    .join('')}}}`;
}

describe('number custom fields hold any finite double', () => {
  it.each(DOUBLES)('POST then GET: %s', async (_, value) => {
    const res = await jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', {
      account: { ...VALID_ACCOUNT, field21: value, field30: value },
    });
    expect(res.status).toBe(201);
    expect(res.json.account.field21).toBe(value);
    expect(res.json.account.field30).toBe(value);
    const stored = await get(res.json.account.id);
    expect(stored.field21).toBe(value);
    expect(stored.field30).toBe(value);
  });

  it('PUT and PATCH store every field exactly, and the list shows the same', async () => {
    const { id } = await createAccount(server, token);
    for (const shift of [0, 3, 7]) {
      const fields = numberFields(shift);
      const put = await jsonRequest(server, token, 'PUT', path(id), { account: { ...VALID_ACCOUNT, ...fields } });
      expect(put.status).toBe(200);
      expect(put.json.account).toMatchObject(fields);
      expect(await get(id)).toMatchObject(fields);
    }
    for (const shift of [1, 5, 9]) {
      const fields = numberFields(shift);
      const patch = await jsonRequest(
        server,
        token,
        'PATCH',
        path(id),
        { account: fields },
        'application/merge-patch+json',
      );
      expect(patch.status).toBe(200);
      expect(patch.json.account).toMatchObject(fields);
      expect(await get(id)).toMatchObject(fields);
    }
    const list = await server.http.get(`/provisioning/v0/accounts?id=${id}`, auth());
    expect(list.json.accounts[0]).toMatchObject(numberFields(9));
  });

  it('the text of the number does not matter: 1E+20, 100000000000000000000 and 1e20 are one double', async () => {
    const res = await jsonRequest(
      server,
      token,
      'POST',
      '/provisioning/v0/accounts',
      bodyWith({ field21: '1E+20', field22: '100000000000000000000', field23: '9300000000000000000.0' }),
    );
    expect(res.status).toBe(201);
    expect(await get(res.json.account.id)).toMatchObject({ field21: 1e20, field22: 1e20, field23: 9.3e18 });
  });

  it('the reporting customFields embed shows the stored doubles', async () => {
    const fields = numberFields(0);
    const { id } = await createAccount(server, token, fields);
    const res = await server.http.get(
      `/reporting/v0/accounts?embed=customFields&statistics=clicks&filter=${encodeURIComponent(`id == ${id}`)}`,
      auth(),
    );
    expect(res.status).toBe(200);
    expect(res.json.accounts).toHaveLength(1);
    expect(res.json.accounts[0].customFields).toMatchObject(fields);
  });

  it('a report filter compares the stored doubles (literals stay within 2^53, the planner refuses larger ones)', async () => {
    const big = await createAccount(server, token, { field21: 1e20 });
    const small = await createAccount(server, token, { field21: 42 });
    const res = await server.http.get(
      `/reporting/v0/accounts?statistics=clicks&filter=${encodeURIComponent(`id in [${big.id}, ${small.id}] && customFields.field21 > 9007199254740991`)}`,
      auth(),
    );
    expect(res.status).toBe(200);
    expect(res.json.accounts.map((row: { id: number }) => row.id)).toEqual([big.id]);
  });

  it('-0 is kept as 0, which is what JSON can say back', async () => {
    const res = await jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', bodyWith({ field21: '-0' }));
    expect(res.status).toBe(201);
    expect(Object.is(res.json.account.field21, 0)).toBe(true);
    const report = await server.http.get(
      `/reporting/v0/accounts?embed=customFields&statistics=clicks&filter=${encodeURIComponent(`id == ${res.json.account.id}`)}`,
      auth(),
    );
    expect(Object.is(report.json.accounts[0].customFields.field21, 0)).toBe(true);
  });
});

describe('a JSON number beyond the double range', () => {
  for (const text of ['1e400', '-1e400', '1' + '0'.repeat(400)]) {
    it(`${text.slice(0, 12)}: 422 not_finite naming the field, nothing stored (POST, PUT, PATCH)`, async () => {
      const before = (await server.http.get('/provisioning/v0/accounts?limit=1', auth())).headers['x-totalcount'];
      const post = await jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', bodyWith({ field22: text }));
      expect(post.status).toBe(422);
      expect(post.json.error.code).toBe('validation_failed');
      expect(post.json.error.details).toEqual([
        { field: 'account.field22', code: 'not_finite', message: expect.stringContaining('finite') },
      ]);
      expect((await server.http.get('/provisioning/v0/accounts?limit=1', auth())).headers['x-totalcount']).toBe(before);

      const { id } = await createAccount(server, token, { field22: 7 });
      const put = await jsonRequest(server, token, 'PUT', path(id), bodyWith({ field22: text }));
      expect(put.status).toBe(422);
      expect(put.json.error.details[0]).toMatchObject({ field: 'account.field22', code: 'not_finite' });
      const patch = await jsonRequest(
        server,
        token,
        'PATCH',
        path(id),
        `{"account":{"field22":${text}}}`,
        'application/merge-patch+json',
      );
      expect(patch.status).toBe(422);
      expect(patch.json.error.details[0]).toMatchObject({ field: 'account.field22', code: 'not_finite' });
      expect((await get(id)).field22).toBe(7);
    });
  }
});
