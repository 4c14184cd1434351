import { setTimeout as sleep } from 'node:timers/promises';
import type { MiddlewareHandler } from 'hono';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Scope } from '../../config/config.js';
import { ApiError } from '../../shared/errors.js';
import type { BucketDecision, CostBuckets, TokenBuckets } from '../../shared/token-bucket.js';
import type { AppEnv } from '../context.js';

/**
 * The longest a request of an organization in database-time debt is held before its answer.
 * Refusing at once let a flooding client that ignores Retry-After (64 connections) get 3,900
 * refusals a second, a core's worth of TLS and routing that doubled another tenant's report p99
 * (bench/fairness.ts); held, the same client makes at most 64 requests a second.
 */
export const DEBT_HOLD_MS = 1000;

/**
 * Guards one API prefix: a bearer token with the prefix's scope, then the client's token bucket
 * and, where given (reports), the organization's bucket of database time (ms of report query time,
 * charged by the store when each report ends; a request is refused while the bucket is in debt).
 * Rate headers follow the IETF RateLimit header fields draft (RateLimit-Policy / RateLimit), one
 * list member per policy: `"per-client"` in requests, `"db-time"` in ms.
 */
export function apiGuard(
  scope: Scope,
  authenticator: Authenticator,
  buckets: TokenBuckets,
  nowMs: () => number,
  dbTime?: CostBuckets,
): MiddlewareHandler<AppEnv> {
  const windowOf = (b: { burst: number; ratePerSecond: number }) => Math.max(1, Math.ceil(b.burst / b.ratePerSecond));
  const policies = [`"per-client";q=${buckets.burst};w=${windowOf(buckets)}`];
  if (dbTime) policies.push(`"db-time";q=${dbTime.burst};w=${windowOf(dbTime)}`);
  const policy = policies.join(', ');
  const state = (name: string, d: BucketDecision) =>
    `"${name}";r=${d.remaining};t=${d.allowed ? d.resetSeconds : d.retryAfterSeconds}`;
  return async (c, next) => {
    const auth = authenticator.authenticate(c.req.header('authorization'), scope);
    c.set('auth', auth);
    const decision = buckets.take(auth.clientId, nowMs());
    // Checked only when the request itself may go: a refused request costs no database time.
    const organization = String(auth.organizationId);
    let cost = decision.allowed ? dbTime?.check(organization, nowMs()) : undefined;
    if (cost && !cost.allowed) {
      // In debt: wait for the refill up to DEBT_HOLD_MS, then run if it came, else refuse.
      await sleep(Math.min(DEBT_HOLD_MS, dbTime!.msUntilAllowed(organization, nowMs())));
      cost = dbTime!.check(organization, nowMs());
    }
    const states = [state('per-client', decision)];
    if (cost) states.push(state('db-time', cost));
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
