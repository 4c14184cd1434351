import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { RequestTiming, withRequestTiming } from '../../runtime/request-timing.js';

/**
 * With `ADREPORT_SERVER_TIMING=true`: every answer says where its time went, per layer, wall and
 * CPU (`Server-Timing`, RFC: W3C Server Timing; browsers' developer tools show it). Off by
 * default: it reads two clocks per layer and tells a client how long our look-ups take.
 */
export function serverTiming(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const timing = new RequestTiming();
    await withRequestTiming(timing, next);
    c.res.headers.set('Server-Timing', timing.header());
  };
}
