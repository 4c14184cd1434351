/**
 * Slows down repeated failed authentications per client id: after `freeFailures` failures in
 * the window, each further failure is answered after an exponentially growing delay. Successful
 * authentications are never delayed, so the real client is not locked out by someone guessing.
 */
export interface SlowdownOptions {
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
  windowMs: number;
  maxTracked: number;
}

export const DEFAULT_SLOWDOWN: SlowdownOptions = {
  freeFailures: 5,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  windowMs: 15 * 60_000,
  maxTracked: 100_000,
};

export class FailureSlowdown {
  private readonly failures = new Map<string, { count: number; windowStart: number }>();

  constructor(private readonly options: SlowdownOptions = DEFAULT_SLOWDOWN) {}

  /** Records a failure and returns how long to hold its response, in ms. */
  recordFailure(key: string, nowMs: number): number {
    let entry = this.failures.get(key);
    if (!entry || nowMs - entry.windowStart > this.options.windowMs) {
      entry = { count: 0, windowStart: nowMs };
      if (this.failures.size >= this.options.maxTracked) this.evictOldest();
      this.failures.set(key, entry);
    }
    entry.count++;
    const excess = entry.count - this.options.freeFailures;
    if (excess <= 0) return 0;
    return Math.min(this.options.baseDelayMs * 2 ** (excess - 1), this.options.maxDelayMs);
  }

  private evictOldest(): void {
    const oldest = this.failures.keys().next().value;
    if (oldest !== undefined) this.failures.delete(oldest);
  }
}
