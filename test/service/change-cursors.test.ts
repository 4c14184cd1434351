import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRequest, otherTenantToken } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/*
 * Issue 36 items 10 and 12: change cursors are sealed and bound to their organization, so one
 * organization learns nothing of another's changes through them (the shared id sequence), and a
 * cursor issued "in the future" is refused. Real service, real HTTP, a clock the test moves.
 */
const FEED = '/reporting/v0/changes';
let offsetMs = 0;
let server: TestServer;
let mine: string;
let theirs: string;

beforeAll(async () => {
  server = await startTestServer(
    { rateLimit: { ratePerSecond: 10_000, burst: 10_000 } },
    { nowMs: () => Date.now() + offsetMs },
  );
  mine = await server.token();
  theirs = await otherTenantToken(server);
});
afterAll(() => server.close());

async function feed(bearer: string, since?: string) {
  const query = since === undefined ? '' : `?since=${encodeURIComponent(since)}`;
  const res = await server.http.get(`${FEED}${query}`, { authorization: `Bearer ${bearer}` });
  return { status: res.status, json: res.json as Record<string, any> };
}

/** The cursor after every change the organization has now. */
async function drained(bearer: string, since?: string): Promise<string> {
  for (let cursor = since; ;) {
    const res = await feed(bearer, cursor);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    cursor = res.json.nextCursor as string;
    if (!res.json.hasMore) return cursor;
  }
}

const changeCount = async () =>
  Number((await server.service.db.read((r) => r.one<{ n: bigint }>('SELECT count(*) AS n FROM changes')))!.n);
const lastChangeId = async () =>
  Number((await server.service.db.read((r) => r.one<{ n: bigint }>('SELECT max(id) AS n FROM changes')))!.n);

/** An error answer without its request id, to compare two answers. */
const withoutRequestId = (json: Record<string, any>) => ({ ...json.error, requestId: undefined });

describe('change cursors across organizations', () => {
  it("show nothing of another organization's changes, and cannot be forged to probe for them", async () => {
    const before = await drained(mine);
    // The other organization makes changes (each account is an ENTITIES_CHANGED row of its feed).
    const countBefore = await changeCount();
    for (let i = 0; i < 5; i++) {
      const created = await jsonRequest(server, theirs, 'POST', '/provisioning/v0/accounts', {
        account: { name: `Theirs ${i}`, languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
      });
      expect(created.status).toBe(201);
    }
    expect(await changeCount()).toBe(countBefore + 5);
    const after = await feed(mine, before);
    expect(after.json).toMatchObject({ changes: [], hasMore: false });
    // Neither cursor spells a change id: not the last id of the sequence as its bytes (the
    // first format was base64url of "c1.<org>.<id>.<time>"; test/unit/change-cursor.test.ts tries more spellings).
    const last = await lastChangeId();
    for (const cursor of [before, after.json.nextCursor as string]) {
      expect(cursor).toMatch(/^c2_[A-Za-z0-9_-]{59}$/);
      const bytes = Buffer.from(cursor.slice(3), 'base64url');
      const be = Buffer.alloc(8);
      be.writeBigUInt64BE(BigInt(last));
      expect(bytes.includes(be)).toBe(false);
      expect(bytes.toString('latin1').includes(`.${last}.`)).toBe(false);
    }
    // The probe of the issue: cursors made up with a guessed id. Whatever the guess (below the
    // sequence, at it, far above it), the answer is the same, so it says nothing.
    const unsealed = (lastId: number) => Buffer.from(`c1.1.${lastId}.${Date.now()}`).toString('base64url');
    const answers = await Promise.all([1, last, last + 1, 1e12].map((id) => feed(mine, unsealed(id))));
    for (const answer of answers) {
      expect(answer.status).toBe(410);
      expect(withoutRequestId(answer.json)).toEqual(withoutRequestId(answers[0]!.json));
    }
    // Sealed cursors of this organization with a byte changed: the same 400 as any made-up text.
    const sealed = after.json.nextCursor as string;
    for (const i of [3, 20, sealed.length - 2]) {
      const changed = `${sealed.slice(0, i)}${sealed[i] === 'A' ? 'B' : 'A'}${sealed.slice(i + 1)}`;
      const res = await feed(mine, changed);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'invalid_cursor', details: [{ field: 'since' }] });
    }
    // And the feed still resumes from the real cursor.
    expect((await feed(mine, sealed)).status).toBe(200);
  });

  it("refuse the other organization's cursor with the invalid-cursor 400, in both directions", async () => {
    const a = await drained(mine);
    const b = await drained(theirs);
    for (const [bearer, cursor] of [
      [mine, b],
      [theirs, a],
    ] as const) {
      const res = await feed(bearer, cursor);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({
        status: 400,
        code: 'invalid_cursor',
        message: expect.stringContaining('since'),
        details: [{ field: 'since', code: 'invalid_cursor' }],
      });
    }
  });

  it('answers a first-format cursor of the organization with 410 cursor_expired: start again without since', async () => {
    const unsealed = Buffer.from(`c1.1.3.${Date.now()}`).toString('base64url');
    const res = await feed(mine, unsealed);
    expect(res.status).toBe(410);
    expect(res.json.error).toMatchObject({
      code: 'cursor_expired',
      message: expect.stringContaining('without since'),
      details: [{ field: 'since', code: 'cursor_expired' }],
    });
    // Of another organization: as unusable as any made-up text.
    const foreign = Buffer.from(`c1.999.3.${Date.now()}`).toString('base64url');
    expect((await feed(mine, foreign)).json.error).toMatchObject({ status: 400, code: 'invalid_cursor' });
  });
});

describe('cursors issued in the future (issue 36 item 12)', () => {
  it('refuses a cursor issued after now beyond a minute of clock skew, accepts one within it', async () => {
    let future: string;
    let nearFuture: string;
    try {
      offsetMs = 10 * 60_000;
      future = await drained(await server.token());
      offsetMs = 30_000;
      nearFuture = await drained(await server.token());
    } finally {
      offsetMs = 0;
    }
    const bearer = await server.token();
    const refused = await feed(bearer, future);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({
      code: 'invalid_cursor',
      message: expect.stringContaining('after now'),
      details: [{ field: 'since', code: 'invalid_cursor' }],
    });
    expect((await feed(bearer, nearFuture)).status).toBe(200);
  });
});
