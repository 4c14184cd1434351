import { ApiError } from '../shared/errors.js';
import { rateLimitPolicy, rateLimitState } from '../shared/rate-limit-headers.js';
import type { RateBuckets } from '../shared/token-bucket.js';

/**
 * A token bucket of its own for one operation, per organization, besides the API guard's
 * per-client one: for writes that make the service work for someone else (a redelivery is an
 * outbound HTTPS POST with a day of retries), which the general bucket (50/s) lets through by
 * the hundred. Taken by the handler once the request is known to be well-formed, so a malformed
 * one is a 400 that costs nothing. Its policy joins the guard's in the RateLimit header fields
 * (the guard puts its members first).
 */
export class OperationRate {
  private readonly policyHeader: string;

  constructor(
    private readonly policy: string,
    private readonly buckets: RateBuckets,
    private readonly nowMs: () => number,
    /** What is counted, plural ("redeliveries"), for the 429's message. */
    private readonly what: string,
  ) {
    this.policyHeader = rateLimitPolicy(policy, buckets);
  }

  /** Takes one for the organization: the RateLimit headers of the answer, or a 429 carrying them. */
  async take(organizationId: number): Promise<Record<string, string>> {
    const decision = await this.buckets.take(String(organizationId), this.nowMs());
    const headers = { 'RateLimit-Policy': this.policyHeader, RateLimit: rateLimitState(this.policy, decision) };
    if (decision.allowed) return headers;
    const perMinute = Math.round(this.buckets.ratePerSecond * 60);
    throw new ApiError(
      429,
      'rate_limited',
      `Too many ${this.what} for this organization (at most ${this.buckets.burst} at once, then ${perMinute} per minute); retry in ${decision.retryAfterSeconds} s.`,
      [],
      { ...headers, 'Retry-After': String(decision.retryAfterSeconds) },
    );
  }
}
