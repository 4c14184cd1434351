import crypto from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';

const ACCEPTABLE = /^[\x21-\x7e]{1,200}$/;

/** Echoes a sane X-Request-Id or makes one, and puts it on every response, errors included. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const id = given !== undefined && ACCEPTABLE.test(given) ? given : crypto.randomUUID();
    c.set('requestId', id);
    await next();
    c.res.headers.set('X-Request-Id', id);
  };
}
