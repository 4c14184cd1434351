import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';

/**
 * Behind a TLS-terminating proxy (--trust-proxy) the proxy says how the client connected;
 * anything but https is answered 404, as a plain-HTTP request is (spec 5.7, DESIGN D7).
 */
export function transportGuard(trustProxy: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (trustProxy) {
      const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
      if (proto !== 'https') throw new ApiError(404, 'https_required', 'This service is served over HTTPS only.');
    }
    await next();
  };
}
