import { describe, expect, it } from 'vitest';
import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import type { ReportRequest } from '../../src/planner/report-plan.js';
import { PULL_PAGE_ROWS, reportSlots } from '../../src/planner/report-weight.js';
import { OverloadedError } from '../../src/shared/errors.js';
import { CostBuckets } from '../../src/shared/token-bucket.js';
import { ReportScheduler, type ReportSlots } from '../../src/store/report-scheduler.js';
import { reportRequestOf } from '../helpers/report-request.js';

/** Work that runs until the test ends it; records when it started. */
interface Held {
  readonly name: string;
  readonly done: Promise<unknown>;
  finish(): void;
}

function harness(slots: number, maxQueued: number, reserve = 0) {
  const scheduler = new ReportScheduler(slots, maxQueued, reserve);
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const submit = (name: string, organizationId: number, weight: ReportSlots = 'one'): Held => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const done = scheduler.run({ organizationId, slots: weight }, async () => {
      started.push(name);
      await gate;
      return name;
    });
    finishers.set(name, finish);
    return { name, done, finish };
  };
  /** Lets promise callbacks run (a started job records itself in a microtask). */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const finish = async (name: string) => {
    finishers.get(name)!();
    await settle();
  };
  return { scheduler, started, submit, settle, finish };
}

describe('ReportScheduler', () => {
  it('serves organizations round-robin: one queued request of B waits for at most one of A', async () => {
    const h = harness(1, 100);
    h.submit('a0', 1);
    for (let i = 1; i <= 5; i++) h.submit(`a${i}`, 1);
    h.submit('b0', 2);
    h.submit('c0', 3);
    h.submit('b1', 2);
    await h.settle();
    expect(h.started).toEqual(['a0']);
    for (const name of ['a0', 'a1', 'b0', 'c0', 'a2', 'b1', 'a3', 'a4']) await h.finish(name);
    // Ring after a0: A (a1..a5) arrived first, then B, then C; each turn takes one and goes to the back.
    expect(h.started).toEqual(['a0', 'a1', 'b0', 'c0', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it('runs small reports side by side and a pull alone, in turn, never overtaken', async () => {
    const h = harness(3, 100);
    h.submit('s1', 1);
    h.submit('s2', 1);
    h.submit('pull', 2, 'all');
    h.submit('s3', 3);
    await h.settle();
    // Two small ones run; the pull waits for every slot and the small one behind it does not overtake it.
    expect(h.started).toEqual(['s1', 's2']);
    expect(h.scheduler.state()).toMatchObject({ running: 2, slotsInUse: 2, queued: 2 });
    await h.finish('s1');
    expect(h.started).toEqual(['s1', 's2']);
    await h.finish('s2');
    expect(h.started).toEqual(['s1', 's2', 'pull']);
    expect(h.scheduler.state()).toMatchObject({ running: 1, slotsInUse: 3, queued: 1 });
    await h.finish('pull');
    expect(h.started).toEqual(['s1', 's2', 'pull', 's3']);
  });

  it('bounds the queue in total and per organization (half of it) with OverloadedError, and recovers', async () => {
    const h = harness(1, 4);
    expect(h.scheduler.maxQueuedPerOrganization).toBe(2);
    h.submit('a0', 1);
    const queued = [h.submit('a1', 1), h.submit('a2', 1)];
    const refusedA = h.submit('a3', 1).done;
    await expect(refusedA).rejects.toBeInstanceOf(OverloadedError);
    await expect(refusedA).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    // Another organization still finds room, until the total bound.
    h.submit('b0', 2);
    h.submit('b1', 2);
    await expect(h.submit('c0', 3).done).rejects.toBeInstanceOf(OverloadedError);
    expect(h.scheduler.state().queued).toBe(4);
    for (const name of ['a0', 'a1', 'b0', 'a2', 'b1']) await h.finish(name);
    expect(await Promise.all(queued.map((q) => q.done))).toEqual(['a1', 'a2']);
    expect(h.started).toEqual(['a0', 'a1', 'b0', 'a2', 'b1']);
    expect(h.scheduler.state()).toMatchObject({ running: 0, slotsInUse: 0, queued: 0 });
    // Nothing was left behind by the refusals: new work starts at once.
    h.submit('c1', 3);
    await h.settle();
    expect(h.started.at(-1)).toBe('c1');
  });

  it('with no queue (maxQueued 0) refuses whatever does not start at once', async () => {
    const h = harness(2, 0);
    h.submit('a0', 1);
    h.submit('b0', 2);
    await expect(h.submit('c0', 3).done).rejects.toBeInstanceOf(OverloadedError);
    await expect(h.submit('pull', 3, 'all').done).rejects.toBeInstanceOf(OverloadedError);
  });

  it('frees the slot when work fails, and drained() waits for running and queued work', async () => {
    const scheduler = new ReportScheduler(1, 10);
    const failing = scheduler.run({ organizationId: 1, slots: 'one' }, () => Promise.reject(new Error('boom')));
    let release!: () => void;
    const held = scheduler.run({ organizationId: 1, slots: 'one' }, () => new Promise<void>((r) => (release = r)));
    await expect(failing).rejects.toThrow('boom');
    let drained = false;
    const waiting = scheduler.drained().then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    release();
    await held;
    await waiting;
    expect(drained).toBe(true);
    await scheduler.drained();
  });
});

describe('ReportScheduler: the reserve for organizations with nothing running', () => {
  it("starts another organization's report at once beside a pull that holds every slot", async () => {
    const h = harness(2, 100, 1);
    h.submit('pull', 1, 'all');
    for (let i = 0; i < 4; i++) h.submit(`a${i}`, 1);
    h.submit('b0', 2);
    await h.settle();
    expect(h.started).toEqual(['pull', 'b0']);
    expect(h.scheduler.state()).toMatchObject({ running: 2, slotsInUse: 2, inReserve: 1, queued: 4 });
    await h.finish('b0');
    await h.finish('pull');
    expect(h.started).toEqual(['pull', 'b0', 'a0', 'a1']);
    expect(h.scheduler.state()).toMatchObject({ inReserve: 0, slotsInUse: 2 });
  });

  it('is never taken by an organization with work running, so a flood keeps to the slots', async () => {
    const h = harness(2, 100, 1);
    for (let i = 0; i < 5; i++) h.submit(`a${i}`, 1);
    await h.settle();
    expect(h.started).toEqual(['a0', 'a1']);
    expect(h.scheduler.state()).toMatchObject({ inReserve: 0, queued: 3 });
  });

  it('takes one report of an organization at a time: its second waits while its first runs', async () => {
    const h = harness(1, 100, 1);
    h.submit('a0', 1);
    h.submit('a1', 1);
    h.submit('b0', 2);
    h.submit('b1', 2);
    await h.settle();
    expect(h.started).toEqual(['a0', 'b0']);
    // b0 borrowed the slot a0 frees: nothing starts until b0 ends too.
    await h.finish('a0');
    expect(h.started).toEqual(['a0', 'b0']);
    await h.finish('b0');
    // Then the slot goes round-robin to A's next (it arrived first), and B, with nothing running
    // again, takes the reserve for its second.
    expect(h.started).toEqual(['a0', 'b0', 'a1', 'b1']);
    expect(h.scheduler.state()).toMatchObject({ slotsInUse: 1, inReserve: 1, queued: 0 });
  });

  it('lends the reserve against the next free slot: in all, the lane holds its slots again once running work ends', async () => {
    const h = harness(2, 100, 1);
    h.submit('a0', 1);
    h.submit('a1', 1);
    h.submit('a2', 1);
    h.submit('b0', 2);
    await h.settle();
    expect(h.started).toEqual(['a0', 'a1', 'b0']);
    await h.finish('a0');
    // Three were running for two slots: a0's slot pays back b0's loan.
    expect(h.started).toEqual(['a0', 'a1', 'b0']);
    expect(h.scheduler.state()).toMatchObject({ running: 2, slotsInUse: 1, inReserve: 1, queued: 1 });
    await h.finish('a1');
    expect(h.started).toEqual(['a0', 'a1', 'b0', 'a2']);
  });

  it('holds one unit of one slot: a pull of a newcomer waits for the slots, but not for the reserve', async () => {
    const h = harness(2, 100, 1);
    h.submit('a0', 1);
    h.submit('a1', 1);
    h.submit('bpull', 2, 'all');
    h.submit('c0', 3);
    await h.settle();
    expect(h.started).toEqual(['a0', 'a1', 'c0']);
    await h.finish('a0');
    // A pull needs every slot, and never waits for the reserve: newcomers cannot hold it back.
    expect(h.started).toEqual(['a0', 'a1', 'c0']);
    await h.finish('a1');
    expect(h.started).toEqual(['a0', 'a1', 'c0', 'bpull']);
    // While it runs, the next newcomer waits: the reserve is c0's.
    h.submit('d0', 4);
    await h.settle();
    expect(h.started).toEqual(['a0', 'a1', 'c0', 'bpull']);
    await h.finish('c0');
    expect(h.started).toEqual(['a0', 'a1', 'c0', 'bpull', 'd0']);
  });

  it('gives a freed reserve to the next waiting organization with nothing running', async () => {
    const h = harness(1, 100, 1);
    h.submit('a0', 1);
    h.submit('b0', 2);
    h.submit('c0', 3);
    await h.settle();
    expect(h.started).toEqual(['a0', 'b0']);
    await h.finish('b0');
    expect(h.started).toEqual(['a0', 'b0', 'c0']);
    expect(h.scheduler.state()).toMatchObject({ inReserve: 1, slotsInUse: 1, queued: 0 });
  });

  it('refuses a negative or fractional reserve', () => {
    expect(() => new ReportScheduler(2, 10, -1)).toThrow(/reserve/);
    expect(() => new ReportScheduler(2, 10, 0.5)).toThrow(/reserve/);
  });
});

describe('reportSlots: the report lane weight of a plan', () => {
  const NOW = new Date('2026-11-24T12:00:00Z');
  const plan = (path: string, days: number, overrides: Partial<ReportRequest> = {}) =>
    buildPlan(
      ENDPOINT_BY_PATH.get(path)!,
      reportRequestOf({
        startDate: new Date(Date.parse('2026-11-23T00:00:00Z') - (days - 1) * 86_400_000).toISOString().slice(0, 10),
        endDate: '2026-11-23',
        ...overrides,
      }),
      NOW,
    );

  it('takes one slot for a dashboard page: any range of campaigns and accounts, a quarter of keywords', () => {
    expect(reportSlots(plan('campaigns', 30))).toBe('one');
    expect(reportSlots(plan('campaigns', 1500))).toBe('one');
    expect(reportSlots(plan('accounts', 400))).toBe('one');
    expect(reportSlots(plan('keywords', 30, { filter: 'statistics.clicks > 10' }))).toBe('one');
    expect(reportSlots(plan('keywords', 183))).toBe('one');
    expect(reportSlots(plan('ads', 400))).toBe('one');
    expect(reportSlots(plan('adgroups', 7, { segments: ['Day', 'DeviceType'] }))).toBe('one');
    expect(reportSlots(plan('adgroups', 14, { segments: ['Day'] }))).toBe('one');
    expect(reportSlots(plan('campaigns', 92, { segments: ['Day'] }))).toBe('one');
    expect(reportSlots(plan('keywords', 30, { limit: PULL_PAGE_ROWS }))).toBe('one');
    // Week/Month buckets are few, whatever the range.
    expect(reportSlots(plan('keywords', 90, { segments: ['Week'] }))).toBe('one');
  });

  it('takes every slot for a pull: a page over 1000 rows, keywords over half a year, long Day breakdowns', () => {
    expect(reportSlots(plan('keywords', 30, { limit: PULL_PAGE_ROWS + 1 }))).toBe('all');
    expect(reportSlots(plan('campaigns', 1, { limit: 10_000 }))).toBe('all');
    expect(reportSlots(plan('keywords', 184))).toBe('all');
    expect(reportSlots(plan('keywords', 400))).toBe('all');
    expect(reportSlots(plan('adgroups', 15, { segments: ['Day'] }))).toBe('all');
    expect(reportSlots(plan('keywords', 30, { segments: ['Day'] }))).toBe('all');
    expect(reportSlots(plan('campaigns', 93, { segments: ['Day'] }))).toBe('all');
    expect(reportSlots(plan('accounts', 400, { segments: ['DeviceType', 'Day'] }))).toBe('all');
  });
});

describe('CostBuckets: database time per organization', () => {
  it('lets requests in while not in debt, charges after the fact, refuses in debt until refilled', () => {
    const buckets = new CostBuckets(1000, 5000);
    const t0 = 1_000_000;
    expect(buckets.check('1', t0)).toEqual({ allowed: true, remaining: 5000, retryAfterSeconds: 0, resetSeconds: 0 });
    buckets.charge('1', 3000, t0);
    expect(buckets.check('1', t0)).toMatchObject({ allowed: true, remaining: 2000, resetSeconds: 3 });
    buckets.charge('1', 4500, t0);
    // 2000 - 4500 = -2500 ms: 2.5 s of refill at 1000 ms/s before the next request.
    expect(buckets.check('1', t0)).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 3, resetSeconds: 8 });
    expect(buckets.msUntilAllowed('1', t0)).toBe(2500);
    expect(buckets.msUntilAllowed('1', t0 + 2000)).toBe(500);
    expect(buckets.msUntilAllowed('2', t0)).toBe(0);
    expect(buckets.check('2', t0).allowed).toBe(true);
    expect(buckets.check('1', t0 + 2000).allowed).toBe(false);
    expect(buckets.check('1', t0 + 2500)).toMatchObject({ allowed: true, remaining: 0 });
    expect(buckets.check('1', t0 + 60_000)).toMatchObject({ allowed: true, remaining: 5000 });
  });

  it('charges one request at most the burst, so one long export cannot lock its organization out for longer', () => {
    const buckets = new CostBuckets(1000, 5000);
    buckets.charge('1', 600_000, 0);
    expect(buckets.check('1', 0)).toMatchObject({ allowed: true, remaining: 0 });
    buckets.charge('1', 1, 0);
    expect(buckets.check('1', 0)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('stays bounded in keys', () => {
    const buckets = new CostBuckets(1, 1, 10);
    for (let i = 0; i < 100; i++) buckets.charge(`k${i}`, 1, 0);
    expect(buckets.size).toBeLessThanOrEqual(10);
  });
});
