import type { BucketDecision } from './token-bucket.js';

/** What a RateLimit policy states of its bucket: its size and refill rate. */
export interface BucketShape {
  readonly burst: number;
  readonly ratePerSecond: number;
}

/**
 * The IETF RateLimit header fields draft (draft-ietf-httpapi-ratelimit-headers): one list member
 * per policy. `RateLimit-Policy: "<name>";q=<quota>;w=<window s>`, the window being how long an
 * empty bucket takes to refill.
 */
export function rateLimitPolicy(name: string, bucket: BucketShape): string {
  return `"${name}";q=${bucket.burst};w=${Math.max(1, Math.ceil(bucket.burst / bucket.ratePerSecond))}`;
}

/** `RateLimit: "<name>";r=<left>;t=<s>`: t is the refill time when allowed, the wait when refused. */
export function rateLimitState(name: string, decision: BucketDecision): string {
  return `"${name}";r=${decision.remaining};t=${decision.allowed ? decision.resetSeconds : decision.retryAfterSeconds}`;
}
