import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCount, createAccount, VALID_ACCOUNT } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A JSON body is UTF-8 text (RFC 8259 section 8.1) whose strings are Unicode (section 8.2): bytes
 * that are not UTF-8 and escapes of lone surrogates are refused with the byte offset, so what the
 * service answers is what it keeps. NUL and other control characters stay out of names and labels.
 */

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
});
afterAll(() => server.close());

const ACCOUNTS = '/provisioning/v0/accounts';
const auth = () => ({ authorization: `Bearer ${token}` });

function send(method: string, path: string, body: Buffer | string, contentType = 'application/json') {
  return server.http.request(method, path, { headers: { ...auth(), 'content-type': contentType }, body });
}

/** `{"account":{"name":"<before><bytes><after>",...}}` and the offset of <bytes>, counted here in bytes. */
function accountWithNameBytes(before: string, bytes: readonly number[], after = ''): { body: Buffer; offset: number } {
  const head = Buffer.from(
    `{"account":{"languageCode":"de","countryCode":"DE","currency":"EUR","name":"${before}`,
    'utf8',
  );
  const tail = Buffer.from(`${after}"}}`, 'utf8');
  return { body: Buffer.concat([head, Buffer.from(bytes), tail]), offset: head.length };
}

function expectInvalidBody(res: { status: number; json: any }, code: string, offset: number) {
  expect(res.status).toBe(400);
  expect(res.json.error.code).toBe('invalid_body');
  expect(res.json.error.message).toContain(`byte ${offset}`);
  expect(res.json.error.details).toEqual([
    { field: '(body)', code, message: expect.stringContaining(`byte ${offset}`) },
  ]);
}

describe('bytes that are not UTF-8: 400 invalid_body with the offset of the first bad sequence', () => {
  // Each sequence is ill-formed in UTF-8 (Unicode 15 table 3-7): the offset is where it starts.
  const CASES: ReadonlyArray<[string, number[]]> = [
    ['0xFF', [0xff]],
    ['a lone continuation byte 0x80', [0x80]],
    ['an overlong slash C0 AF', [0xc0, 0xaf]],
    ['an overlong E0 80 AF', [0xe0, 0x80, 0xaf]],
    ['a surrogate encoded as ED A0 80', [0xed, 0xa0, 0x80]],
    ['a sequence cut short E2 82 before the quote', [0xe2, 0x82]],
    ['beyond U+10FFFF: F4 90 80 80', [0xf4, 0x90, 0x80, 0x80]],
    ['Latin-1 é (0xE9) before ASCII', [0xe9, 0x41]],
  ];
  it.each(CASES)('%s in a POST: refused, nothing stored', async (_, bytes) => {
    const before = await accountCount(server, token);
    // Multi-byte characters before the bad bytes: the offset counts bytes, not characters.
    const { body, offset } = accountWithNameBytes('Ωmega 😀 ', bytes, ' GmbH');
    const res = await send('POST', ACCOUNTS, body);
    expectInvalidBody(res, 'invalid_utf8', offset);
    expect(await accountCount(server, token)).toBe(before);
  });

  it('PUT, PATCH (merge-patch+json) and the labels endpoints refuse them too, and change nothing', async () => {
    const account = await createAccount(server, token, { name: 'Kept', labels: { team: 'a' } });
    const { body, offset } = accountWithNameBytes('x', [0xff]);
    expectInvalidBody(await send('PUT', `${ACCOUNTS}/id/${account.id}`, body), 'invalid_utf8', offset);
    expectInvalidBody(
      await send('PATCH', `${ACCOUNTS}/id/${account.id}`, body, 'application/merge-patch+json'),
      'invalid_utf8',
      offset,
    );
    const labels = Buffer.concat([Buffer.from('{"labels":{"team":"'), Buffer.from([0xc3]), Buffer.from('"}}')]);
    expectInvalidBody(
      await send('PATCH', `${ACCOUNTS}/id/${account.id}/labels`, labels, 'application/merge-patch+json'),
      'invalid_utf8',
      19,
    );
    const stored = (await server.http.get(`${ACCOUNTS}/id/${account.id}`, auth())).json.account;
    expect(stored).toMatchObject({ name: 'Kept', labels: { team: 'a' } });
  });

  it('well-formed UTF-8 of every length is stored as sent; a leading byte order mark is skipped', async () => {
    const name = 'A é € 😀 Ω';
    const created = await send(
      'POST',
      ACCOUNTS,
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(JSON.stringify({ account: { ...VALID_ACCOUNT, name } })),
      ]),
    );
    expect(created.status).toBe(201);
    expect(created.json.account.name).toBe(name);
    expect((await server.http.get(`${ACCOUNTS}/id/${created.json.account.id}`, auth())).json.account.name).toBe(name);
  });

  it('a body that is not JSON is still 400 malformed_json', async () => {
    const res = await send('POST', ACCOUNTS, '{"account": ');
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('malformed_json');
  });
});

describe('escapes of lone surrogates: 400 invalid_body with the offset of the escape', () => {
  const CASES: ReadonlyArray<[string, string]> = [
    ['a high surrogate alone', '\\ud800'],
    ['a low surrogate alone', '\\udc00'],
    ['a high surrogate before an ordinary escape', '\\ud83d\\u0041'],
    ['a high surrogate before a raw astral character', '\\ud83d😀'],
    ['a pair in the wrong order', '\\ude00\\ud83d'],
    ['upper-case hex', '\\uD800x'],
  ];
  it.each(CASES)('%s', async (_, escape) => {
    const before = await accountCount(server, token);
    const prefix = `{"account":{"languageCode":"de","countryCode":"DE","currency":"EUR","name":"Ωmega `;
    const res = await send('POST', ACCOUNTS, `${prefix}${escape} GmbH"}}`);
    // The pair in the wrong order: its first member is the lone one.
    expectInvalidBody(res, 'lone_surrogate', Buffer.byteLength(prefix, 'utf8'));
    expect(await accountCount(server, token)).toBe(before);
  });

  it('names the first one when a later string has one too, also inside a label value', async () => {
    const prefix = `{"account":{"languageCode":"de","countryCode":"DE","currency":"EUR","name":"ok","labels":{"x":"€`;
    const res = await send('POST', ACCOUNTS, `${prefix}\\udfff","y":"\\ud800"}}}`);
    expectInvalidBody(res, 'lone_surrogate', Buffer.byteLength(prefix, 'utf8'));
  });

  it('a pair of escapes is one character, and an escaped backslash is no escape', async () => {
    const res = await send(
      'POST',
      ACCOUNTS,
      `{"account":{"languageCode":"de","countryCode":"DE","currency":"EUR","name":"\\ud83d\\ude00 and \\\\ud800"}}`,
    );
    expect(res.status).toBe(201);
    expect(res.json.account.name).toBe('😀 and \\ud800');
    expect((await server.http.get(`${ACCOUNTS}/id/${res.json.account.id}`, auth())).json.account.name).toBe(
      '😀 and \\ud800',
    );
  });
});

describe('control characters: NUL nowhere in text, none of U+0000-U+001F or U+007F in names and labels', () => {
  function expectControl(res: { status: number; json: any }, field: string) {
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation_failed');
    expect(res.json.error.details).toContainEqual({ field, code: 'control_character', message: expect.any(String) });
  }

  it('account name, label values, notes and text fields', async () => {
    const before = await accountCount(server, token);
    for (const name of ['Acme\u0000', 'Acme\tGmbH', 'Acme\nGmbH', 'Acme\u007f', '\u001b[31mred']) {
      expectControl(
        await send('POST', ACCOUNTS, JSON.stringify({ account: { ...VALID_ACCOUNT, name } })),
        'account.name',
      );
    }
    expectControl(
      await send('POST', ACCOUNTS, JSON.stringify({ account: { ...VALID_ACCOUNT, labels: { team: 'a\u0000b' } } })),
      'account.labels.team',
    );
    expectControl(
      await send('POST', ACCOUNTS, JSON.stringify({ account: { ...VALID_ACCOUNT, labels: { team: 'a\nb' } } })),
      'account.labels.team',
    );
    expectControl(
      await send('POST', ACCOUNTS, JSON.stringify({ account: { ...VALID_ACCOUNT, notes: 'a\u0000b' } })),
      'account.notes',
    );
    expectControl(
      await send('POST', ACCOUNTS, JSON.stringify({ account: { ...VALID_ACCOUNT, field7: '\u0000' } })),
      'account.field7',
    );
    expect(await accountCount(server, token)).toBe(before);
  });

  it('notes and text fields keep tabs, line breaks and other controls', async () => {
    const notes = 'line 1\r\nline 2\tindented\u0007';
    const account = await createAccount(server, token, { notes, field1: 'a\nb' });
    expect(account).toMatchObject({ notes, field1: 'a\nb' });
    expect((await server.http.get(`${ACCOUNTS}/id/${account.id}`, auth())).json.account).toMatchObject({
      notes,
      field1: 'a\nb',
    });
  });

  it('the labels endpoints, PATCH of an account, and the organization name', async () => {
    const account = await createAccount(server, token, { name: 'Before', labels: { team: 'a' } });
    for (const method of ['PUT', 'PATCH']) {
      expectControl(
        await send(method, `${ACCOUNTS}/id/${account.id}/labels`, JSON.stringify({ labels: { team: 'x\u0000' } })),
        'labels.team',
      );
    }
    expectControl(
      await send(
        'PATCH',
        `${ACCOUNTS}/id/${account.id}`,
        JSON.stringify({ account: { name: 'x\u0000' } }),
        'application/merge-patch+json',
      ),
      'account.name',
    );
    expect((await server.http.get(`${ACCOUNTS}/id/${account.id}`, auth())).json.account).toMatchObject({
      name: 'Before',
      labels: { team: 'a' },
    });

    const organization = (await server.http.get('/provisioning/v0/organization', auth())).json.organization;
    expectControl(
      await send('PATCH', '/provisioning/v0/organization', JSON.stringify({ organization: { name: 'Org\u0000' } })),
      'organization.name',
    );
    expect((await server.http.get('/provisioning/v0/organization', auth())).json.organization).toEqual(organization);
  });

  it('a new platform account name and a campaign group', async () => {
    const masters = (await server.http.get('/provisioning/v0/adplatform-master-accounts', auth())).json
      .adPlatformMasterAccounts;
    const res = await send(
      'POST',
      `/provisioning/v0/adplatform-master-accounts/id/${masters[0].id}/adplatform-accounts`,
      JSON.stringify({ adPlatformAccount: { name: 'New\u0000', currency: 'EUR', timeZone: 'Europe/Berlin' } }),
    );
    expectControl(res, 'adPlatformAccount.name');
    const known = (await server.http.get('/provisioning/v0/adplatform-accounts', auth())).json.adPlatformAccounts;
    const group = await send(
      'POST',
      `/provisioning/v0/adplatform-accounts/id/${known[0]?.id ?? 1}/campaigns`,
      JSON.stringify({ campaign: { adPlatformId: 'c-1', campaignGroup: 'G\u0000' } }),
    );
    expectControl(group, 'campaign.campaignGroup');
  });
});
