import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';
import { readJsonBody } from './json-body.js';

/**
 * Exact media types for a JSON route. The validator would take any `application/*+json`, which
 * would read an RFC 6902 JSON Patch (`application/json-patch+json`) as a merge patch. A 415 to
 * a PATCH names the patch formats the route takes in Accept-Patch (RFC 5789 2.2). Then the body
 * is read and checked as Unicode text once, for the validator (see readJsonBody).
 */
export function acceptJson(...mediaTypes: string[]): MiddlewareHandler<AppEnv> {
  const accepted = mediaTypes.length > 0 ? mediaTypes : ['application/json'];
  return async (c, next) => {
    const given = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (given === undefined || !accepted.includes(given)) {
      const headers: Record<string, string> = c.req.method === 'PATCH' ? { 'Accept-Patch': accepted.join(', ') } : {};
      throw new ApiError(
        415,
        'unsupported_media_type',
        `Send the request body as ${accepted.join(' or ')}${given ? `, not ${given}` : ''}.`,
        [],
        headers,
      );
    }
    await readJsonBody(c);
    await next();
  };
}
