import crypto from 'node:crypto';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { IdempotentRequest } from '../provisioning/job-queue.js';
import { badRequest } from '../shared/errors.js';
import type { AppEnv } from './context.js';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The header as the document shows it (`request.headers` of a route). Hono's header validator sees
 * lower-case names, so this key checks nothing: idempotencyOf does, in our own words.
 */
export const IDEMPOTENCY_KEY = z.string().optional().openapi({
  pattern: KEY.source,
  description:
    'Makes a retry safe: the same key and body within 24 h answer the same job; the key with another body is a 422 (idempotency_key_reused). 1-255 visible ASCII characters (otherwise 400 invalid_header).',
});

/** The Idempotency-Key of a job-starting request, bound to what the request asks for. */
export function idempotencyOf(c: Context<AppEnv>, body: unknown): IdempotentRequest | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY.test(key)) {
    throw badRequest('invalid_header', 'Idempotency-Key must be 1-255 visible ASCII characters.', [
      { field: 'Idempotency-Key', code: 'invalid', message: '1-255 visible ASCII characters' },
    ]);
  }
  return { key, fingerprint: requestFingerprint(c.req.method, c.req.path, body) };
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** JSON with sorted keys, so {"a":1,"b":2} and {"b":2,"a":1} are one request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
