import { OverloadedError } from '../shared/errors.js';
import { startLayer } from '../runtime/request-timing.js';

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

/** What the scheduler runs and queues now. */
export interface ReportSchedulerState {
  /** Units of work running. */
  readonly running: number;
  /** Slots they hold (an `all` holds every slot). */
  readonly slotsInUse: number;
  readonly queued: number;
  /** Waiting work per organization id. */
  readonly queuedOf: ReadonlyMap<number, number>;
  /** Units running in the reserve (beyond `slots`). */
  readonly inReserve: number;
}

/** What the report lane is doing now (tests and diagnostics): its scheduler, and its connections' statements. */
export interface ReportLaneState extends ReportSchedulerState {
  /** Statements the lane's connections have prepared since the store opened (a cached one is not prepared again). */
  readonly statementsPrepared: number;
}

interface Waiter {
  readonly weight: number;
  /** Started in the reserve (true) or in the slots. */
  readonly start: (inReserve: boolean) => void;
}

/**
 * Fair admission of report queries (issue 21): at most `slots` of work in flight, the rest queued
 * per organization and served round-robin, one unit of work per organization per turn. So an
 * organization with 64 requests queued makes another's single request wait for at most one of
 * them, not all 64. Work is started strictly in that order: when the next in turn needs more slots
 * than are free (an `all`), nothing overtakes it, so a pull is never starved by small reports.
 * The queue is bounded in total and per organization (half of the total, so one organization
 * alone cannot fill it); beyond either, `OverloadedError` (503 with Retry-After) at once.
 *
 * The reserve (issue 39): `reserve` more units of one slot each may run beyond `slots`, for an
 * organization that has nothing running. Round-robin alone made another organization's dashboard
 * wait for whatever a flooding one ran: a pull holds every slot for its whole run (49 ms alone at
 * scale 100), and its p99 went to 7.6x idle. In the reserve it starts at once and shares the
 * cores with that pull instead of queueing behind it. An organization with work running never uses
 * it, so a flood cannot take it, and it costs nothing while nobody else asks. A unit in the
 * reserve borrows the next slot that frees for a report of one slot (`fitsSlots`; a pull waits
 * for the slots only, so no stream of newcomers can hold it back), so the lane runs `slots` units
 * in all again as soon as running work ends: the newcomer shares the cores with fewer reports (scale 10,
 * bench/fairness.ts: its p99 during a flood 8.2-9.7x idle without the reserve, 4.0-5.0x with
 * it, 3.7-4.1x lending it).
 */
export class ReportScheduler {
  private slotsInUse = 0;
  private running = 0;
  private queued = 0;
  private inReserve = 0;
  /** Running units per organization (those with any). */
  private readonly runningOf = new Map<number, number>();
  /** Waiting work per organization, oldest first; the map's insertion order is the round-robin ring. */
  private readonly queues = new Map<number, Waiter[]>();
  private readonly onIdle: Array<() => void> = [];
  readonly maxQueuedPerOrganization: number;

  constructor(
    readonly slots: number,
    readonly maxQueued: number,
    /** Units that may run beyond `slots` for organizations with nothing running (one connection each). */
    readonly reserve = 0,
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`report slots must be a positive integer, not ${slots}`);
    if (!Number.isInteger(reserve) || reserve < 0)
      throw new Error(`report reserve must be an integer >= 0, not ${reserve}`);
    this.maxQueuedPerOrganization = Math.ceil(maxQueued / 2);
  }

  state(): ReportSchedulerState {
    return {
      running: this.running,
      slotsInUse: this.slotsInUse,
      queued: this.queued,
      queuedOf: new Map([...this.queues].map(([org, queue]) => [org, queue.length])),
      inReserve: this.inReserve,
    };
  }

  /** Resolves once nothing runs or waits; new work may still arrive, so callers stop it first. */
  drained(): Promise<void> {
    if (this.running === 0 && this.queued === 0) return Promise.resolve();
    return new Promise((resolve) => this.onIdle.push(resolve));
  }

  async run<T>(ticket: ReportTicket, work: () => Promise<T>): Promise<T> {
    const weight = ticket.slots === 'all' ? this.slots : 1;
    const { organizationId } = ticket;
    const queued = startLayer('queue');
    let inReserve: boolean;
    try {
      inReserve = await this.admit(organizationId, weight);
    } finally {
      queued();
    }
    try {
      return await work();
    } finally {
      this.release(organizationId, weight, inReserve);
    }
  }

  /** Resolves when the work may start: true when it runs in the reserve. */
  private admit(organizationId: number, weight: number): Promise<boolean> {
    // Nobody waits and the slots are there: start at once (the queue is never overtaken).
    if (this.queued === 0 && this.fitsSlots(weight)) {
      this.started(organizationId, weight, false);
      return Promise.resolve(false);
    }
    if (this.fitsReserve(organizationId, weight)) {
      this.started(organizationId, weight, true);
      return Promise.resolve(true);
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

  /**
   * Whether work of `weight` may start in the slots now. Work running in the reserve borrows a
   * slot from what starts next: the lane overcommits by the reserve only until running work ends,
   * then holds `slots` in all again, so the newcomer shares the cores with fewer reports.
   */
  private fitsSlots(weight: number): boolean {
    // A pull needs every slot, not the reserve: newcomers in turn never hold one back (no starvation).
    if (weight > 1) return this.slotsInUse + weight <= this.slots;
    return this.slotsInUse + this.inReserve + weight <= this.slots;
  }

  private fitsReserve(organizationId: number, weight: number): boolean {
    return weight === 1 && this.inReserve < this.reserve && !this.runningOf.has(organizationId);
  }

  private started(organizationId: number, weight: number, inReserve: boolean): void {
    if (inReserve) this.inReserve++;
    else this.slotsInUse += weight;
    this.running++;
    this.runningOf.set(organizationId, (this.runningOf.get(organizationId) ?? 0) + 1);
  }

  private release(organizationId: number, weight: number, inReserve: boolean): void {
    if (inReserve) this.inReserve--;
    else this.slotsInUse -= weight;
    this.running--;
    const left = this.runningOf.get(organizationId)! - 1;
    if (left === 0) this.runningOf.delete(organizationId);
    else this.runningOf.set(organizationId, left);
    this.dispatch();
    if (this.running === 0 && this.queued === 0) for (const resolve of this.onIdle.splice(0)) resolve();
  }

  /**
   * Starts waiting work in round-robin order while the next in turn fits into the free slots;
   * then, while the reserve has room, the first in turn of an organization with nothing running.
   */
  private dispatch(): void {
    for (;;) {
      const next = this.queues.entries().next();
      if (next.done) break;
      const [organizationId, queue] = next.value;
      if (!this.fitsSlots(queue[0]!.weight)) break;
      this.startHead(organizationId, queue, false);
    }
    while (this.inReserve < this.reserve) {
      const next = this.nextForReserve();
      if (next === undefined) return;
      this.startHead(next[0], next[1], true);
    }
  }

  /** The first waiting organization in turn whose next unit the reserve may start. */
  private nextForReserve(): [number, Waiter[]] | undefined {
    for (const entry of this.queues) if (this.fitsReserve(entry[0], entry[1][0]!.weight)) return entry;
    return undefined;
  }

  private startHead(organizationId: number, queue: Waiter[], inReserve: boolean): void {
    const head = queue.shift()!;
    this.queued--;
    // Served: the organization goes to the back of the ring (or leaves it, with nothing left).
    this.queues.delete(organizationId);
    if (queue.length > 0) this.queues.set(organizationId, queue);
    this.started(organizationId, head.weight, inReserve);
    head.start(inReserve);
  }
}
