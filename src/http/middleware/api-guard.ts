import type { MiddlewareHandler } from 'hono';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Scope } from '../../config/config.js';
import { ApiError } from '../../shared/errors.js';
import type { TokenBuckets } from '../../shared/token-bucket.js';
import type { AppEnv } from '../context.js';

/**
 * Guards one API prefix: a bearer token with the prefix's scope, then the client's token bucket.
 * Rate headers follow the IETF RateLimit header fields draft (RateLimit-Policy / RateLimit).
 */
export function apiGuard(
  scope: Scope,
  authenticator: Authenticator,
  buckets: TokenBuckets,
  nowMs: () => number,
): MiddlewareHandler<AppEnv> {
  const windowSeconds = Math.max(1, Math.ceil(buckets.burst / buckets.ratePerSecond));
  const policy = `"per-client";q=${buckets.burst};w=${windowSeconds}`;
  return async (c, next) => {
    const auth = authenticator.authenticate(c.req.header('authorization'), scope);
    c.set('auth', auth);
    const decision = buckets.take(auth.clientId, nowMs());
    const rateHeaders = {
      'RateLimit-Policy': policy,
      RateLimit: `"per-client";r=${decision.remaining};t=${decision.allowed ? decision.resetSeconds : decision.retryAfterSeconds}`,
    };
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
    await next();
    for (const [name, value] of Object.entries(rateHeaders)) c.res.headers.set(name, value);
  };
}
