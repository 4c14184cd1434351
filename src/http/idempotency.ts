import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { requestFingerprint, type IdempotentRequest } from '../jobs/job-service.js';
import { badRequest } from '../shared/errors.js';
import type { AppEnv } from './context.js';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The header as the document shows it (`request.headers` of a route). Hono's header validator sees
 * lower-case names, so this key checks nothing: idempotencyOf does, in our own words.
 */
export const IDEMPOTENCY_KEY = z
  .string()
  .optional()
  .openapi({
    pattern: KEY.source,
    description: 'Makes a retry safe: the same key and body within 24 h answer the same job; the key with another body is a 422 (idempotency_key_reused). 1-255 visible ASCII characters (otherwise 400 invalid_header).',
  });

/** The Idempotency-Key of a job-starting request, bound to what the request asks for. */
export function idempotencyOf(c: Context<AppEnv>, body: unknown): IdempotentRequest | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY.test(key)) {
    throw badRequest('invalid_header', 'Idempotency-Key must be 1-255 visible ASCII characters.', [{ field: 'Idempotency-Key', code: 'invalid', message: '1-255 visible ASCII characters' }]);
  }
  return { key, fingerprint: requestFingerprint(c.req.method, c.req.path, body) };
}
