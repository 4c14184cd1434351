import { z } from '@hono/zod-openapi';
import type { Headers } from './openapi-errors.js';

/**
 * Conditional GETs of report answers (RFC 9110 13.1.2, 15.4.5): If-None-Match against the
 * answer's ETag, a 304 with the headers the 200 would have had, and the cache headers.
 */

/** Revalidate every time (no-cache), never in a shared cache (private: tokens are per organization). */
export const CACHE_CONTROL = 'private, no-cache';
/** Says whether the page cache answered: `hit` or `miss` (JSON answers only; exports are never cached). */
export const X_CACHE = 'X-Cache';

/** An entity-tag in a list: `"opaque"` or `W/"opaque"`, the opaque part captured. */
const ENTITY_TAG = /(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g;

/**
 * If-None-Match matches `etag` by weak comparison (RFC 9110 8.8.3.2: the opaque parts equal,
 * W/ ignored on both sides), or it is `*` (a current answer exists: the request was valid).
 * Several header lines are one list. A value that is no entity-tag list matches nothing, so the
 * request gets its 200 as without the header.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const match of header.matchAll(ENTITY_TAG)) if (`"${match[1]}"` === opaque) return true;
  return false;
}

/**
 * 304: no body, and the headers a 200 would have carried that a cache needs (RFC 9110 15.4.5:
 * ETag, Cache-Control, Vary). Every report answer varies by Accept-Encoding (the compression), the
 * statistics endpoints by Accept too (the format).
 */
export function notModified(etag: string, vary = 'Accept, Accept-Encoding'): Response {
  return new Response(null, { status: 304, headers: { ETag: etag, 'Cache-Control': CACHE_CONTROL, Vary: vary } });
}

/** The validator headers of a 200. */
export function validatorHeaders(etag: string): Record<string, string> {
  return { ETag: etag, 'Cache-Control': CACHE_CONTROL };
}

/** The request header as the document shows it; any value is accepted (one that is no tag list matches nothing). */
export const IF_NONE_MATCH = z.string().optional().openapi({
  pattern: '^[\\x20-\\x7e]*$',
  description:
    'ETags of answers the client holds (`W/"..."`, a comma list, or `*`). When one is the current ETag of this answer, 304 without a body; the comparison is weak (W/ ignored).',
  example: 'W/"3q2-7wPZsLx9mQh0UeVq1fN0rG4aBcD8"',
});

/** Headers of a report answer's 200 (X-Cache: JSON answers only). */
/** Which engine computed the answer (issue 22). */
const REPORT_ENGINE = {
  description:
    '`duckdb` or `clickhouse`: the engine that computed this answer. Under `serve --report-engine clickhouse` an organization is answered by DuckDB until everything its reports read is replicated (and again right after each write, until that is replicated too).',
  schema: { type: 'string' as const, enum: ['duckdb', 'clickhouse'] },
};

export const VALIDATOR_HEADERS: Headers = {
  ETag: {
    description:
      "A weak validator of this answer: it changes when the organization's data that the report reads changes (any write), with the request (its plan, the resolved dates included) and format, and at a restart of the service. Send it back in If-None-Match.",
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: '`private, no-cache`: revalidate with If-None-Match; never in a shared cache.',
    schema: { type: 'string' },
  },
  [X_CACHE]: {
    description:
      'JSON answers: `hit` when the page cache answered (no query ran), `miss` otherwise. Exports are never cached.',
    schema: { type: 'string' },
  },
  'X-Report-Engine': REPORT_ENGINE,
};

/** The 304 of a report operation, for its responses. */
export const NOT_MODIFIED_RESPONSE = {
  304: {
    description: 'If-None-Match named the current ETag: nothing changed since; no body, no query ran.',
    headers: {
      ETag: VALIDATOR_HEADERS.ETag!,
      'Cache-Control': VALIDATOR_HEADERS['Cache-Control']!,
      'X-Report-Engine': REPORT_ENGINE,
      Vary: {
        description:
          'As the 200 would have it: `Accept, Accept-Encoding` (markups and call details: `Accept-Encoding`).',
        schema: { type: 'string' as const },
      },
    },
  },
};
