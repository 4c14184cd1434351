import { z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';

type Registry = OpenAPIHono['openAPIRegistry'];
type Responses = RouteConfig['responses'];

/**
 * The error statuses of the document and the response objects that describe them, so every
 * operation documents the same envelope, headers and wording (supplement 1, spec 7).
 */
export const ErrorSchema = z
  .object({
    error: z.object({
      status: z.number().int().min(400).max(599).openapi({ description: 'The HTTP status, repeated.' }),
      code: z.string().openapi({
        description: 'A stable machine word: invalid_parameter, validation_failed, not_found, ...',
        example: 'validation_failed',
      }),
      message: z.string().openapi({ description: 'A sentence for humans naming the offending input.' }),
      details: z
        .array(
          z.object({
            field: z.string().openapi({ example: 'account.name' }),
            code: z.string().openapi({ example: 'too_long' }),
            message: z.string(),
            position: z.number().int().min(0).optional().openapi({
              description:
                'Expression parameters (filter, sort, formulas): the 0-based offset into the parameter value where the fault is, so a client can mark it; the message says it too.',
              example: 0,
            }),
          }),
        )
        .openapi({ description: 'One entry per broken rule; empty when the error concerns no field.' }),
      requestId: z
        .string()
        .openapi({ description: 'The X-Request-Id of the request; quote it when reporting a problem.' }),
    }),
  })
  .openapi('Error', { description: 'The error envelope of every API error except those of POST /token.' });

/**
 * RFC 6749 5.2; `server_error` and `temporarily_unavailable` are its codes for 500 and 503
 * (4.1.2.1); `rate_limited` is ours for 429 (RFC 6749 has none: token-issuer.ts says why).
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'unsupported_grant_type',
  'invalid_scope',
  'rate_limited',
  'server_error',
  'temporarily_unavailable',
] as const;

export const OAuthErrorSchema = z
  .object({
    error: z.enum(OAUTH_ERROR_CODES),
    error_description: z.string(),
  })
  .openapi('OAuthError', { description: 'An error of the token endpoint, as RFC 6749 5.2 shapes it.' });

export type ErrorStatus = 400 | 401 | 403 | 404 | 406 | 409 | 412 | 413 | 415 | 422 | 429 | 500 | 503;

/** Response headers as the document writes them. */
export type Headers = Record<string, { description: string; schema: { type: 'integer' | 'string'; minimum?: number } }>;

const retryAfter: Headers = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
};
const rateHeaders: Headers = {
  RateLimit: {
    description:
      'IETF RateLimit header fields draft: `"per-client";r=<left>;t=<seconds>`; the reporting API adds `, "db-time";r=<ms left>;t=<seconds>` (the organization\'s database time).',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'IETF RateLimit header fields draft: `"per-client";q=<burst>;w=<seconds>`; the reporting API adds `, "db-time";q=<burst ms>;w=<seconds>`.',
    schema: { type: 'string' },
  },
};
const wwwAuthenticate: Headers = {
  'WWW-Authenticate': {
    description: 'RFC 6750 3: `Bearer realm="adreport"`, with `error=` when a token was sent.',
    schema: { type: 'string' },
  },
};

/** Shared statuses: same meaning on every operation, kept once under components.responses. */
const SHARED: Partial<Record<ErrorStatus, { name: string; description: string; headers?: Headers }>> = {
  400: {
    name: 'BadRequest',
    description:
      'The request cannot be read: the raw query string holds a character that must be percent-encoded (unencoded_characters), the query has a parameter the operation does not document (unknown_parameter), or the Authorization header is not `Bearer <token>` (invalid_request, RFC 6750 3.1, with WWW-Authenticate).',
    headers: wwwAuthenticate,
  },
  401: {
    name: 'Unauthorized',
    description: 'No token (code unauthorized), or an invalid, expired or disabled one (invalid_token).',
    headers: wwwAuthenticate,
  },
  403: {
    name: 'Forbidden',
    description:
      'The token lacks the scope this API requires (insufficient_scope): provisioning for /provisioning/v0, reporting for /reporting/v0.',
    headers: wwwAuthenticate,
  },
  406: { name: 'NotAcceptable', description: 'Accept names no type the endpoint produces (not_acceptable).' },
  412: {
    name: 'PreconditionFailed',
    description:
      'If-Match names no current representation of the resource, or If-None-Match is `*` (the resource exists) or names the current one (precondition_failed); nothing was changed. The ETag header is the current one.',
    headers: {
      ETag: { description: "The resource's current strong ETag.", schema: { type: 'string' } },
    },
  },
  413: {
    name: 'PayloadTooLarge',
    description:
      'The request body is larger than 1 MiB as sent or, with a Content-Encoding, once decoded (payload_too_large).',
  },
  415: {
    name: 'UnsupportedMediaType',
    description:
      'The body is not application/json (PATCH also takes application/merge-patch+json): unsupported_media_type; or its Content-Encoding is none of gzip, deflate, br (unsupported_content_encoding, with Accept-Encoding).',
    headers: {
      'Accept-Encoding': {
        description:
          'With unsupported_content_encoding (RFC 9110 15.5.16): the codings a request body may have, gzip, deflate, br.',
        schema: { type: 'string' },
      },
      'Accept-Patch': {
        description: 'On PATCH operations (RFC 5789): the media types the operation accepts.',
        schema: { type: 'string' },
      },
    },
  },
  429: {
    name: 'TooManyRequests',
    description:
      "The client's token bucket is empty, or (reporting) the organization's bucket of database time is in debt: its reports used more query time than its share (ADREPORT_DB_TIME_MS_PER_SECOND, default 1000 ms per second, burst 5000 ms) (rate_limited). Retry-After says when the next request is let in.",
    headers: { ...retryAfter, ...rateHeaders },
  },
  500: {
    name: 'InternalError',
    description: 'An unexpected failure (internal_error); the body never carries a stack, SQL or a path.',
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'The service is at capacity or a platform is not answering (overloaded, platform_unavailable, ...).',
    headers: retryAfter,
  },
};

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** Registers the shared error responses under components.responses (once per document). */
export function registerErrorComponents(registry: Registry): void {
  registry.register('Error', ErrorSchema);
  registry.register('OAuthError', OAuthErrorSchema);
  for (const shared of Object.values(SHARED)) {
    registry.registerComponent('responses', shared.name, {
      description: shared.description,
      ...(shared.headers ? { headers: shared.headers } : {}),
      content: { 'application/json': { schema: ERROR_REF } },
    });
  }
}

/**
 * Every bearer-token operation can answer these: spec 7's 401, 403, 429, 500, 503, and 400 for a
 * request it cannot read (a raw character in the query string, at least).
 */
export const ALWAYS: readonly ErrorStatus[] = [400, 401, 403, 429, 500, 503];

/**
 * The error responses of one operation: the statuses every bearer operation has, plus `specific`
 * with their operation-specific wording (a status listed in SHARED may omit its wording).
 * DELETE errors have no body (spec 7), so they are documented without content.
 */
export function errorResponses(
  method: string,
  specific: Partial<Record<ErrorStatus, string | true>>,
  always: readonly ErrorStatus[] = ALWAYS,
): Responses {
  const out: Responses = {};
  const statuses = [...new Set<ErrorStatus>([...(Object.keys(specific).map(Number) as ErrorStatus[]), ...always])].sort(
    (a, b) => a - b,
  );
  for (const status of statuses) {
    const given = specific[status];
    const shared = SHARED[status];
    const description = typeof given === 'string' ? given : shared?.description;
    if (description === undefined) throw new Error(`status ${status} needs a description`);
    if (method === 'delete') {
      out[status] = {
        description: `${description} No body: DELETE errors are the status alone.`,
        ...(shared?.headers ? { headers: shared.headers } : {}),
      };
    } else if (shared && typeof given !== 'string') {
      out[status] = { $ref: `#/components/responses/${shared.name}` };
    } else {
      out[status] = {
        description,
        ...(shared?.headers ? { headers: shared.headers } : {}),
        content: { 'application/json': { schema: ERROR_REF } },
      };
    }
  }
  return out;
}
