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
