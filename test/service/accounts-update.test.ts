import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest, otherTenantToken, VALID_ACCOUNT } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
});
afterAll(() => server.close());

const path = (id: number | string) => `/provisioning/v0/accounts/id/${id}`;
const put = (id: number | string, account: unknown) => jsonRequest(server, token, 'PUT', path(id), { account });
const patch = (id: number | string, account: unknown, contentType = 'application/merge-patch+json') =>
  jsonRequest(server, token, 'PATCH', path(id), { account }, contentType);
const get = async (id: number) => (await server.http.get(path(id), { authorization: `Bearer ${token}` })).json.account;

const FULL = {
  ...VALID_ACCOUNT,
  notes: 'n',
  autoImport: true,
  field1: 'a',
  field21: 1,
  labels: { clientId: 'C-1', tier: 'gold' },
};

describe('PUT /provisioning/v0/accounts/id/{id} (spec 4.2 rule 1)', () => {
  it('sets every field missing from the body to null, clears labels, keeps the id', async () => {
    const { id } = await createAccount(server, token, FULL);
    const res = await put(id, { name: 'Renamed', languageCode: 'en', countryCode: 'GB', currency: 'GBP' });
    expect(res.status).toBe(200);
    expect(res.json.account).toMatchObject({
      id,
      name: 'Renamed',
      language: 'en',
      country: 'GB',
      currency: 'GBP',
      notes: null,
      autoImport: false,
      field1: null,
      field21: null,
      labels: {},
    });
    expect(await get(id)).toEqual(res.json.account);
  });

  it('replaces all labels with the given ones', async () => {
    const { id } = await createAccount(server, token, FULL);
    const res = await put(id, { ...VALID_ACCOUNT, labels: { other: 'x' } });
    expect(res.json.account.labels).toEqual({ other: 'x' });
  });

  it('needs the four required fields and changes nothing when one is missing', async () => {
    const { id } = await createAccount(server, token, FULL);
    const before = await get(id);
    const res = await put(id, { name: 'Only a name' });
    expect(res.status).toBe(422);
    expect(res.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'account.countryCode',
      'account.currency',
      'account.languageCode',
    ]);
    expect(await get(id)).toEqual(before);
  });

  it('applies every rule of create', async () => {
    const { id } = await createAccount(server, token);
    const res = await put(id, { ...VALID_ACCOUNT, countryCode: 'US', id: 7 });
    expect(res.status).toBe(422);
    expect(res.json.error.details.map((d: { code: string }) => d.code).sort()).toEqual(['not_allowed', 'read_only']);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await put(999_999, VALID_ACCOUNT);
    expect(res.status).toBe(404);
  });
});

describe('PATCH /provisioning/v0/accounts/id/{id}: JSON Merge Patch (RFC 7396)', () => {
  it('A.1: a member present replaces the value; the others stay', async () => {
    const { id } = await createAccount(server, token, FULL);
    const res = await patch(id, { name: 'Changed' });
    expect(res.status).toBe(200);
    expect(res.json.account).toEqual({ ...(await get(id)), name: 'Changed' });
    expect(res.json.account).toMatchObject({ notes: 'n', field1: 'a', labels: FULL.labels, autoImport: true });
  });

  it('A.2: a member not yet set is added', async () => {
    const { id } = await createAccount(server, token);
    expect((await patch(id, { field5: 'five' })).json.account.field5).toBe('five');
  });

  it('A.3/A.4: null removes an optional member and leaves the rest', async () => {
    const { id } = await createAccount(server, token, FULL);
    const res = await patch(id, { notes: null, field21: null });
    expect(res.json.account).toMatchObject({ notes: null, field21: null, field1: 'a', name: FULL.name });
  });

  it('A.5/A.6: a value of another type is refused, not stored', async () => {
    const { id } = await createAccount(server, token, FULL);
    for (const [field, value] of [
      ['field1', ['b']],
      ['field21', 'c'],
      ['name', { first: 'x' }],
    ] as const) {
      const res = await patch(id, { [field]: value });
      expect(res.status).toBe(422);
      expect(res.json.error.details[0]).toMatchObject({ field: `account.${field}`, code: 'wrong_type' });
    }
    expect(await get(id)).toMatchObject({ field1: 'a', field21: 1, name: FULL.name });
  });

  it('A.13: members already null stay null when others are added', async () => {
    const { id } = await createAccount(server, token);
    const res = await patch(id, { field22: 1 });
    expect(res.json.account).toMatchObject({ field22: 1, field23: null, notes: null });
  });

  it('an empty patch changes nothing', async () => {
    const { id } = await createAccount(server, token, FULL);
    const before = await get(id);
    const res = await patch(id, {});
    expect(res.status).toBe(200);
    expect(res.json.account).toEqual(before);
  });

  it('accepts application/json as well as application/merge-patch+json', async () => {
    const { id } = await createAccount(server, token);
    expect((await patch(id, { notes: 'json' }, 'application/json')).json.account.notes).toBe('json');
  });

  it('refuses other content types with 415', async () => {
    const { id } = await createAccount(server, token);
    expect((await patch(id, { notes: 'x' }, 'application/json-patch+json')).status).toBe(415);
  });

  it('replaces all labels when labels is present, and clears them with null (spec 4.2 rule 2)', async () => {
    const { id } = await createAccount(server, token, FULL);
    expect((await patch(id, { labels: { tier: 'silver' } })).json.account.labels).toEqual({ tier: 'silver' });
    expect((await patch(id, { labels: null })).json.account.labels).toEqual({});
  });

  it('refuses null on each required field with 422 and changes nothing', async () => {
    const { id } = await createAccount(server, token, FULL);
    const before = await get(id);
    for (const field of ['name', 'languageCode', 'countryCode', 'currency']) {
      const res = await patch(id, { [field]: null, notes: 'changed?' });
      expect(res.status).toBe(422);
      expect(res.json.error.details).toEqual([
        { field: `account.${field}`, code: 'required', message: expect.any(String) },
      ]);
    }
    expect(await get(id)).toEqual(before);
  });

  it('checks the merged account: a language change that breaks the pair is refused', async () => {
    const { id } = await createAccount(server, token, { languageCode: 'de', countryCode: 'CH' });
    const broken = await patch(id, { languageCode: 'it' });
    expect(broken.status).toBe(422);
    expect(broken.json.error.details[0]).toMatchObject({ field: 'account.countryCode', code: 'not_allowed' });
    expect((await patch(id, { languageCode: 'fr' })).json.account).toMatchObject({ language: 'fr', country: 'CH' });
    expect((await patch(id, { languageCode: 'it', countryCode: 'IT' })).json.account).toMatchObject({
      language: 'it',
      country: 'IT',
    });
  });

  it('refuses read-only and unknown members, and treats __proto__ as an unknown field', async () => {
    const { id } = await createAccount(server, token, FULL);
    const before = await get(id);
    for (const body of [
      '{"account":{"id":5}}',
      '{"account":{"__proto__":{"name":"polluted"}}}',
      '{"account":{"constructor":{"prototype":{"x":1}}}}',
    ]) {
      const res = await jsonRequest(server, token, 'PATCH', path(id), body);
      expect(res.status, body).toBe(422);
    }
    expect(await get(id)).toEqual(before);
    expect(({} as Record<string, unknown>).name).toBeUndefined();
  });

  it('answers 404 for an unknown id and 400 for an id that is not an integer', async () => {
    expect((await patch(999_999, { notes: 'x' })).status).toBe(404);
    expect((await patch('abc', { notes: 'x' })).status).toBe(400);
  });

  it('never loses an update when patches of one account run concurrently', async () => {
    const { id } = await createAccount(server, token);
    const fields = Array.from({ length: 20 }, (_, i) => `field${i + 1}`);
    const results = await Promise.all(fields.map((field) => patch(id, { [field]: `v-${field}` })));
    expect(results.map((r) => r.status)).toEqual(fields.map(() => 200));
    const account = await get(id);
    for (const field of fields) expect(account[field]).toBe(`v-${field}`);
  });
});

describe('path ids', () => {
  it.each([
    ['abc', 400],
    ['1.5', 400],
    ['99999999999999999999', 400],
    ['9223372036854775808', 400],
    ['0', 404],
    ['-1', 404],
    ['9223372036854775807', 404],
  ])('GET /accounts/id/%s answers %i', async (id, status) => {
    const res = await server.http.get(path(id), { authorization: `Bearer ${token}` });
    expect(res.status).toBe(status);
  });
});

describe('another organization', () => {
  it("cannot see or change this organization's accounts: 404 everywhere, nothing changes", async () => {
    const account = await createAccount(server, token, FULL);
    const theirs = await otherTenantToken(server);
    const asThem = { authorization: `Bearer ${theirs}` };
    expect((await server.http.get(path(account.id), asThem)).status).toBe(404);
    expect((await jsonRequest(server, theirs, 'PUT', path(account.id), { account: VALID_ACCOUNT })).status).toBe(404);
    expect((await jsonRequest(server, theirs, 'PATCH', path(account.id), { account: { name: 'x' } })).status).toBe(404);
    const list = await server.http.get(`/provisioning/v0/accounts?id=${account.id}`, asThem);
    expect(list.json.accounts).toEqual([]);
    expect(list.headers['x-totalcount']).toBe('0');
    expect(await get(account.id)).toEqual(account);
  });
});
