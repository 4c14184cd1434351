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

/**
 * Token buckets as their users see them: in this process (TokenBuckets), or shared by every
 * replica of a deployment (store/postgres/shared-buckets.ts), where a take is a database round trip.
 */
export interface RateBuckets {
  readonly ratePerSecond: number;
  readonly burst: number;
  take(key: string, nowMs: number): BucketDecision | Promise<BucketDecision>;
}

/** A decision from the bucket's level after a take (`allowed` says whether one was taken). */
export function bucketDecision(
  bucket: { ratePerSecond: number; burst: number },
  allowed: boolean,
  left: number,
): BucketDecision {
  return {
    allowed,
    remaining: Math.floor(left),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - left) / bucket.ratePerSecond)),
    resetSeconds: Math.ceil((bucket.burst - left) / bucket.ratePerSecond),
  };
}

export class TokenBuckets implements RateBuckets {
  private readonly levels: RefillingLevels;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    maxKeys = 100_000,
  ) {
    this.levels = new RefillingLevels(ratePerSecond, burst, maxKeys);
  }

  /** Keys held (bounded by maxKeys). */
  get size(): number {
    return this.levels.size;
  }

  take(key: string, nowMs: number): BucketDecision {
    const tokens = this.levels.level(key, nowMs);
    const allowed = tokens >= 1;
    const left = allowed ? tokens - 1 : tokens;
    this.levels.set(key, left, nowMs);
    return bucketDecision(this, allowed, left);
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
  private readonly levels: RefillingLevels;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    maxKeys = 100_000,
  ) {
    this.levels = new RefillingLevels(ratePerSecond, burst, maxKeys);
  }

  /** Keys held (bounded by maxKeys). */
  get size(): number {
    return this.levels.size;
  }

  /** Whether a request may start now; takes nothing (the cost is charged when known). */
  check(key: string, nowMs: number): BucketDecision {
    const level = this.levels.level(key, nowMs);
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
    return Math.max(0, Math.ceil((-this.levels.level(key, nowMs) / this.ratePerSecond) * 1000));
  }

  charge(key: string, cost: number, nowMs: number): void {
    const level = this.levels.level(key, nowMs);
    this.levels.set(key, level - Math.min(Math.max(0, cost), this.burst), nowMs);
  }
}

/**
 * The state both kinds of bucket share: a level per key refilled at `ratePerSecond` up to `burst`
 * (a key never seen is full), at most `maxKeys` of them.
 */
class RefillingLevels {
  private readonly buckets = new Map<string, { level: number; updatedMs: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys: number,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  level(key: string, nowMs: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.burst;
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    return Math.min(this.burst, bucket.level + elapsed * this.ratePerSecond);
  }

  set(key: string, level: number, nowMs: number): void {
    if (!this.buckets.has(key) && this.buckets.size >= this.maxKeys) this.dropFullest(nowMs);
    this.buckets.set(key, { level, updatedMs: nowMs });
  }

  /** A full bucket is the state of a key never seen, so those go first when the map is full. */
  private dropFullest(nowMs: number): void {
    for (const key of this.buckets.keys()) {
      if (this.level(key, nowMs) >= this.burst) {
        this.buckets.delete(key);
        return;
      }
    }
    const first = this.buckets.keys().next().value;
    if (first !== undefined) this.buckets.delete(first);
  }
}
