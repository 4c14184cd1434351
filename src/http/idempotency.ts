import type { Context } from 'hono';
import { requestFingerprint, type IdempotentRequest } from '../jobs/job-service.js';
import { badRequest } from '../shared/errors.js';
import type { AppEnv } from './context.js';

/** The Idempotency-Key of a job-starting request, bound to what the request asks for. */
export function idempotencyOf(c: Context<AppEnv>, body: unknown): IdempotentRequest | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw badRequest('invalid_header', 'Idempotency-Key must be 1-255 visible ASCII characters.', [{ field: 'Idempotency-Key', code: 'invalid', message: '1-255 visible ASCII characters' }]);
  }
  return { key, fingerprint: requestFingerprint(c.req.method, c.req.path, body) };
}
