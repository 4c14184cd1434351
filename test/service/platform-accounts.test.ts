import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest, otherTenantToken } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
let auth: Record<string, string>;
let google: { id: number; adPlatformId: string };
let microsoft: { id: number; adPlatformId: string };
beforeAll(async () => {
  server = await startTestServer({
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    jobs: { backoffBaseMs: 10, maxBackoffMs: 50 },
  });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  const masters = (await server.http.get('/provisioning/v0/adplatform-master-accounts', auth)).json
    .adPlatformMasterAccounts;
  google = masters.find((m: { adPlatformType: string }) => m.adPlatformType === 'GOOGLE_ADS');
  microsoft = masters.find((m: { adPlatformType: string }) => m.adPlatformType === 'MICROSOFT_ADVERTISING');
});
afterAll(() => server.close());
afterEach(() => server.service.platforms.clearFaults());

const P = '/provisioning/v0';
const underMaster = async (masterId: number) =>
  (await server.http.get(`${P}/adplatform-master-accounts/id/${masterId}/adplatform-accounts`, auth)).json
    .adPlatformAccounts as Array<Record<string, any>>;
const link = (accountId: number, adPlatformAccount: Record<string, unknown>) =>
  jsonRequest(server, token, 'POST', `${P}/accounts/id/${accountId}/adplatform-accounts`, { adPlatformAccount });

describe('master accounts (linked by the operator; the demo links one per search platform)', () => {
  it('lists them with kind, X-TotalCount and paging', async () => {
    const res = await server.http.get(`${P}/adplatform-master-accounts`, auth);
    expect(res.status).toBe(200);
    expect(res.headers['x-totalcount']).toBe('2');
    expect(res.json.adPlatformMasterAccounts).toEqual([
      {
        id: expect.any(Number),
        name: expect.any(String),
        adPlatformType: 'GOOGLE_ADS',
        adPlatformId: expect.stringMatching(/^\d{3}-\d{3}-\d{4}$/),
        kind: 'MANAGER',
      },
      {
        id: expect.any(Number),
        name: expect.any(String),
        adPlatformType: 'MICROSOFT_ADVERTISING',
        adPlatformId: expect.stringMatching(/^\d+$/),
        kind: 'RESELLER',
      },
    ]);
    const page = await server.http.get(`${P}/adplatform-master-accounts?limit=1&offset=1`, auth);
    expect(page.json.adPlatformMasterAccounts.map((m: { id: number }) => m.id)).toEqual([microsoft.id]);
  });

  it('gets one, 404 for unknown ids and for another organization', async () => {
    expect(
      (await server.http.get(`${P}/adplatform-master-accounts/id/${google.id}`, auth)).json.adPlatformMasterAccount,
    ).toMatchObject(google);
    expect((await server.http.get(`${P}/adplatform-master-accounts/id/999999`, auth)).status).toBe(404);
    const theirs = { authorization: `Bearer ${await otherTenantToken(server)}` };
    expect((await server.http.get(`${P}/adplatform-master-accounts/id/${google.id}`, theirs)).status).toBe(404);
    expect(
      (await server.http.get(`${P}/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, theirs)).status,
    ).toBe(404);
    expect((await server.http.get(`${P}/adplatform-master-accounts`, theirs)).json.adPlatformMasterAccounts).toEqual(
      [],
    );
  });

  it('lists the platform accounts under a master as the platform does, each with currency, time zone and linked', async () => {
    const accounts = await underMaster(google.id);
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) {
      expect(account).toEqual({
        adPlatformId: expect.stringMatching(/^\d{3}-\d{3}-\d{4}$/),
        name: expect.any(String),
        currency: expect.stringMatching(/^[A-Z]{3}$/),
        timeZone: expect.stringMatching(/\//),
        linked: false,
      });
    }
  });

  it('answers 503 with Retry-After when the platform is down, 422 when it denies access', async () => {
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { failNext: 1 });
    const down = await server.http.get(`${P}/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, auth);
    expect(down.status).toBe(503);
    expect(down.json.error.code).toBe('platform_unavailable');
    expect(Number(down.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: true });
    const denied = await server.http.get(`${P}/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, auth);
    expect(denied.status).toBe(422);
    expect(denied.json.error.details[0].code).toBe('no_access');
  });
});

describe('linking platform accounts to an account', () => {
  it('links an account under a master: 201 in the linked form, shown in the account', async () => {
    const account = await createAccount(server, token);
    const target = (await underMaster(google.id))[0]!;
    const res = await link(account.id, { adPlatformType: 'GOOGLE_ADS', adPlatformId: target.adPlatformId });
    expect(res.status).toBe(201);
    expect(res.json.adPlatformAccount).toEqual({
      id: expect.any(Number),
      name: target.name,
      adPlatformType: 'GOOGLE_ADS',
      status: 'READ_WRITE',
      adPlatformId: target.adPlatformId,
    });
    const fetched = (await server.http.get(`${P}/accounts/id/${account.id}`, auth)).json.account;
    expect(fetched.linkedAdPlatformAccounts).toEqual([res.json.adPlatformAccount]);
    expect((await underMaster(google.id)).find((a) => a.adPlatformId === target.adPlatformId)!.linked).toBe(true);

    const known = (await server.http.get(`${P}/adplatform-accounts/id/${res.json.adPlatformAccount.id}`, auth)).json
      .adPlatformAccount;
    expect(known).toEqual({
      id: res.json.adPlatformAccount.id,
      name: target.name,
      adPlatformType: 'GOOGLE_ADS',
      adPlatformId: target.adPlatformId,
      currency: target.currency,
      timeZone: target.timeZone,
      masterAccountId: google.id,
      linkedAccountIds: [account.id],
    });
  });

  it('links one platform account to several accounts, but twice to one is 409', async () => {
    const [a, b] = [await createAccount(server, token), await createAccount(server, token)];
    const target = (await underMaster(microsoft.id))[0]!;
    const first = await link(a.id, {
      adPlatformType: 'MICROSOFT_ADVERTISING',
      adPlatformId: target.adPlatformId,
      status: 'READ_ONLY',
    });
    expect(first.json.adPlatformAccount.status).toBe('READ_ONLY');
    expect((await link(b.id, { adPlatformType: 'BING_ADS', adPlatformId: target.adPlatformId })).status).toBe(201);
    const again = await link(a.id, { adPlatformType: 'MICROSOFT_ADVERTISING', adPlatformId: target.adPlatformId });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('already_linked');
    const known = (await server.http.get(`${P}/adplatform-accounts/id/${first.json.adPlatformAccount.id}`, auth)).json
      .adPlatformAccount;
    expect(known.linkedAccountIds).toEqual([a.id, b.id]);
  });

  it('accepts the pre-rebranding alias ADWORDS and answers with GOOGLE_ADS', async () => {
    const account = await createAccount(server, token);
    const target = (await underMaster(google.id))[1]!;
    const res = await link(account.id, { adPlatformType: 'ADWORDS', adPlatformId: target.adPlatformId });
    expect(res.json.adPlatformAccount.adPlatformType).toBe('GOOGLE_ADS');
  });

  it('links a FACEBOOK ad account from the available list', async () => {
    const available = await server.http.get(`${P}/adplatform-accounts/available?adPlatformType=FACEBOOK`, auth);
    expect(available.status).toBe(200);
    const first = available.json.adPlatformAccounts[0];
    expect(first).toEqual({
      adPlatformId: expect.stringMatching(/^act_\d+$/),
      name: expect.any(String),
      currency: expect.any(String),
      timeZone: expect.any(String),
      linked: false,
    });
    const account = await createAccount(server, token);
    const res = await link(account.id, { adPlatformType: 'FACEBOOK', adPlatformId: first.adPlatformId });
    expect(res.status).toBe(201);
    const after = (await server.http.get(`${P}/adplatform-accounts/available?adPlatformType=FACEBOOK`, auth)).json
      .adPlatformAccounts;
    expect(after.find((a: { adPlatformId: string }) => a.adPlatformId === first.adPlatformId).linked).toBe(true);
    const known = (await server.http.get(`${P}/adplatform-accounts/id/${res.json.adPlatformAccount.id}`, auth)).json
      .adPlatformAccount;
    expect(known.masterAccountId).toBeNull();
  });

  it.each([
    ['a malformed GOOGLE_ADS id', { adPlatformType: 'GOOGLE_ADS', adPlatformId: '12345' }, 'invalid_format'],
    [
      'a well-formed id under no master of the organization',
      { adPlatformType: 'GOOGLE_ADS', adPlatformId: '000-000-0001' },
      'unknown_at_platform',
    ],
    [
      'a FACEBOOK id the organization may not use',
      { adPlatformType: 'FACEBOOK', adPlatformId: 'act_1000000000000001' },
      'unknown_at_platform',
    ],
    ['an unknown platform', { adPlatformType: 'MYSPACE', adPlatformId: 'x' }, 'not_allowed'],
    [
      'NO_ACCESS set by a client',
      { adPlatformType: 'GOOGLE_ADS', adPlatformId: '000-000-0001', status: 'NO_ACCESS' },
      'not_allowed',
    ],
    [
      'an unknown status',
      { adPlatformType: 'GOOGLE_ADS', adPlatformId: '000-000-0001', status: 'OWNER' },
      'not_allowed',
    ],
  ])('refuses %s with 422', async (_name, body, code) => {
    const account = await createAccount(server, token);
    const res = await link(account.id, body);
    expect(res.status).toBe(422);
    expect(res.json.error.details[0].code).toBe(code);
    expect(
      (await server.http.get(`${P}/accounts/id/${account.id}`, auth)).json.account.linkedAdPlatformAccounts,
    ).toEqual([]);
  });

  it('refuses with 422 no_access when the platform revoked our access, and links nothing', async () => {
    const account = await createAccount(server, token);
    const target = (await underMaster(google.id))[2]!;
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: true });
    const res = await link(account.id, { adPlatformType: 'GOOGLE_ADS', adPlatformId: target.adPlatformId });
    expect(res.status).toBe(422);
    expect(res.json.error.details[0].code).toBe('no_access');
  });

  it('answers 404 for an account of another organization', async () => {
    const account = await createAccount(server, token);
    const target = (await underMaster(google.id))[0]!;
    const theirs = await otherTenantToken(server);
    const res = await jsonRequest(server, theirs, 'POST', `${P}/accounts/id/${account.id}/adplatform-accounts`, {
      adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: target.adPlatformId },
    });
    expect(res.status).toBe(404);
  });
});

describe('link status and unlinking', () => {
  it('changes the status, refuses NO_ACCESS, 404 for a link that does not exist', async () => {
    const account = await createAccount(server, token);
    const target = (await underMaster(google.id))[0]!;
    const linked = (await link(account.id, { adPlatformType: 'GOOGLE_ADS', adPlatformId: target.adPlatformId })).json
      .adPlatformAccount;
    const path = `${P}/accounts/id/${account.id}/adplatform-accounts/id/${linked.id}`;
    const res = await jsonRequest(server, token, 'PATCH', path, { adPlatformAccount: { status: 'READ_ONLY' } });
    expect(res.status).toBe(200);
    expect(res.json.adPlatformAccount).toEqual({ ...linked, status: 'READ_ONLY' });
    expect(
      (await server.http.get(`${P}/accounts/id/${account.id}`, auth)).json.account.linkedAdPlatformAccounts[0].status,
    ).toBe('READ_ONLY');
    expect(
      (await jsonRequest(server, token, 'PATCH', path, { adPlatformAccount: { status: 'NO_ACCESS' } })).status,
    ).toBe(422);
    expect((await jsonRequest(server, token, 'PATCH', path, { adPlatformAccount: {} })).status).toBe(422);
    expect(
      (
        await jsonRequest(server, token, 'PATCH', `${P}/accounts/id/${account.id}/adplatform-accounts/id/999999`, {
          adPlatformAccount: { status: 'READ_ONLY' },
        })
      ).status,
    ).toBe(404);
  });

  it('unlinks with 204 and an empty body; a second DELETE is 404 with an empty body too', async () => {
    const account = await createAccount(server, token);
    const target = (await underMaster(google.id))[0]!;
    const linked = (await link(account.id, { adPlatformType: 'GOOGLE_ADS', adPlatformId: target.adPlatformId })).json
      .adPlatformAccount;
    const path = `${P}/accounts/id/${account.id}/adplatform-accounts/id/${linked.id}`;
    const first = await server.http.request('DELETE', path, { headers: auth });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    const second = await server.http.request('DELETE', path, { headers: auth });
    expect(second.status).toBe(404);
    expect(second.text).toBe('');
    expect(
      (await server.http.get(`${P}/accounts/id/${account.id}`, auth)).json.account.linkedAdPlatformAccounts,
    ).toEqual([]);
    // The platform account stays known to the organization.
    expect(
      (await server.http.get(`${P}/adplatform-accounts/id/${linked.id}`, auth)).json.adPlatformAccount.linkedAccountIds,
    ).not.toContain(account.id);
  });
});

describe('platform accounts known to the organization', () => {
  it('lists them with X-TotalCount, filtered by type (aliases accepted)', async () => {
    const all = await server.http.get(`${P}/adplatform-accounts?limit=100`, auth);
    expect(all.status).toBe(200);
    expect(Number(all.headers['x-totalcount'])).toBe(all.json.adPlatformAccounts.length);
    const google = await server.http.get(`${P}/adplatform-accounts?adPlatformType=ADWORDS`, auth);
    expect(google.json.adPlatformAccounts.length).toBeGreaterThan(0);
    expect(
      google.json.adPlatformAccounts.every((a: { adPlatformType: string }) => a.adPlatformType === 'GOOGLE_ADS'),
    ).toBe(true);
  });

  it.each([
    ['/adplatform-accounts?adPlatformType=MYSPACE', 'adPlatformType'],
    ['/adplatform-accounts/available', 'adPlatformType'],
    ['/adplatform-accounts?limit=0', 'limit'],
    ['/adplatform-master-accounts?offset=3', 'offset'],
  ])('GET %s is a 400 naming %s', async (path, parameter) => {
    const res = await server.http.get(`${P}${path}`, auth);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain(parameter);
  });

  it('has no direct accounts on the search platforms', async () => {
    expect(
      (await server.http.get(`${P}/adplatform-accounts/available?adPlatformType=GOOGLE_ADS`, auth)).json
        .adPlatformAccounts,
    ).toEqual([]);
  });
});

describe('creating a platform account inside a master (CREATE_ADPLATFORM_ACCOUNT)', () => {
  const create = (masterId: number, body: unknown, headers: Record<string, string> = {}) =>
    server.http.request('POST', `${P}/adplatform-master-accounts/id/${masterId}/adplatform-accounts`, {
      headers: { ...auth, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('answers 202 with a queued job that creates the account at the platform and registers it', async () => {
    const res = await create(google.id, {
      adPlatformAccount: { name: 'Contoso Launch DE', currency: 'EUR', timeZone: 'Europe/Berlin' },
    });
    expect(res.status).toBe(202);
    expect(res.json.job).toMatchObject({
      id: expect.any(Number),
      type: 'CREATE_ADPLATFORM_ACCOUNT',
      status: expect.stringMatching(/QUEUED|RUNNING|SUCCEEDED/),
      attempts: expect.any(Number),
      input: { masterAccountId: google.id },
      errors: [],
    });
    expect(res.headers.location).toBe(`${P}/jobs/id/${res.json.job.id}`);
    const job = await waitForJob(server, token, res.json.job.id);
    expect(job.status).toBe('SUCCEEDED');
    expect(job.finishedAt).toEqual(expect.any(String));
    const created = job.result.adPlatformAccount;
    expect(created).toMatchObject({
      name: 'Contoso Launch DE',
      currency: 'EUR',
      timeZone: 'Europe/Berlin',
      adPlatformType: 'GOOGLE_ADS',
      masterAccountId: google.id,
      adPlatformId: expect.stringMatching(/^\d{3}-\d{3}-\d{4}$/),
    });
    expect((await underMaster(google.id)).filter((a) => a.adPlatformId === created.adPlatformId)).toHaveLength(1);
    expect(
      (await server.http.get(`${P}/adplatform-accounts/id/${created.id}`, auth)).json.adPlatformAccount,
    ).toMatchObject({ adPlatformId: created.adPlatformId, masterAccountId: google.id, linkedAccountIds: [] });
  });

  it.each([
    [{ adPlatformAccount: { name: 'x', currency: 'EURO', timeZone: 'Europe/Berlin' } }, 'adPlatformAccount.currency'],
    [{ adPlatformAccount: { name: 'x', currency: 'EUR', timeZone: 'Mars/Olympus' } }, 'adPlatformAccount.timeZone'],
    [{ adPlatformAccount: { name: '', currency: 'EUR', timeZone: 'Europe/Berlin' } }, 'adPlatformAccount.name'],
    [{ adPlatformAccount: { name: 'x', currency: 'EUR' } }, 'adPlatformAccount.timeZone'],
  ])('refuses %j with 422 naming %s, and queues nothing', async (body, field) => {
    const before = (await server.http.get(`${P}/jobs`, auth)).headers['x-totalcount'];
    const res = await create(google.id, body);
    expect(res.status).toBe(422);
    expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await server.http.get(`${P}/jobs`, auth)).headers['x-totalcount']).toBe(before);
  });

  it('answers 404 for an unknown master', async () => {
    expect((await create(999_999, { adPlatformAccount: { name: 'x', currency: 'EUR', timeZone: 'UTC' } })).status).toBe(
      404,
    );
  });

  it('returns the same job for the same Idempotency-Key and body, 422 for another body, 400 for a bad key', async () => {
    const body = { adPlatformAccount: { name: 'Idempotent Ltd', currency: 'GBP', timeZone: 'Europe/London' } };
    const first = await create(microsoft.id, body, { 'idempotency-key': 'create-42' });
    const again = await create(
      microsoft.id,
      { adPlatformAccount: { timeZone: 'Europe/London', currency: 'GBP', name: 'Idempotent Ltd' } },
      { 'idempotency-key': 'create-42' },
    );
    expect(again.status).toBe(202);
    expect(again.json.job.id).toBe(first.json.job.id);
    const other = await create(
      microsoft.id,
      { adPlatformAccount: { ...body.adPlatformAccount, name: 'Other' } },
      { 'idempotency-key': 'create-42' },
    );
    expect(other.status).toBe(422);
    expect(other.json.error.code).toBe('idempotency_key_reused');
    expect((await create(microsoft.id, body, { 'idempotency-key': 'bad key with spaces' })).status).toBe(400);
    await waitForJob(server, token, first.json.job.id);
    expect((await underMaster(microsoft.id)).filter((a) => a.name === 'Idempotent Ltd')).toHaveLength(1);
  });
});

describe('sandbox determinism through the API', () => {
  it('gives a second service on a fresh database the same catalog for the same organization and master', async () => {
    const other = await startTestServer();
    try {
      const otherAuth = { authorization: `Bearer ${await other.token()}` };
      const masters = (await other.http.get(`${P}/adplatform-master-accounts`, otherAuth)).json
        .adPlatformMasterAccounts;
      const theirs = (
        await other.http.get(`${P}/adplatform-master-accounts/id/${masters[0].id}/adplatform-accounts`, otherAuth)
      ).json.adPlatformAccounts;
      const ours = (await underMaster(google.id))
        .filter((a) => !a.name.startsWith('Contoso Launch'))
        .map((a) => ({ ...a, linked: false }));
      expect(theirs.map((a: Record<string, unknown>) => ({ ...a, linked: false }))).toEqual(ours);
      const fb = async (s: TestServer, h: Record<string, string>) =>
        (await s.http.get(`${P}/adplatform-accounts/available?adPlatformType=FACEBOOK`, h)).json.adPlatformAccounts.map(
          (a: { adPlatformId: string }) => a.adPlatformId,
        );
      expect(await fb(other, otherAuth)).toEqual(await fb(server, auth));
    } finally {
      await other.close();
    }
  });
});
