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
 * ETag, Cache-Control, Vary). The JSON answers vary by Accept-Encoding too (the compression).
 */
export function notModified(etag: string): Response {
  return new Response(null, {
    status: 304,
    headers: { ETag: etag, 'Cache-Control': CACHE_CONTROL, Vary: 'Accept, Accept-Encoding' },
  });
}

/** The validator headers of a 200. */
export function validatorHeaders(etag: string): Record<string, string> {
  return { ETag: etag, 'Cache-Control': CACHE_CONTROL };
}
