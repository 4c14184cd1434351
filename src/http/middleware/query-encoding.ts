import type { MiddlewareHandler } from 'hono';
import { badRequest } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';

// RFC 3986 query: unreserved / sub-delims / ":" / "@" / "/" / "?" and %XX escapes.
const QUERY_CHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

/** The first character of the raw query that should have been percent-encoded, if any. */
export function findUnencodedCharacter(rawQuery: string): { index: number; character: string } | undefined {
  for (let i = 0; i < rawQuery.length; i++) {
    const ch = rawQuery[i]!;
    if (ch === '%') {
      if (/^[0-9A-Fa-f]{2}$/.test(rawQuery.slice(i + 1, i + 3))) {
        i += 2;
        continue;
      }
      return { index: i, character: ch };
    }
    if (!QUERY_CHAR.test(ch)) return { index: i, character: ch };
  }
  return undefined;
}

/**
 * Spec 4.4: reserved characters in query values must be percent-encoded, else 400. The check
 * reads the raw request target, because the URL parser would quietly encode some of them.
 */
export function queryEncoding(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.env?.incoming?.url ?? new URL(c.req.url).search;
    const start = raw.indexOf('?');
    if (start >= 0) {
      const found = findUnencodedCharacter(raw.slice(start + 1));
      if (found) {
        const shown = JSON.stringify(found.character);
        throw badRequest(
          'unencoded_characters',
          `The query string has the character ${shown} at position ${found.index + 1}; percent-encode it (for example ${encodeURIComponent(found.character) === found.character ? '%25' : encodeURIComponent(found.character)}).`,
        );
      }
    }
    await next();
  };
}
