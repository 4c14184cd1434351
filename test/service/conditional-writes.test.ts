import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccount,
  jsonRequest,
  linkedGoogleAccount,
  otherTenantToken,
  VALID_ACCOUNT,
} from '../helpers/accounts.js';
import type { HttpResponse } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 36 item 1: every provisioning resource answers a strong ETag, and PUT, PATCH and DELETE
 * honour If-Match and If-None-Match against it (RFC 9110 13.1.1, 13.1.2): a false condition is a
 * 412 with the current ETag and changes nothing; a malformed header is a 400 naming it.
 */

let server: TestServer;
let token: string;
let otherToken: string;
beforeAll(async () => {
  server = await startTestServer({
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    webhooks: { allowPrivate: true },
  });
  token = await server.token();
  otherToken = await otherTenantToken(server);
});
afterAll(() => server.close());

const P = '/provisioning/v0';
const STRONG_TAG = /^"[A-Za-z0-9_-]{22}"$/;

const get = (path: string, headers: Record<string, string> = {}, as = token) =>
  server.http.get(path, { authorization: `Bearer ${as}`, ...headers });
function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}, as = token) {
  return server.http.request(method, path, {
    headers: {
      authorization: `Bearer ${as}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
const etagOf = (res: HttpResponse) => res.headers.etag as string;

/** What a resource kind needs for these tests: a fresh one, and a write that changes it (PUT or PATCH), or none. */
interface Kind {
  readonly name: string;
  /** Creates a resource; its path and the create answer's ETag. */
  create(): Promise<{ path: string; createdTag: string }>;
  /** A write that changes the representation; `n` makes each call's change distinct. */
  readonly write?: { method: 'PUT' | 'PATCH'; body: (n: number) => unknown };
  readonly deletable: boolean;
}

let campaignIds = 0;
async function insertCampaign(): Promise<number> {
  const demo = server.service.demo!;
  if (!demo.created) throw new Error('the demo organization was not created');
  const organizationId = demo.organization.id;
  return server.service.db.write('all-organizations', async (tx) => {
    const row = await tx.one<{ id: number }>(
      "INSERT INTO campaigns (organization_id, adplatform_account_id, ad_platform_type, ad_platform_id, name, status) VALUES ($1, 1, 'GOOGLE_ADS', $2, 'C', 'ENABLED') RETURNING id",
      [organizationId, `etag-cmp-${++campaignIds}`],
    );
    return row!.id;
  });
}

async function created(res: HttpResponse): Promise<{ path: string; createdTag: string }> {
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return { path: res.headers.location as string, createdTag: etagOf(res) };
}

const KINDS: readonly Kind[] = [
  {
    name: 'account (PATCH)',
    create: async () => created(await send('POST', `${P}/accounts`, { account: { ...VALID_ACCOUNT, name: 'Tagged' } })),
    write: { method: 'PATCH', body: (n) => ({ account: { notes: `note ${n}` } }) },
    deletable: false,
  },
  {
    name: 'account (PUT)',
    create: async () => created(await send('POST', `${P}/accounts`, { account: { ...VALID_ACCOUNT, name: 'Tagged' } })),
    write: { method: 'PUT', body: (n) => ({ account: { ...VALID_ACCOUNT, name: `Replaced ${n}` } }) },
    deletable: false,
  },
  {
    name: 'account labels',
    async create() {
      const account = await createAccount(server, token, { labels: { team: 'a' } });
      const path = `${P}/accounts/id/${account.id}/labels`;
      return { path, createdTag: etagOf(await get(path)) };
    },
    write: { method: 'PATCH', body: (n) => ({ labels: { team: `t${n}` } }) },
    deletable: false,
  },
  {
    name: 'campaign labels',
    async create() {
      const path = `${P}/campaigns/id/${await insertCampaign()}/labels`;
      return { path, createdTag: etagOf(await get(path)) };
    },
    write: { method: 'PUT', body: (n) => ({ labels: { channel: `c${n}` } }) },
    deletable: false,
  },
  {
    name: 'link',
    async create() {
      const { accountId, platformAccountId } = await linkedGoogleAccount(server, token, 'Linked');
      const path = `${P}/accounts/id/${accountId}/adplatform-accounts/id/${platformAccountId}`;
      // The link's create answer is checked in its own test below; here the GET's tag stands in.
      return { path, createdTag: etagOf(await get(path)) };
    },
    write: {
      method: 'PATCH',
      body: (n) => ({ adPlatformAccount: { status: n % 2 === 0 ? 'READ_WRITE' : 'READ_ONLY' } }),
    },
    deletable: true,
  },
  {
    name: 'markup',
    async create() {
      const account = await createAccount(server, token);
      return created(
        await send('POST', `${P}/accounts/id/${account.id}/markups`, {
          markup: { rate: 0.25, startDate: '2026-01-01', endDate: '2026-01-31' },
        }),
      );
    },
    deletable: true,
  },
  {
    name: 'webhook',
    create: async () =>
      created(
        await send('POST', `${P}/webhooks`, {
          webhook: { url: 'https://127.0.0.1:9/hook', events: ['job.failed'], description: 'etag test' },
        }),
      ),
    deletable: true,
  },
];

/** The resource as a GET shows it: status, body and ETag, to compare before and after a refused write. */
async function snapshot(path: string) {
  const res = await get(path);
  return { status: res.status, body: res.json, etag: res.headers.etag };
}

/** The 412: the current ETag in the header (and, with a body, in the message), nothing changed. */
async function expectRefused(res: HttpResponse, path: string, before: Awaited<ReturnType<typeof snapshot>>) {
  expect(res.status, res.text).toBe(412);
  expect(etagOf(res)).toBe(before.etag);
  if (res.text !== '') {
    expect(res.json.error.code).toBe('precondition_failed');
    expect(res.json.error.message).toContain(before.etag);
  }
  expect(await snapshot(path)).toEqual(before);
}

describe.each(KINDS)('$name', (kind) => {
  it('GET answers a strong ETag, the one the create answer gave; If-None-Match with it is a 304', async () => {
    const { path, createdTag } = await kind.create();
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(etagOf(res)).toMatch(STRONG_TAG);
    expect(etagOf(res)).toBe(createdTag);
    expect(etagOf(await get(path))).toBe(etagOf(res));

    for (const header of [etagOf(res), `W/${etagOf(res)}`, `"other", ${etagOf(res)}`, '*']) {
      const notModified = await get(path, { 'if-none-match': header });
      expect(notModified.status, header).toBe(304);
      expect(notModified.text).toBe('');
      expect(etagOf(notModified)).toBe(etagOf(res));
    }
    expect((await get(path, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('stays uncompressed, so the strong ETag names the bytes sent', async () => {
    const { path } = await kind.create();
    const plain = await get(path);
    const asked = await get(path, { 'accept-encoding': 'gzip, br' });
    expect(asked.headers['content-encoding']).toBeUndefined();
    expect(asked.text).toBe(plain.text);
    expect(etagOf(asked)).toBe(etagOf(plain));
  });

  it('If-Match that is not * or an entity-tag list is a 400 naming the header; nothing changes', async () => {
    const { path } = await kind.create();
    const before = await snapshot(path);
    const methods = [...(kind.write ? [kind.write.method] : []), ...(kind.deletable ? ['DELETE'] : [])];
    for (const method of methods) {
      const body = method === 'DELETE' ? undefined : kind.write!.body(1);
      for (const [name, value] of [
        ['if-match', 'nope'],
        ['if-match', `${before.etag} ${before.etag}`],
        ['if-match', 'W/nope'],
        ['if-match', ''],
        ['if-none-match', '**'],
      ] as const) {
        const res = await send(method, path, body, { [name]: value });
        expect(res.status, `${method} ${name}: ${value}`).toBe(400);
        if (method !== 'DELETE') {
          expect(res.json.error.code).toBe('invalid_header');
          expect(res.json.error.details[0].field).toBe(name === 'if-match' ? 'If-Match' : 'If-None-Match');
        } else expect(res.text).toBe('');
      }
      // A malformed header is a 400 whether or not the resource exists (a path id below 1 too): the request is bad as sent.
      for (const id of ['999999999', '-9']) {
        const missing = path.replace(/\/id\/(\d+)((?:\/labels)?)$/, `/id/${id}$2`);
        const res = await send(method, missing, body, { 'if-match': 'nope' });
        expect(res.status, `${method} ${missing}`).toBe(400);
      }
    }
    expect(await snapshot(path)).toEqual(before);
  });

  if (kind.write) {
    const write = kind.write;
    it(`${write.method} with the current ETag succeeds and answers the new one; a stale, bogus or weak one is a 412`, async () => {
      const { path } = await kind.create();
      const first = await snapshot(path);

      const done = await send(write.method, path, write.body(1), { 'if-match': first.etag! });
      expect(done.status, done.text).toBe(200);
      expect(etagOf(done)).toMatch(STRONG_TAG);
      expect(etagOf(done)).not.toBe(first.etag);
      expect(done.headers['content-location']).toBe(path);
      const now = await snapshot(path);
      expect(now.etag).toBe(etagOf(done));
      expect(now.body).toEqual(done.json);

      for (const stale of [first.etag!, '"nope"', `W/${now.etag}`, `"a", W/${now.etag}, "b"`])
        await expectRefused(await send(write.method, path, write.body(2), { 'if-match': stale }), path, now);

      // A list naming the current tag, and *, pass.
      const listed = await send(write.method, path, write.body(3), { 'if-match': `"x", ${now.etag}, "y"` });
      expect(listed.status, listed.text).toBe(200);
      const star = await send(write.method, path, write.body(4), { 'if-match': '*' });
      expect(star.status, star.text).toBe(200);
      expect(etagOf(star)).toBe((await snapshot(path)).etag);
    });

    it(`${write.method} with If-None-Match: * is a 412 (the resource exists); a list without the current tag passes`, async () => {
      const { path } = await kind.create();
      const before = await snapshot(path);
      await expectRefused(await send(write.method, path, write.body(1), { 'if-none-match': '*' }), path, before);
      await expectRefused(
        await send(write.method, path, write.body(1), { 'if-none-match': `W/${before.etag}` }),
        path,
        before,
      );
      const passed = await send(write.method, path, write.body(1), { 'if-none-match': '"some-other"' });
      expect(passed.status, passed.text).toBe(200);
      // If-Match is evaluated first and may pass while If-None-Match fails (13.2.2).
      const after = await snapshot(path);
      await expectRefused(
        await send(write.method, path, write.body(2), { 'if-match': after.etag!, 'if-none-match': '*' }),
        path,
        after,
      );
    });

    it('two concurrent writes with the same If-Match: exactly one succeeds, the other is a 412', async () => {
      const { path } = await kind.create();
      for (let round = 0; round < 3; round++) {
        const before = await snapshot(path);
        // The same change from both, unlike what is stored: whichever commits first changes the tag.
        const body = write.body(round + 1);
        const answers = await Promise.all(
          [0, 1].map(() => send(write.method, path, body, { 'if-match': before.etag! })),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
        const winner = answers.find((a) => a.status === 200)!;
        const loser = answers.find((a) => a.status === 412)!;
        const after = await snapshot(path);
        expect(after.body).toEqual(winner.json);
        expect(etagOf(loser)).toBe(after.etag);
      }
    });
  }

  if (kind.deletable) {
    it('DELETE with a bogus, weak or If-None-Match: * condition is a 412 without a body; with the current ETag it deletes', async () => {
      const { path } = await kind.create();
      const before = await snapshot(path);
      for (const headers of [
        { 'if-match': '"nope"' } as Record<string, string>,
        { 'if-match': `W/${before.etag}` },
        { 'if-none-match': '*' },
        { 'if-none-match': before.etag! },
      ]) {
        const res = await send('DELETE', path, undefined, headers);
        expect(res.text).toBe('');
        await expectRefused(res, path, before);
      }
      const deleted = await send('DELETE', path, undefined, { 'if-match': before.etag! });
      expect(deleted.status).toBe(204);
      expect((await get(path)).status).toBe(404);
    });

    it('two concurrent DELETEs with the same If-Match: one deletes, the other finds nothing', async () => {
      const { path } = await kind.create();
      const { etag } = await snapshot(path);
      const answers = await Promise.all([0, 1].map(() => send('DELETE', path, undefined, { 'if-match': etag! })));
      expect(answers.map((a) => a.status).sort()).toEqual([204, 404]);
    });
  }

  it("a missing resource is a 404 whatever the condition; another organization's too, without its ETag", async () => {
    const { path } = await kind.create();
    const missing = path.replace(/\/id\/(\d+)((?:\/labels)?)$/, '/id/999999999$2');
    const methods = [...(kind.write ? [kind.write.method] : []), ...(kind.deletable ? ['DELETE'] : [])];
    for (const method of methods) {
      const body = method === 'DELETE' ? undefined : kind.write!.body(1);
      const conditions: Array<Record<string, string>> = [
        { 'if-match': '*' },
        { 'if-match': '"nope"' },
        { 'if-none-match': '*' },
      ];
      for (const headers of conditions) {
        const res = await send(method, missing, body, headers);
        expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(404);
        expect(res.headers.etag).toBeUndefined();
        const foreign = await send(method, path, body, headers, otherToken);
        expect(foreign.status).toBe(404);
        expect(foreign.headers.etag).toBeUndefined();
      }
    }
  });
});

describe('what changes a tag', () => {
  it('the service setting a link to NO_ACCESS changes the link and the account tags; writes over the old ones are refused', async () => {
    const { accountId, platformAccountId } = await linkedGoogleAccount(server, token, 'Revoked');
    const linkPath = `${P}/accounts/id/${accountId}/adplatform-accounts/id/${platformAccountId}`;
    const accountPath = `${P}/accounts/id/${accountId}`;
    const link = await snapshot(linkPath);
    const account = await snapshot(accountPath);
    // What withAccessWatch does when a platform answers ACCESS_DENIED (campaign-import.ts).
    await server.service.db.write('all-organizations', (tx) =>
      tx.run(
        "UPDATE account_adplatform_links SET status = 'NO_ACCESS' WHERE account_id = $1 AND adplatform_account_id = $2",
        [accountId, platformAccountId],
      ),
    );
    const linkAfter = await snapshot(linkPath);
    const accountAfter = await snapshot(accountPath);
    expect(linkAfter.body.adPlatformAccount.status).toBe('NO_ACCESS');
    expect(linkAfter.etag).not.toBe(link.etag);
    expect(accountAfter.etag).not.toBe(account.etag);

    await expectRefused(
      await send('PATCH', linkPath, { adPlatformAccount: { status: 'READ_ONLY' } }, { 'if-match': link.etag! }),
      linkPath,
      linkAfter,
    );
    await expectRefused(
      await send('PATCH', accountPath, { account: { notes: 'x' } }, { 'if-match': account.etag! }),
      accountPath,
      accountAfter,
    );
  });

  it("an account's labels are part of it: a label write changes the account's tag", async () => {
    const account = await createAccount(server, token);
    const path = `${P}/accounts/id/${account.id}`;
    const before = await snapshot(path);
    const labelled = await send('PATCH', `${path}/labels`, { labels: { team: 'x' } });
    expect(labelled.status).toBe(200);
    await expectRefused(
      await send('PATCH', path, { account: { notes: 'x' } }, { 'if-match': before.etag! }),
      path,
      await snapshot(path),
    );
  });

  it('a write that changes nothing keeps the tag', async () => {
    const account = await createAccount(server, token, { notes: 'same' });
    const path = `${P}/accounts/id/${account.id}`;
    const before = await snapshot(path);
    const res = await send('PATCH', path, { account: { notes: 'same' } }, { 'if-match': before.etag! });
    expect(res.status).toBe(200);
    expect(etagOf(res)).toBe(before.etag);
  });

  it("the link's create answer carries the tag its GET shows", async () => {
    const account = await createAccount(server, token);
    const google = (await get(`${P}/adplatform-master-accounts`)).json.adPlatformMasterAccounts[0];
    const under = (await get(`${P}/adplatform-master-accounts/id/${google.id}/adplatform-accounts`)).json
      .adPlatformAccounts;
    const res = await jsonRequest(server, token, 'POST', `${P}/accounts/id/${account.id}/adplatform-accounts`, {
      adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: under[0].adPlatformId },
    });
    expect(res.status, res.text).toBe(201);
    expect(etagOf(res)).toMatch(STRONG_TAG);
    expect(etagOf(await get(res.headers.location as string))).toBe(etagOf(res));
  });

  it("a webhook's create answer shows the secret, its ETag is that of the webhook as GET shows it", async () => {
    const res = await send('POST', `${P}/webhooks`, {
      webhook: { url: 'https://127.0.0.1:9/secret', events: ['job.succeeded'] },
    });
    expect(res.status).toBe(201);
    expect(res.json.webhook.secret).toBeDefined();
    const one = await get(res.headers.location as string);
    expect(one.json.webhook.secret).toBeUndefined();
    expect(etagOf(one)).toBe(etagOf(res));
  });
});
