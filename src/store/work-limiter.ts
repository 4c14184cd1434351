import { OverloadedError } from '../shared/errors.js';

/**
 * Bounds work in flight and the queue in front of it. The DuckDB bindings run each call on
 * libuv's thread pool, so unbounded concurrency starves it (DESIGN D1); a full queue answers
 * 503 at once instead of growing latency without limit.
 */
export class WorkLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly onIdle: Array<() => void> = [];

  constructor(
    private readonly maxRunning: number,
    private readonly maxQueued: number,
  ) {}

  /** Resolves once nothing runs or waits; new work may still arrive, so callers stop it first. */
  drained(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.onIdle.push(resolve));
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.maxRunning) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxQueued) {
      return Promise.reject(new OverloadedError(1));
    }
    // The slot is handed over by release(), so `running` stays counted for the waiter.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
    if (this.running === 0) for (const resolve of this.onIdle.splice(0)) resolve();
  }
}
