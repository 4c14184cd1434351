import { setTimeout as sleep } from 'node:timers/promises';
import type { MiddlewareHandler } from 'hono';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Scope } from '../../config/config.js';
import { ApiError } from '../../shared/errors.js';
import { rateLimitPolicy, rateLimitState } from '../../shared/rate-limit-headers.js';
import type { CostBuckets, RateBuckets } from '../../shared/token-bucket.js';
import type { AppEnv } from '../context.js';
import { timed, timedSync } from '../../runtime/request-timing.js';

/**
 * The longest a request of an organization in database-time debt is held before its answer.
 * Refusing at once let a flooding client that ignores Retry-After (64 connections) get 3,900
 * refusals a second, a core's worth of TLS and routing that doubled another tenant's report p99
 * (bench/fairness.ts); held, the same client makes at most 64 requests a second.
 */
export const DEBT_HOLD_MS = 1000;

/**
 * How long a request its client's bucket refuses is held before its 429. A refusal is cheap (no
 * body read, no query, the token found among those already verified), but answered at once it
 * still costs a TLS write and a pass through the router, and a client that ignores Retry-After
 * refuses itself as fast as it can send: 64 connections made 3,000-3,500 refusals a second and,
 * with the refusal made cheaper, 7,600, raising another organization's GET /organization p50
 * 10-16x (bench/refusal-flood.ts, README: Fair scheduling). Held, each connection is refused at
 * most once a second (1-3x). A client that honours Retry-After (at least 1 s) waits as long anyway.
 */
export const REFUSAL_HOLD_MS = 1000;

/**
 * Guards one API prefix, before the body is read: a bearer token with the prefix's scope (no
 * query: authenticator.ts), then the client's token bucket (a refusal held REFUSAL_HOLD_MS)
 * and, where given (reports), the organization's bucket of database time (ms of report query time,
 * charged by the store when each report ends; a request is refused while the bucket is in debt).
 * Rate headers follow the IETF RateLimit header fields draft (RateLimit-Policy / RateLimit), one
 * list member per policy: `"per-client"` in requests, `"db-time"` in ms.
 */
export function apiGuard(
  scope: Scope,
  authenticator: Authenticator,
  buckets: RateBuckets,
  nowMs: () => number,
  dbTime?: CostBuckets,
): MiddlewareHandler<AppEnv> {
  const policies = [rateLimitPolicy('per-client', buckets)];
  if (dbTime) policies.push(rateLimitPolicy('db-time', dbTime));
  const policy = policies.join(', ');
  return async (c, next) => {
    const auth = timedSync('auth', () => authenticator.authenticate(c.req.header('authorization'), scope));
    c.set('auth', auth);
    const decision = await timed('auth', async () => buckets.take(auth.clientId, nowMs()));
    // Retry-After and RateLimit keep the decision made on arrival: they err long by the hold.
    if (!decision.allowed) await sleep(Math.min(REFUSAL_HOLD_MS, decision.retryAfterSeconds * 1000));
    // Checked only when the request itself may go: a refused request costs no database time.
    const organization = String(auth.organizationId);
    let cost = decision.allowed ? dbTime?.check(organization, nowMs()) : undefined;
    if (cost && !cost.allowed) {
      // In debt: wait for the refill up to DEBT_HOLD_MS, then run if it came, else refuse.
      await sleep(Math.min(DEBT_HOLD_MS, dbTime!.msUntilAllowed(organization, nowMs())));
      cost = dbTime!.check(organization, nowMs());
    }
    const states = [rateLimitState('per-client', decision)];
    if (cost) states.push(rateLimitState('db-time', cost));
    const rateHeaders = { 'RateLimit-Policy': policy, RateLimit: states.join(', ') };
    if (!decision.allowed) {
      throw new ApiError(
        429,
        'rate_limited',
        `Too many requests for this client; retry in ${decision.retryAfterSeconds} s.`,
        [],
        {
          ...rateHeaders,
          'Retry-After': String(decision.retryAfterSeconds),
        },
      );
    }
    if (cost && !cost.allowed) {
      throw new ApiError(
        429,
        'rate_limited',
        `This organization's reports used more database time than its share (${dbTime!.ratePerSecond} ms per second, burst ${dbTime!.burst} ms); retry in ${cost.retryAfterSeconds} s.`,
        [],
        {
          ...rateHeaders,
          'Retry-After': String(cost.retryAfterSeconds),
        },
      );
    }
    await next();
    // An operation's own bucket (operationRate) set its members already: the guard's come first.
    for (const [name, value] of Object.entries(rateHeaders)) {
      const operation = c.res.headers.get(name);
      c.res.headers.set(name, operation ? `${value}, ${operation}` : value);
    }
  };
}
