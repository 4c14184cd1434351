/**
 * Range requests of a stored file (RFC 9110 14): one byte range per request. What the server may
 * ignore it ignores, and answers the whole file (200): a header that is not `bytes=<one range>`
 * (another unit, several ranges, bad syntax), or an If-Range that does not match the file.
 */
export type RangeAnswer =
  | { readonly kind: 'whole' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const ONE_RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/** The range a `Range` header asks of a file of `size` bytes; `end` inclusive. */
export function byteRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const match = ONE_RANGE.exec(header);
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // A suffix: the last n bytes (all of them when n exceeds the size).
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start)) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  // last < first is an invalid range-spec: ignored, the whole file.
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}

/**
 * If-Range (RFC 9110 13.1.5): the range applies only when the validator names this very file:
 * the strong ETag (strong comparison; a weak tag never matches), or its Last-Modified date exactly.
 */
export function ifRangeMatches(header: string | undefined, etag: string, lastModified: string): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag;
  return value === lastModified;
}
