/**
 * What a pump asks its source for: up to `room` items due now, already claimed (or reserved) for
 * this process. None means nothing can start now; `nextDueAt` says when the next one is due.
 */
export interface Taken<T> {
  readonly items: readonly T[];
  readonly nextDueAt?: Date | undefined;
}

export interface WorkSource<T> {
  /** `busy` holds the ids running here, for sources that must not hand them out again. */
  take(room: number, busy: ReadonlySet<number>): Promise<Taken<T>>;
  /** Runs one item to its outcome; a rejection is logged, never retried here (the row says what is due). */
  run(item: T): Promise<void>;
  idOf(item: T): number;
}

export interface WorkPumpOptions {
  readonly concurrency: number;
  /** The longest sleep between looks: what another writer commits meanwhile is found by then. */
  readonly pollMs: number;
  readonly now: () => Date;
  /** A failure of a look (`id` undefined) or of a run. */
  readonly log: (error: unknown, id: number | undefined) => void;
  /** A failed look that is a busy moment, not a fault (a full read pool): looked at again after pollMs, not logged. */
  readonly isQuiet?: (error: unknown) => boolean;
}

/**
 * The loop every durable queue of the service shares (jobs, report jobs, webhook deliveries):
 * take due items while there is room, run each, look again when one ends, when `wake()` is called
 * (an enqueue) or when the next item is due, and at least every pollMs. One look at a time; a wake
 * during a look makes one more. `stop` takes nothing more and waits for the runs.
 */
export class WorkPump<T> {
  private readonly running = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private looking = false;
  private lookAgain = false;

  constructor(
    private readonly source: WorkSource<T>,
    private readonly options: WorkPumpOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Looks for due work now. */
  wake(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = true;
    this.fill()
      .catch((error: unknown) => {
        if (!this.stopped && !this.options.isQuiet?.(error)) this.options.log(error, undefined);
        this.sleepUntil(undefined);
      })
      .finally(() => {
        this.looking = false;
        if (this.lookAgain) {
          this.lookAgain = false;
          this.wake();
        }
      });
  }

  /** Takes nothing more; waits up to `timeoutMs` for the runs (what they leave unfinished is due again at the next start). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.race([
      Promise.all(this.running.values()),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.running.size < this.options.concurrency) {
      const room = this.options.concurrency - this.running.size;
      const taken = await this.source.take(room, new Set(this.running.keys()));
      if (taken.items.length === 0) {
        this.sleepUntil(taken.nextDueAt);
        return;
      }
      for (const item of taken.items) {
        // Taken while stop() began: left as it is, due again (a claimed job or report job resumes at the next start).
        if (this.stopped) return;
        const id = this.source.idOf(item);
        const run = this.source
          .run(item)
          .catch((error: unknown) => this.options.log(error, id))
          .finally(() => {
            this.running.delete(id);
            this.wake();
          });
        this.running.set(id, run);
      }
    }
  }

  /**
   * Sleeps until `due`, at most pollMs. A due time already past belongs to work that cannot start
   * yet (running here, or its organization at its limit): the end of a run wakes the pump.
   */
  private sleepUntil(due: Date | undefined): void {
    if (this.stopped) return;
    const now = this.options.now().getTime();
    const wait = due && due.getTime() > now ? due.getTime() - now : this.options.pollMs;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), Math.min(wait, this.options.pollMs));
    this.timer.unref();
  }
}
