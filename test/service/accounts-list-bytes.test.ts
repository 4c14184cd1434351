import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The account list renders its JSON in DuckDB (account-list-page.ts); a single account is still
 * written by JSON.stringify(toAccountResponse(...)). The list's bytes must be exactly those the
 * JavaScript rendering gives, for every kind of text and number an account can hold.
 */
let server: TestServer;
let token: string;
let auth: Record<string, string>;
const created: Array<Record<string, any>> = [];

/** Text DuckDB's JSON writer and JSON.stringify might write differently. */
const TRICKY_TEXT = [
  'plain',
  'quote " and backslash \\ and slash /',
  'controls \u0001 \u0008 \t \n \u000b \u000c \r \u000e \u001a \u001f end',
  'a literal \\u001F is not an escape',
  'DEL \u007f, NBSP \u00a0, line sep \u2028 \u2029',
  'umlauts äöü, euro €, CJK 漢字, emoji 😀, astral 𝄞',
  '',
  ' spaced ',
  '{"not":"json"}',
];
/** Doubles JavaScript writes in every notation it has. */
const TRICKY_NUMBERS = [
  100,
  -2.5,
  0.1 + 0.2,
  1e21,
  1e-7,
  123456789.123,
  1.7976931348623157e308,
  5e-324,
  2 ** 53,
  -0,
  0.000001,
  1e20,
];

/** Labels are single-line (supplement 3): control characters become "?" there. */
const singleLine = (text: string) => [...text].map((ch) => (ch < ' ' || ch === '\u007f' ? '?' : ch)).join('');

function customFields(seed: number): Record<string, string | number | null> {
  const fields: Record<string, string | number | null> = {};
  for (let f = 1; f <= 20; f++)
    fields[`field${f}`] = f % 7 === 0 ? null : TRICKY_TEXT[(seed + f) % TRICKY_TEXT.length]!;
  for (let f = 21; f <= 30; f++)
    fields[`field${f}`] = f % 9 === 0 ? null : TRICKY_NUMBERS[(seed + f) % TRICKY_NUMBERS.length]!;
  return fields;
}

beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  for (let i = 0; i < TRICKY_TEXT.length + 3; i++) {
    const labels: Record<string, string> =
      i % 3 === 0 ? {} : { zeta: singleLine(TRICKY_TEXT[i % TRICKY_TEXT.length]!), B: 'x', a: 'y' };
    created.push(
      await createAccount(server, token, {
        name: `Account ${i} "quoted"`,
        notes: i % 2 === 0 ? null : TRICKY_TEXT[i % TRICKY_TEXT.length],
        autoImport: false,
        ...customFields(i),
        labels,
      }),
    );
  }
  // Linked platform accounts, two on one account (in the order they were linked).
  const masters = (await server.http.get('/provisioning/v0/adplatform-master-accounts', auth)).json
    .adPlatformMasterAccounts as Array<{ id: number; adPlatformType: string }>;
  const google = masters.find((m) => m.adPlatformType === 'GOOGLE_ADS')!;
  const under = (
    await server.http.get(`/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, auth)
  ).json.adPlatformAccounts as Array<{ adPlatformId: string }>;
  for (const [accountIndex, target] of [
    [1, under[1]!],
    [1, under[0]!],
    [4, under[0]!],
  ] as const) {
    const res = await jsonRequest(
      server,
      token,
      'POST',
      `/provisioning/v0/accounts/id/${created[accountIndex]!.id}/adplatform-accounts`,
      { adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: target.adPlatformId } },
    );
    expect(res.status).toBe(201);
  }
});
afterAll(() => server.close());

/** The bytes of one account as GET /accounts/id/{id} writes them (JSON.stringify). */
async function accountText(id: number): Promise<string> {
  const res = await server.http.get(`/provisioning/v0/accounts/id/${id}`, auth);
  expect(res.status).toBe(200);
  expect(res.text.startsWith('{"account":')).toBe(true);
  return res.text.slice('{"account":'.length, -1);
}

describe('GET /provisioning/v0/accounts: the bytes', () => {
  it('are exactly the accounts as JSON.stringify writes them one by one, in id order', async () => {
    const res = await server.http.get('/provisioning/v0/accounts?limit=100', auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-totalcount']).toBe(String(created.length));
    const expected = `{"accounts":[${(await Promise.all(created.map((a) => accountText(a.id)))).join(',')}]}`;
    expect(res.text).toBe(expected);
  });

  it('hold the values as sent: text, doubles in JavaScript notation, labels by name, links in link order', async () => {
    const res = await server.http.get(`/provisioning/v0/accounts?id=${created[1]!.id}`, auth);
    const account = res.json.accounts[0];
    // Independent of either rendering: the request's own values.
    expect(account).toMatchObject({ ...customFields(1), notes: TRICKY_TEXT[1], name: 'Account 1 "quoted"' });
    expect(Object.keys(account.labels)).toEqual(['B', 'a', 'zeta']);
    expect(account.linkedAdPlatformAccounts).toHaveLength(2);
    // 100 as 100 (not DuckDB's 100.0), 1e21 as 1e+21, -0 as 0.
    for (const [value, text] of [
      [100, '100'],
      [1e21, '1e+21'],
      [1e-7, '1e-7'],
      [-0, '0'],
    ] as const) {
      const field = Object.entries(customFields(1)).find(([, v]) => Object.is(v, value))?.[0];
      if (field) expect(res.text).toContain(`"${field}":${text},`);
    }
    const controls = TRICKY_TEXT[2]!;
    const withControls = created.findIndex((_, i) => Object.values(customFields(i)).includes(controls));
    const page = (await server.http.get(`/provisioning/v0/accounts?id=${created[withControls]!.id}`, auth)).text;
    // JSON.stringify's lower-case escapes (DuckDB's writer uses upper case).
    expect(page).toContain(JSON.stringify(controls));
    expect(page).toContain('\\u001f');
    // An escaped backslash (the literal "\\u001F" text) aside, no upper-case escape is left.
    expect(page.replaceAll('\\\\', '')).not.toContain('\\u001F');
  });

  it('are the same on every page of a filtered walk as in the one-by-one rendering', async () => {
    const filtered = created.filter((_, i) => i % 3 !== 0);
    const texts: string[] = [];
    for (let offset = 0; offset < filtered.length; offset += 4) {
      const res = await server.http.get(`/provisioning/v0/accounts?labels=B:x&limit=4&offset=${offset}`, auth);
      expect(res.headers['x-totalcount']).toBe(String(filtered.length));
      texts.push(res.text.slice('{"accounts":['.length, -2));
    }
    const expected = await Promise.all(filtered.map((a) => accountText(a.id)));
    expect(texts.filter((t) => t !== '').join(',')).toBe(expected.join(','));
  });

  it('keep a text that starts with U+FEFF as stored (the row-object reader dropped the first character)', async () => {
    const account = await createAccount(server, token, { name: '\ufeffBOM first', field3: '\ufeff' });
    const res = await server.http.get(`/provisioning/v0/accounts?id=${account.id}`, auth);
    expect(res.json.accounts[0].name).toBe('\ufeffBOM first');
    expect(res.json.accounts[0].field3).toBe('\ufeff');
  });
});
