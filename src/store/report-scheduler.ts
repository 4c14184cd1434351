import { OverloadedError } from '../shared/errors.js';

/**
 * One unit of report work: whose it is and how much of the engine it takes. DuckDB's `threads`
 * is instance-wide (`SET SESSION threads` fails: "cannot be set locally"), so "threads per query"
 * is decided by admission instead: `one` takes one slot and runs beside other small reports,
 * `all` takes every slot and so runs alone on all of DuckDB's threads.
 */
export interface ReportTicket {
  readonly organizationId: number;
  readonly slots: ReportSlots;
}

export type ReportSlots = 'one' | 'all';

/** What the report lane is doing now (tests and diagnostics). */
export interface ReportLaneState {
  /** Units of work running. */
  readonly running: number;
  /** Slots they hold (an `all` holds every slot). */
  readonly slotsInUse: number;
  readonly queued: number;
  /** Waiting work per organization id. */
  readonly queuedOf: ReadonlyMap<number, number>;
}

interface Waiter {
  readonly weight: number;
  readonly start: () => void;
}

/**
 * Fair admission of report queries (issue 21): at most `slots` of work in flight, the rest queued
 * per organization and served round-robin, one unit of work per organization per turn. So an
 * organization with 64 requests queued makes another's single request wait for at most one of
 * them, not all 64. Work is started strictly in that order: when the next in turn needs more slots
 * than are free (an `all`), nothing overtakes it, so a pull is never starved by small reports.
 * The queue is bounded in total and per organization (half of the total, so one organization
 * alone cannot fill it); beyond either, `OverloadedError` (503 with Retry-After) at once.
 */
export class ReportScheduler {
  private slotsInUse = 0;
  private running = 0;
  private queued = 0;
  /** Waiting work per organization, oldest first; the map's insertion order is the round-robin ring. */
  private readonly queues = new Map<number, Waiter[]>();
  private readonly onIdle: Array<() => void> = [];
  readonly maxQueuedPerOrganization: number;

  constructor(
    readonly slots: number,
    readonly maxQueued: number,
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`report slots must be a positive integer, not ${slots}`);
    this.maxQueuedPerOrganization = Math.ceil(maxQueued / 2);
  }

  state(): ReportLaneState {
    return {
      running: this.running,
      slotsInUse: this.slotsInUse,
      queued: this.queued,
      queuedOf: new Map([...this.queues].map(([org, queue]) => [org, queue.length])),
    };
  }

  /** Resolves once nothing runs or waits; new work may still arrive, so callers stop it first. */
  drained(): Promise<void> {
    if (this.running === 0 && this.queued === 0) return Promise.resolve();
    return new Promise((resolve) => this.onIdle.push(resolve));
  }

  async run<T>(ticket: ReportTicket, work: () => Promise<T>): Promise<T> {
    const weight = ticket.slots === 'all' ? this.slots : 1;
    await this.admit(ticket.organizationId, weight);
    try {
      return await work();
    } finally {
      this.release(weight);
    }
  }

  private admit(organizationId: number, weight: number): Promise<void> {
    // Nobody waits and the slots are there: start at once (the queue is never overtaken).
    if (this.queued === 0 && this.slotsInUse + weight <= this.slots) {
      this.slotsInUse += weight;
      this.running++;
      return Promise.resolve();
    }
    const queue = this.queues.get(organizationId);
    if (this.queued >= this.maxQueued || (queue?.length ?? 0) >= this.maxQueuedPerOrganization) {
      return Promise.reject(new OverloadedError(1));
    }
    return new Promise((resolve) => {
      const waiter = { weight, start: resolve };
      if (queue) queue.push(waiter);
      else this.queues.set(organizationId, [waiter]);
      this.queued++;
    });
  }

  private release(weight: number): void {
    this.slotsInUse -= weight;
    this.running--;
    this.dispatch();
    if (this.running === 0 && this.queued === 0) for (const resolve of this.onIdle.splice(0)) resolve();
  }

  /** Starts waiting work in round-robin order while the next in turn fits into the free slots. */
  private dispatch(): void {
    for (;;) {
      const next = this.queues.entries().next();
      if (next.done) return;
      const [organizationId, queue] = next.value;
      const head = queue[0]!;
      if (this.slotsInUse + head.weight > this.slots) return;
      queue.shift();
      this.queued--;
      // Served: the organization goes to the back of the ring (or leaves it, with nothing left).
      this.queues.delete(organizationId);
      if (queue.length > 0) this.queues.set(organizationId, queue);
      this.slotsInUse += head.weight;
      this.running++;
      head.start();
    }
  }
}
