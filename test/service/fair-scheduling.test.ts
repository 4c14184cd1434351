import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/store/database.js';
import { basic, FORM, HttpClient, type HttpResponse } from '../helpers/http.js';
import { addDays, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';
import { tempDir } from '../helpers/server.js';

/**
 * Fair scheduling (issue 21) through real HTTPS on a generated database. The report lane is held
 * by a unit of organization A's work run through the store itself (`db.readReport` with every
 * slot), so that A's requests are seen queued before anything else is sent: the assertions are
 * about the order of completion and the lane's state, never about wall-clock times.
 */

/** Resolves once `test` holds, polling the in-process service's state. */
async function until(test: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const start = performance.now();
  while (!test()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the report lane: organizations served round-robin, cheap reads on their own lane, a bounded queue', () => {
  let fx: ReportingFixture;
  beforeAll(async () => {
    // 2 report slots and no reserve (round-robin alone; the reserve has its own test below); a
    // queue of 80 in all, so 40 per organization.
    fx = await startReportingFixture({
      world: 'small-2orgs-30d',
      // The page cache off: the same pull repeated must reach the lane, not the cache.
      service: {
        cacheMb: 0,
        database: { reportConcurrency: 2, reportReserve: 0, maxQueued: 80 },
        rateLimit: { dbTimeMsPerSecond: 0 },
      },
    });
  }, 300_000);
  afterAll(() => fx?.close());

  /** A keywords pull (10,000 rows: every slot) of organization A. */
  const pull = (token: string) =>
    fx.report('keywords', token, { startDate: addDays(fx.yesterday, -29), endDate: fx.yesterday, limit: 10_000 });
  const campaigns = (token: string) =>
    fx.report('campaigns', token, { startDate: addDays(fx.yesterday, -29), endDate: fx.yesterday, limit: 100 });

  /** Holds every report slot as organization `organizationId` until the returned release is called. */
  async function holdLane(organizationId: number): Promise<{ release: () => void; done: Promise<void> }> {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const done = fx.service.db.readReport({ organizationId, slots: 'all' }, () => gate);
    await until(() => fx.service.db.reportLane().slotsInUse === 2, 'the hold to start');
    return { release, done };
  }

  it("serves B's single report after at most one of A's 40 queued pulls, and B's GET /organization at once", async () => {
    const [a, b] = fx.orgs as [(typeof fx.orgs)[0], (typeof fx.orgs)[0]];
    const expectedB = await campaigns(b.token);
    expect(expectedB.status).toBe(200);
    const expectedA = await pull(a.token);
    expect(expectedA.status).toBe(200);

    const hold = await holdLane(a.id);
    const finished: string[] = [];
    const track = (name: string, request: Promise<HttpResponse>) =>
      request.then((res) => {
        finished.push(name);
        return res;
      });
    const aRequests = Array.from({ length: 40 }, (_, i) => track(`a${i}`, pull(a.token)));
    await until(() => fx.service.db.reportLane().queuedOf.get(a.id) === 40, "A's 40 pulls to queue");
    const bReport = track('b', campaigns(b.token));
    await until(() => fx.service.db.reportLane().queuedOf.get(b.id) === 1, "B's report to queue");

    // A cheap read never waits for the report lane: answered while all 41 reports still wait.
    const organization = await fx.get('/provisioning/v0/organization', b.token);
    expect(organization.status).toBe(200);
    expect(organization.json.organization.id).toBe(b.id);
    // Nor does a token: the client credentials are looked up on the cheap lane.
    const token = await new HttpClient(fx.service.url, fx.service.tls?.cert).request('POST', '/token', {
      headers: { authorization: basic(b.clientId, b.clientSecret), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    });
    expect(token.status).toBe(200);
    expect(typeof token.json.access_token).toBe('string');
    expect(fx.service.db.reportLane()).toMatchObject({ queued: 41, slotsInUse: 2 });
    expect(finished).toEqual([]);

    hold.release();
    await hold.done;
    const [bRes, ...aRes] = await Promise.all([bReport, ...aRequests]);
    // Round-robin: A's head (it queued first), then B, then the rest of A.
    expect(finished.indexOf('b'), finished.join(' ')).toBeLessThanOrEqual(1);
    expect(finished.slice(finished.indexOf('b') + 1).filter((n) => n.startsWith('a')).length).toBeGreaterThanOrEqual(
      39,
    );
    // Every answer is the same as when asked alone.
    expect(bRes!.status).toBe(200);
    expect(bRes!.text).toBe(expectedB.text);
    for (const res of aRes) {
      expect(res.status).toBe(200);
      expect(res.text).toBe(expectedA.text);
    }
    expect(fx.service.db.reportLane()).toMatchObject({ running: 0, queued: 0, slotsInUse: 0 });
    expect(fx.errors).toEqual([]);
  });

  it("answers 503 with Retry-After beyond an organization's share of the queue, leaves room for others, and recovers", async () => {
    const [a, b] = fx.orgs as [(typeof fx.orgs)[0], (typeof fx.orgs)[0]];
    const expectedA = await pull(a.token);
    const hold = await holdLane(a.id);
    const aRequests = Array.from({ length: 45 }, () => pull(a.token));
    // 40 queue (half of the queue of 80); the other 5 are refused at once, while the lane is still held.
    const refused: HttpResponse[] = [];
    for (const request of aRequests) void request.then((res) => res.status === 503 && refused.push(res));
    await until(() => refused.length === 5, 'five 503s');
    expect(fx.service.db.reportLane().queuedOf.get(a.id)).toBe(40);
    for (const res of refused) {
      expect(res.json.error.code).toBe('overloaded');
      expect(res.headers['retry-after']).toBe('1');
    }
    // B still finds room in the queue.
    const bReport = campaigns(b.token);
    await until(() => fx.service.db.reportLane().queuedOf.get(b.id) === 1, "B's report to queue");

    hold.release();
    await hold.done;
    const answers = await Promise.all(aRequests);
    expect(answers.filter((res) => res.status === 200)).toHaveLength(40);
    for (const res of answers.filter((r) => r.status === 200)) expect(res.text).toBe(expectedA.text);
    expect((await bReport).status).toBe(200);
    // Nothing is left behind: the lane is empty and serves the next request.
    expect(fx.service.db.reportLane()).toMatchObject({ running: 0, queued: 0, slotsInUse: 0 });
    expect((await pull(a.token)).text).toBe(expectedA.text);
    expect(fx.errors).toEqual([]);
  });

  it("with a reserve, answers B's report while A holds every slot and 40 of A's pulls wait", async () => {
    const expectedB = await campaigns(fx.orgs[1]!.token);
    const reserved = await startReportingFixture({
      world: 'small-2orgs-30d',
      service: {
        cacheMb: 0,
        database: { reportConcurrency: 2, reportReserve: 1, maxQueued: 80 },
        rateLimit: { dbTimeMsPerSecond: 0 },
      },
    });
    // Its own service, its own signing keys: its own tokens.
    const [a, b] = reserved.orgs as [(typeof fx.orgs)[0], (typeof fx.orgs)[0]];
    let release = () => {};
    try {
      const lane = () => reserved.service.db.reportLane();
      const gate = new Promise<void>((resolve) => (release = resolve));
      const hold = reserved.service.db.readReport({ organizationId: a.id, slots: 'all' }, () => gate);
      await until(() => lane().slotsInUse === 2, 'the hold to start');
      const range = { startDate: addDays(reserved.yesterday, -29), endDate: reserved.yesterday };
      const aRequests = Array.from({ length: 40 }, () =>
        reserved.report('keywords', a.token, { ...range, limit: 10_000 }),
      );
      await until(() => lane().queuedOf.get(a.id) === 40, "A's 40 pulls to queue");
      // B has nothing running: its report runs in the reserve and is answered while all of A's wait.
      const bReport = await reserved.report('campaigns', b.token, { ...range, limit: 100 });
      expect(bReport.status).toBe(200);
      expect(bReport.text).toBe(expectedB.text);
      expect(lane()).toMatchObject({ queued: 40, slotsInUse: 2, inReserve: 0 });
      release();
      await hold;
      expect((await Promise.all(aRequests)).every((res) => res.status === 200)).toBe(true);
      expect(lane()).toMatchObject({ running: 0, queued: 0, slotsInUse: 0, inReserve: 0 });
      expect(reserved.errors).toEqual([]);
    } finally {
      release();
      await reserved.close();
    }
  });

  it('Database.close waits for report work in flight', async () => {
    // A store of its own, on a file of its own: the fixture's stays open for the other tests.
    const dir = tempDir('adreport-lane-close-');
    const db = await Database.open(path.join(dir, 'x.duckdb'), {
      readConnections: 1,
      maxQueued: 4,
      reportConcurrency: 1,
    });
    let release!: () => void;
    let ran = false;
    const work = db.readReport({ organizationId: 1, slots: 'one' }, async (r) => {
      await new Promise<void>((resolve) => (release = resolve));
      ran = (await r.one<{ n: number }>('SELECT 42 AS n'))?.n === 42;
    });
    const queued = db.readReport({ organizationId: 2, slots: 'all' }, (r) => r.one<{ n: number }>('SELECT 7 AS n'));
    let closed = false;
    const closing = db.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    // New work is refused while closing (thrown at once, as `read` does).
    expect(() => db.readReport({ organizationId: 3, slots: 'one' }, async () => 1)).toThrow(
      expect.objectContaining({ status: 503 }),
    );
    release();
    await work;
    expect(ran).toBe(true);
    expect(await queued).toEqual({ n: 7 });
    await closing;
    expect(closed).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('the cost-based rate limit: database time per organization', () => {
  let fx: ReportingFixture;
  beforeAll(async () => {
    // 1 ms of query time per second, 20 ms of burst: a few reports put an organization in debt.
    fx = await startReportingFixture({
      world: 'small-2orgs-30d',
      service: {
        cacheMb: 0,
        rateLimit: { ratePerSecond: 100_000, burst: 100_000, dbTimeMsPerSecond: 1, dbTimeBurstMs: 20 },
      },
    });
  }, 300_000);
  afterAll(() => fx?.close());

  it("answers 429 with Retry-After and the db-time RateLimit policy to the organization in debt, while the other's reports go on", async () => {
    const [a, b] = fx.orgs as [(typeof fx.orgs)[0], (typeof fx.orgs)[0]];
    const query = { startDate: addDays(fx.yesterday, -29), endDate: fx.yesterday, limit: 10_000 };
    const first = await fx.report('keywords', a.token, query);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"per-client";q=100000;w=1, "db-time";q=20;w=20');
    expect(first.headers.ratelimit).toMatch(/^"per-client";r=\d+;t=\d+, "db-time";r=20;t=0$/);
    // Thirty at once are let in together and charged together: a debt of many seconds of refill, so
    // the one-second hold below cannot pay it off (one at a time, the first refusal may come with
    // a debt under 1 ms, which the hold refills: then the request rightly runs).
    await Promise.all(Array.from({ length: 30 }, () => fx.report('keywords', a.token, query)));
    let limited = first;
    for (let i = 0; i < 200 && limited.status === 200; i++) limited = await fx.report('keywords', a.token, query);
    expect(limited.status, limited.text).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(limited.json.error.message).toContain('database time');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers.ratelimit).toMatch(new RegExp(`"db-time";r=0;t=${retryAfter}$`));
    // The debt is A's alone.
    const other = await fx.report('keywords', b.token, query);
    expect(other.status, other.text).toBe(200);
    // Provisioning reads are not reports: A's organization is still served there.
    const organization = await fx.get('/provisioning/v0/organization', a.token);
    expect(organization.status).toBe(200);
    expect(organization.headers['ratelimit-policy']).toBe('"per-client";q=100000;w=1');
    // A refused request costs nothing: still refused for the same reason, not deeper in debt.
    const asked = performance.now();
    const again = await fx.report('keywords', a.token, query);
    expect(again.status).toBe(429);
    // Held for up to a second first (the debt does not refill within it here), so a client that ignores Retry-After cannot storm.
    expect(performance.now() - asked).toBeGreaterThanOrEqual(950);
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(retryAfter);
    expect(fx.errors).toEqual([]);
  });
});
