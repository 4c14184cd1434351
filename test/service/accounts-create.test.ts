import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCount, createAccount, jsonRequest, VALID_ACCOUNT } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
});
afterAll(() => server.close());

const post = (body: unknown) => jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', body);
const postAccount = (account: Record<string, unknown>) => post({ account });

/** Spec table 2.3, written out here independently of the service's own copy. */
const TABLE_2_3: Array<[string, string[]]> = [
  ['zh', ['CN', 'HK', 'SG', 'TW']],
  ['da', ['DK']],
  ['nl', ['BE', 'NL']],
  ['en', ['AU', 'CA', 'DK', 'ID', 'IE', 'NZ', 'ZA', 'GB', 'US']],
  ['fi', ['FI']],
  ['fr', ['BE', 'CA', 'FR', 'CH', 'US']],
  ['de', ['AT', 'DE', 'CH']],
  ['it', ['IT']],
  ['ja', ['JP']],
  ['nb', ['NO']],
  ['pt', ['BR']],
  ['es', ['AR', 'MX', 'ES', 'US']],
  ['sv', ['FI', 'SE']],
];
const ALLOWED_PAIRS = TABLE_2_3.flatMap(([language, countries]) =>
  countries.map((country) => [language, country] as const),
);

function expectRule(res: { status: number; json: any }, field: string, code: string) {
  expect(res.status).toBe(422);
  expect(res.json.error.code).toBe('validation_failed');
  expect(res.json.error.details).toContainEqual({ field, code, message: expect.any(String) });
}

describe('POST /provisioning/v0/accounts: the response shape of spec 2.2', () => {
  it('creates an account: 201, Location, every field present, custom fields null when unset', async () => {
    const res = await postAccount({
      ...VALID_ACCOUNT,
      notes: 'VIP',
      autoImport: true,
      field2: 'two',
      field25: 2.5,
      labels: { clientId: 'C-42' },
    });
    expect(res.status).toBe(201);
    const account = res.json.account;
    expect(res.headers.location).toBe(`/provisioning/v0/accounts/id/${account.id}`);
    const expected: Record<string, unknown> = {
      id: expect.any(Number),
      name: 'Acme GmbH',
      language: 'de',
      country: 'DE',
      currency: 'EUR',
      notes: 'VIP',
      autoImport: true,
      labels: { clientId: 'C-42' },
      linkedAdPlatformAccounts: [],
    };
    for (let i = 1; i <= 30; i++) expected[`field${i}`] = null;
    expected.field2 = 'two';
    expected.field25 = 2.5;
    expect(account).toEqual(expected);
    expect(account).not.toHaveProperty('languageCode');
    expect(account).not.toHaveProperty('countryCode');

    const fetched = await server.http.get(`/provisioning/v0/accounts/id/${account.id}`, {
      authorization: `Bearer ${token}`,
    });
    expect(fetched.status).toBe(200);
    expect(fetched.json).toEqual({ account });
  });

  it('defaults: autoImport false, notes null, labels an empty object', async () => {
    const account = await createAccount(server, token);
    expect(account).toMatchObject({ autoImport: false, notes: null, labels: {}, linkedAdPlatformAccounts: [] });
  });

  it('keeps label names like "constructor" as plain labels', async () => {
    const account = await createAccount(server, token, { labels: { constructor: 'x', toString: 'y' } });
    expect(account.labels).toEqual({ constructor: 'x', toString: 'y' });
  });
});

describe('language and country (spec 2.3)', () => {
  it(`accepts every one of the ${ALLOWED_PAIRS.length} listed pairs`, async () => {
    const results = await Promise.all(
      ALLOWED_PAIRS.map(([languageCode, countryCode]) => postAccount({ ...VALID_ACCOUNT, languageCode, countryCode })),
    );
    const refused = results
      .map((res, i) => [ALLOWED_PAIRS[i], res.status] as const)
      .filter(([, status]) => status !== 201);
    expect(refused).toEqual([]);
    expect(results.map((r) => [r.json.account.language, r.json.account.country])).toEqual(
      ALLOWED_PAIRS.map(([l, c]) => [l, c]),
    );
  });

  it.each([
    ['en', 'FR'],
    ['de', 'US'],
    ['fr', 'DE'],
    ['sv', 'NO'],
    ['nb', 'SE'],
    ['zh', 'JP'],
    ['pt', 'PT'],
    ['es', 'BR'],
    ['da', 'SE'],
    ['nl', 'DE'],
  ])('refuses %s-%s with 422 on countryCode', async (languageCode, countryCode) => {
    expectRule(
      await postAccount({ ...VALID_ACCOUNT, languageCode, countryCode }),
      'account.countryCode',
      'not_allowed',
    );
  });

  it.each([['xx'], ['EN'], ['eng'], ['pl']])(
    'refuses the language %s with 422 on languageCode',
    async (languageCode) => {
      expectRule(await postAccount({ ...VALID_ACCOUNT, languageCode }), 'account.languageCode', 'not_allowed');
    },
  );

  it('refuses a lower-case or malformed country code', async () => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, countryCode: 'de' }), 'account.countryCode', 'invalid_format');
    expectRule(await postAccount({ ...VALID_ACCOUNT, countryCode: 'DEU' }), 'account.countryCode', 'invalid_format');
  });
});

describe('currency (ISO 4217)', () => {
  it.each(['EUR', 'USD', 'JPY', 'CHF', 'BRL', 'XOF', 'MXN'])('accepts %s', async (currency) => {
    expect((await postAccount({ ...VALID_ACCOUNT, currency })).status).toBe(201);
  });

  // Valid ISO codes without exchange rates: reports in them could not be converted.
  it.each(['VED', 'ZWG'])('refuses %s, which has no exchange rates', async (currency) => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, currency }), 'account.currency', 'unsupported_currency');
  });

  it.each(['usd', 'EURO', 'ABC', 'XXX', 'XTS', 'XAU', ''])('refuses %j', async (currency) => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, currency }), 'account.currency', 'unknown_currency');
  });
});

describe('required fields, lengths and types', () => {
  it('names each missing required field', async () => {
    const res = await postAccount({});
    expect(res.status).toBe(422);
    const fields = res.json.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`).sort();
    expect(fields).toEqual([
      'account.countryCode:required',
      'account.currency:required',
      'account.languageCode:required',
      'account.name:required',
    ]);
  });

  it('refuses null on a required field at create', async () => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, name: null }), 'account.name', 'wrong_type');
  });

  it('accepts a 255-character name and refuses 256', async () => {
    expect((await postAccount({ ...VALID_ACCOUNT, name: 'n'.repeat(255) })).status).toBe(201);
    expectRule(await postAccount({ ...VALID_ACCOUNT, name: 'n'.repeat(256) }), 'account.name', 'too_long');
  });

  it('counts characters as the document does (code points): 255 emoji are a valid name, 256 are too long', async () => {
    const created = await postAccount({ ...VALID_ACCOUNT, name: '😀'.repeat(255), field1: '€😀'.repeat(500) });
    expect(created.status, created.text).toBe(201);
    expect(created.json.account.name).toBe('😀'.repeat(255));
    expectRule(await postAccount({ ...VALID_ACCOUNT, name: '😀'.repeat(256) }), 'account.name', 'too_long');
  });

  it('refuses a blank name', async () => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, name: '   ' }), 'account.name', 'blank');
  });

  it('refuses notes over 10000 characters', async () => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, notes: 'x'.repeat(10_001) }), 'account.notes', 'too_long');
  });

  it.each([
    ['field1', 1, 'wrong_type'],
    ['field20', true, 'wrong_type'],
    ['field1', 'x'.repeat(1001), 'too_long'],
    ['field21', '1.5', 'wrong_type'],
    ['field30', [1], 'wrong_type'],
    ['autoImport', 'yes', 'wrong_type'],
    ['name', ['Acme'], 'wrong_type'],
    ['notes', { text: 'x' }, 'wrong_type'],
  ])('refuses %s = %j with %s', async (field, value, code) => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, [field]: value }), `account.${field}`, code);
  });

  it('keeps field1-20 as strings and field21-30 as numbers', async () => {
    const account = await createAccount(server, token, { field1: '007', field20: '', field21: -0.5, field30: 1e12 });
    expect(account).toMatchObject({ field1: '007', field20: '', field21: -0.5, field30: 1e12 });
  });
});

describe('labels (supplement 3)', () => {
  it('accepts 50 labels with 64-character names and 255-character values', async () => {
    const labels = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`L${i}_${'a'.repeat(60)}`.slice(0, 64), 'v'.repeat(255)]),
    );
    const account = await createAccount(server, token, { labels });
    expect(account.labels).toEqual(labels);
  });

  it.each([
    ['a name starting with a digit', { '1abc': 'x' }, 'account.labels.1abc', 'invalid_name'],
    ['a name with a dot', { 'sys.campaignGroup': 'x' }, 'account.labels.sys.campaignGroup', 'invalid_name'],
    ['a 65-character name', { ['a'.repeat(65)]: 'x' }, `account.labels.${'a'.repeat(65)}`, 'invalid_name'],
    ['a value over 255 characters', { big: 'v'.repeat(256) }, 'account.labels.big', 'too_long'],
    ['a number as value', { n: 5 }, 'account.labels.n', 'wrong_type'],
  ])('refuses %s', async (_name, labels, field, code) => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, labels }), field, code);
  });

  it('refuses 51 labels', async () => {
    const labels = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`l${i}`, 'x']));
    expectRule(await postAccount({ ...VALID_ACCOUNT, labels }), 'account.labels', 'too_many');
  });

  it('refuses labels that are not an object', async () => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, labels: [['a', 'b']] }), 'account.labels', 'wrong_type');
  });
});

describe('unknown and read-only fields', () => {
  it('refuses an unknown field instead of storing or ignoring it', async () => {
    expectRule(await postAccount({ ...VALID_ACCOUNT, field31: 'x' }), 'account.field31', 'unknown_field');
  });

  it.each(['id', 'language', 'country', 'linkedAdPlatformAccounts'])('refuses the read-only %s', async (field) => {
    expectRule(
      await postAccount({ ...VALID_ACCOUNT, [field]: field === 'id' ? 99 : 'x' }),
      `account.${field}`,
      'read_only',
    );
  });

  it('lists every broken rule at once, the language/country pair included', async () => {
    const res = await postAccount({
      name: '',
      languageCode: 'en',
      countryCode: 'FR',
      currency: 'usd',
      field21: 'x',
      id: 1,
    });
    const fields = res.json.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual([
      'account.countryCode',
      'account.currency',
      'account.field21',
      'account.id',
      'account.name',
    ]);
  });
});

describe('unreadable bodies (400) and failed requests change nothing', () => {
  it.each([
    ['no wrapper', { ...VALID_ACCOUNT }],
    ['a wrapper that is not an object', { account: 'Acme' }],
    ['a wrapper with a second key', { account: VALID_ACCOUNT, extra: 1 }],
    ['an array', [VALID_ACCOUNT]],
    ['null', null],
  ])('%s gives 400 invalid_body', async (_name, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_body');
  });

  it('keeps the account count through a run of refused creates', async () => {
    const before = await accountCount(server, token);
    const statuses = await Promise.all([
      postAccount({ ...VALID_ACCOUNT, currency: 'ABC' }),
      post('{"account": {'),
      postAccount({ ...VALID_ACCOUNT, labels: { '1': 'x' } }),
      jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', { account: VALID_ACCOUNT }, 'text/plain'),
    ]).then((all) => all.map((r) => r.status));
    expect(statuses).toEqual([422, 400, 422, 415]);
    expect(await accountCount(server, token)).toBe(before);
  });
});
