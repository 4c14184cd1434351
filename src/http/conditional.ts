import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { REPORT_ENGINE_NAMES } from '../reporting/report-engines.js';
import type { Precondition } from '../shared/entity-tag.js';
import { ApiError, badRequest } from '../shared/errors.js';
import type { AppEnv } from './context.js';
import type { Headers } from './openapi-errors.js';

/**
 * Conditional GETs of report answers (RFC 9110 13.1.2, 15.4.5): If-None-Match against the
 * answer's ETag, a 304 with the headers the 200 would have had, and the cache headers.
 */

/** Revalidate every time (no-cache), never in a shared cache (private: tokens are per organization). */
export const CACHE_CONTROL = 'private, no-cache';
/** Says whether the page cache answered: `hit` or `miss` (JSON answers only; exports are never cached). */
export const X_CACHE = 'X-Cache';

/**
 * If-None-Match matches `etag` by weak comparison (RFC 9110 8.8.3.2: the opaque parts equal,
 * W/ ignored on both sides), or it is `*` (a current answer exists: the request was valid).
 * Several header lines are one list. A value that is no entity-tag list (parseEntityTagList)
 * matches nothing, so the request gets its 200 as without the header.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  const condition = header === undefined ? undefined : parseEntityTagList(header);
  return condition !== undefined && !ifNoneMatchHolds(condition, etag.replace(/^W\//, ''));
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
/** Which engine computed the answer (issue 22): one of the report engines' names. */
const REPORT_ENGINE = {
  description: `${REPORT_ENGINE_NAMES.map((name) => `\`${name}\``).join(' or ')}: the engine that computed this answer. Under \`serve --report-engine clickhouse\` an organization is answered by DuckDB until everything its reports read is replicated (and again right after each write, until that is replicated too).`,
  schema: { type: 'string' as const, enum: [...REPORT_ENGINE_NAMES] },
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

/*
 * Conditional writes of provisioning resources (RFC 9110 13.1.1, 13.1.2, 13.2.2): every single
 * resource answers a strong ETag (../shared/entity-tag.ts); PUT, PATCH and DELETE honour If-Match
 * and If-None-Match against it. The header is parsed here, before anything is read; the service
 * evaluates the condition inside the write's transaction, against the tag of what is stored then,
 * so two writers holding the same tag cannot both pass.
 */

/** One entity-tag of a request header, with its quotes. */
export interface EntityTag {
  readonly weak: boolean;
  readonly tag: string;
}

/** `*`, or the tags of the list (never empty). */
export type EntityTagCondition = '*' | readonly EntityTag[];

const TAG_AT = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/y;
const OWS = /[ \t]*/y;

/**
 * `*` or a comma list of entity-tags (RFC 9110 13.1.1: `"*" / #entity-tag`), empty list elements
 * ignored as 5.6.1 asks; undefined when the value is neither (or holds no tag at all). A tag may
 * hold a comma, so the list is scanned tag by tag rather than split.
 */
export function parseEntityTagList(value: string): EntityTagCondition | undefined {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  const skipSpace = () => {
    OWS.lastIndex = at;
    OWS.exec(value);
    at = OWS.lastIndex;
  };
  while (at < value.length) {
    skipSpace();
    if (at >= value.length) break;
    if (value[at] === ',') {
      at++;
      continue;
    }
    TAG_AT.lastIndex = at;
    const match = TAG_AT.exec(value);
    if (!match) return undefined;
    tags.push({ weak: match[1] !== undefined, tag: match[2]! });
    at = TAG_AT.lastIndex;
    skipSpace();
    // After a tag: the end, or a comma before the next element.
    if (at < value.length && value[at] !== ',') return undefined;
  }
  return tags.length > 0 ? tags : undefined;
}

/** If-Match: `*` matches any current representation; a tag only by strong comparison (W/ never matches, 8.8.3.2). */
export function ifMatchHolds(condition: EntityTagCondition, current: string): boolean {
  return condition === '*' || condition.some((t) => !t.weak && t.tag === current);
}

/** If-None-Match holds unless it is `*` (the resource exists) or lists the current tag (weak comparison). */
export function ifNoneMatchHolds(condition: EntityTagCondition, current: string): boolean {
  return condition !== '*' && !condition.some((t) => t.tag === current);
}

function headerCondition(c: Context<AppEnv>, name: 'If-Match' | 'If-None-Match'): EntityTagCondition | undefined {
  const value = c.req.header(name);
  if (value === undefined) return undefined;
  const condition = parseEntityTagList(value);
  if (condition === undefined) {
    throw badRequest('invalid_header', `${name} must be * or a comma list of entity-tags such as "abc" or W/"abc".`, [
      { field: name, code: 'invalid', message: 'not * and not a list of entity-tags ("..." or W/"...")' },
    ]);
  }
  return condition;
}

/**
 * The conditions of a PUT, PATCH or DELETE, parsed now (a malformed header is a 400 naming it),
 * evaluated by the service against the stored resource: If-Match first, then If-None-Match
 * (13.2.2). A false one is a 412 carrying the current ETag, and nothing is written.
 */
export function writePrecondition(c: Context<AppEnv>): Precondition | undefined {
  const ifMatch = headerCondition(c, 'If-Match');
  const ifNoneMatch = headerCondition(c, 'If-None-Match');
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  return (current) => {
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, current))
      throw preconditionFailed(
        'If-Match',
        current,
        `If-Match names no current representation of this resource: its current ETag is ${current}. Nothing was changed.`,
      );
    if (ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, current))
      throw preconditionFailed(
        'If-None-Match',
        current,
        `If-None-Match ${ifNoneMatch === '*' ? 'is * and the resource exists' : 'lists the current representation'}: its current ETag is ${current}. Nothing was changed.`,
      );
  };
}

function preconditionFailed(header: string, current: string, message: string): ApiError {
  return new ApiError(
    412,
    'precondition_failed',
    message,
    [{ field: header, code: 'precondition_failed', message: `the current ETag is ${current}` }],
    { ETag: current },
  );
}

/**
 * The headers of an answer that is a resource's representation (GET, and the writes that answer
 * it). It stays uncompressed: a strong tag names one sequence of bytes, and a gzip or br form
 * would need a tag of its own (RFC 9110 8.8.3.3); these bodies are a few KB.
 */
export function resourceTagHeaders(c: Context<AppEnv>, etag: string): { ETag: string } {
  c.set('identityOnly', true);
  return { ETag: etag };
}

/** GET of a resource: 304 when If-None-Match names its current tag (weak comparison, 13.1.2). */
export function resourceNotModified(c: Context<AppEnv>, etag: string): Response | undefined {
  if (!ifNoneMatchMatches(c.req.header('if-none-match'), etag)) return undefined;
  return new Response(null, { status: 304, headers: { ETag: etag } });
}

/** The document's pattern of `*` or an entity-tag list: the ASCII values parseEntityTagList accepts (unit-tested). */
export const TAG_LIST_PATTERN =
  '^[ \\t]*(?:\\*|(?:,[ \\t]*)*(?:W/)?"[\\x21\\x23-\\x7e]*"(?:[ \\t]*,(?:[ \\t]*(?:W/)?"[\\x21\\x23-\\x7e]*")?)*)[ \\t]*$';

export const IF_MATCH = z.string().optional().openapi({
  pattern: TAG_LIST_PATTERN,
  description:
    'Write only if the resource is still as the client saw it: `*` (it exists) or a comma list of ETags from GET or an earlier write; one must be the current ETag (strong comparison: W/ tags never match). Otherwise 412 precondition_failed with the current ETag, and nothing changes. Not `*` or a tag list: 400 invalid_header.',
  example: '"3q2-7wPZsLx9mQh0UeVq1f"',
});

export const IF_NONE_MATCH_WRITE = z.string().optional().openapi({
  pattern: TAG_LIST_PATTERN,
  description:
    '`*`: write only if the resource does not exist, so on an existing one always 412 (this API creates with POST). A tag list: 412 when one names the current representation (weak comparison). Not `*` or a tag list: 400 invalid_header.',
  example: '*',
});

/** The conditional headers of a PUT, PATCH or DELETE, for its `request.headers`. */
export const CONDITIONAL_WRITE_HEADERS = z.object({ 'If-Match': IF_MATCH, 'If-None-Match': IF_NONE_MATCH_WRITE });

/** The strong ETag of a resource's answer. */
export const RESOURCE_ETAG: Headers = {
  ETag: {
    description:
      "The resource's strong entity-tag: it changes whenever anything this representation shows changes, the service's own changes included (a link's status, a platform account's name). Send it in If-Match to write only over this state.",
    schema: { type: 'string' },
  },
};

/** PUT and PATCH answer the resource's new representation; Content-Location says so (RFC 9110 8.7). */
export const NEW_REPRESENTATION: Headers = {
  ...RESOURCE_ETAG,
  'Content-Location': {
    description:
      "The resource's path: the body is its representation after the write, and ETag names that representation (not the request body).",
    schema: { type: 'string' },
  },
};

/** The 304 of a resource's GET. */
export const RESOURCE_NOT_MODIFIED = {
  304: {
    description:
      'If-None-Match named the current ETag (weak comparison): the client holds the current representation; no body.',
    headers: RESOURCE_ETAG,
  },
};
