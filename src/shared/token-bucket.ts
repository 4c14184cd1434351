/**
 * Per-key token buckets: `burst` requests at once, refilled at `ratePerSecond`. Pure apart
 * from the map it keeps; the caller passes the time in.
 */
export interface BucketDecision {
  readonly allowed: boolean;
  readonly remaining: number;
  /** Seconds until the next request would be allowed (0 when allowed now). */
  readonly retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly maxKeys = 100_000,
  ) {}

  take(key: string, nowMs: number): BucketDecision {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.dropFullest(nowMs);
      bucket = { tokens: this.burst, updatedMs: nowMs };
      this.buckets.set(key, bucket);
    }
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    bucket.tokens = Math.min(this.burst, bucket.tokens + elapsed * this.ratePerSecond);
    bucket.updatedMs = nowMs;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const missing = this.burst - bucket.tokens;
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond)),
      resetSeconds: Math.ceil(missing / this.ratePerSecond),
    };
  }

  /** A full bucket carries no state worth keeping, so those go first when the map is full. */
  private dropFullest(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * this.ratePerSecond >= this.burst) {
        this.buckets.delete(key);
        return;
      }
    }
    const first = this.buckets.keys().next().value;
    if (first !== undefined) this.buckets.delete(first);
  }
}

/**
 * Per-key buckets of a cost known only afterwards (issue 21: ms of report query time per
 * organization): a request is let in while its key's bucket is not in debt, and charged what it
 * cost once done, which may take the bucket below zero; it refills at `ratePerSecond` up to
 * `burst`. One charge is at most `burst` (an export streaming to a slow client for minutes holds
 * its connection that long, but must not lock its organization out for as long again).
 */
export class CostBuckets {
  private readonly buckets = new Map<string, { level: number; updatedMs: number }>();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Whether a request may start now; takes nothing (the cost is charged when known). */
  check(key: string, nowMs: number): BucketDecision {
    const level = this.levelOf(key, nowMs);
    const allowed = level >= 0;
    return {
      allowed,
      remaining: Math.max(0, Math.floor(level)),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(-level / this.ratePerSecond)),
      resetSeconds: Math.ceil((this.burst - level) / this.ratePerSecond),
    };
  }

  /** Milliseconds until the key's bucket is out of debt (0 when it is not in debt). */
  msUntilAllowed(key: string, nowMs: number): number {
    return Math.max(0, Math.ceil((-this.levelOf(key, nowMs) / this.ratePerSecond) * 1000));
  }

  charge(key: string, cost: number, nowMs: number): void {
    const level = this.levelOf(key, nowMs);
    if (!this.buckets.has(key) && this.buckets.size >= this.maxKeys) this.dropFullest(nowMs);
    this.buckets.set(key, { level: level - Math.min(Math.max(0, cost), this.burst), updatedMs: nowMs });
  }

  private levelOf(key: string, nowMs: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.burst;
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    return Math.min(this.burst, bucket.level + elapsed * this.ratePerSecond);
  }

  /** A full bucket is the state of a key never seen, so those go first when the map is full. */
  private dropFullest(nowMs: number): void {
    for (const key of this.buckets.keys()) {
      if (this.levelOf(key, nowMs) >= this.burst) {
        this.buckets.delete(key);
        return;
      }
    }
    const first = this.buckets.keys().next().value;
    if (first !== undefined) this.buckets.delete(first);
  }
}
