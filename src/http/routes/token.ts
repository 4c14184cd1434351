import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { TokenIssuer } from '../../auth/token-issuer.js';
import { OAuthError } from '../../shared/errors.js';
import { SCOPES } from '../../config/config.js';
import type { AppEnv } from '../context.js';
import { OAuthErrorSchema, type Headers } from '../openapi-errors.js';
import { jsonContent } from '../openapi-helpers.js';

const SCOPE_LIST = `^(${SCOPES.join('|')})( (${SCOPES.join('|')}))*$`;

const oauthError = (description: string, headers?: Headers) => ({
  description,
  ...(headers ? { headers } : {}),
  ...jsonContent(OAuthErrorSchema),
});
const NO_STORE: Headers = {
  'Cache-Control': { description: 'no-store', schema: { type: 'string' } },
  Pragma: { description: 'no-cache', schema: { type: 'string' } },
};

/** The client's token bucket (IETF RateLimit header fields draft), on a token and on its 429. */
const TOKEN_RATE_HEADERS: Headers = {
  'RateLimit-Policy': {
    description: 'The client\'s token requests: `"per-client";q=<burst>;w=<seconds to refill>`.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'What is left: `"per-client";r=<requests left>;t=<seconds>`.',
    schema: { type: 'string' },
  },
};

const tokenRoute = createRoute({
  method: 'post',
  path: '/token',
  operationId: 'requestToken',
  tags: ['Token'],
  summary: 'Get an access token (OAuth 2.0 client credentials grant)',
  description:
    'Authenticate with HTTP Basic (client id and secret, each form-encoded, RFC 6749 2.3.1); never with client_secret in the body. A parameter given twice is invalid_request; unknown parameters are ignored (RFC 6749 3.2). Errors follow RFC 6749 5.2 (OAuthError).',
  security: [{ basicAuth: [] }],
  request: {
    body: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: z
            .object({
              grant_type: z.literal('client_credentials'),
              scope: z
                .string()
                .optional()
                .openapi({
                  pattern: SCOPE_LIST,
                  description: `Space-separated subset of the client's scopes (${SCOPES.join(', ')}); default all of them. Another scope: 400 invalid_scope.`,
                }),
              client_id: z.string().optional().openapi({
                description: 'Optional (RFC 6749 2.3.1); when sent, it must equal the authenticated client id.',
              }),
            })
            // "Must not be sent" is said in words, not as `client_secret: {not: {}}`: a property
            // whose schema matches nothing broke generators' strict builds (orval). Left out of the
            // properties, it is one of the unknown parameters the schema allows (RFC 6749 3.2),
            // and the handler refuses it by name.
            .openapi({
              description:
                'client_secret is never sent in the body: the client authenticates with HTTP Basic (Authorization: Basic base64(client_id:client_secret)); a body with client_secret is 400 invalid_request.',
            }),
        },
      },
    },
  },
  responses: {
    200: {
      description: 'A bearer token; no refresh token (ask again with the same request).',
      headers: { ...NO_STORE, ...TOKEN_RATE_HEADERS },
      ...jsonContent(
        z.object({
          access_token: z.string(),
          token_type: z.literal('Bearer'),
          expires_in: z.number().int().positive(),
          scope: z.string(),
        }),
      ),
    },
    400: oauthError(
      'invalid_request (body not a form, a missing or repeated parameter, a malformed Basic header, client_secret in the body), unsupported_grant_type or invalid_scope.',
    ),
    401: oauthError('invalid_client: no Basic header, unknown client, wrong secret or a disabled client.', {
      'WWW-Authenticate': { description: 'Basic realm="adreport", charset="UTF-8"', schema: { type: 'string' } },
    }),
    413: oauthError('invalid_request: the body is larger than 1 MiB.'),
    429: oauthError(
      "rate_limited: more token requests of one client than its bucket allows (RFC 6749 has no code for this; rate_limited is the API's own word for it). Retry-After says when to retry.",
      {
        'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 0 } },
        ...TOKEN_RATE_HEADERS,
      },
    ),
    500: oauthError('server_error: an unexpected failure.'),
    503: oauthError('temporarily_unavailable: the service is at capacity; Retry-After says when to retry.', {
      'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 0 } },
    }),
  },
});

const FORM = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;

/**
 * POST /token. Registered in the OpenAPI document but parsed by hand: the RFC wants its own
 * error shape for every malformed request, which the generic validators cannot produce.
 */
export function registerTokenRoute(app: OpenAPIHono<AppEnv>, issuer: TokenIssuer): void {
  app.openAPIRegistry.registerPath(tokenRoute);
  app.post('/token', async (c) => {
    if (!FORM.test(c.req.header('content-type') ?? '')) {
      throw invalidRequest('Send the body as application/x-www-form-urlencoded.');
    }
    const credentials = parseBasicCredentials(c.req.header('authorization'));
    const form = new URLSearchParams(await c.req.text());
    const grantType = singleParameter(form, 'grant_type');
    const scope = singleParameter(form, 'scope');
    if (form.has('client_secret'))
      throw invalidRequest('Send the client credentials with HTTP Basic authentication, not in the body.');
    const bodyClientId = singleParameter(form, 'client_id');
    if (bodyClientId !== undefined && bodyClientId !== credentials.clientId)
      throw invalidRequest('client_id in the body differs from the authenticated client.');
    if (grantType === undefined) throw invalidRequest('The parameter grant_type is missing.');
    const client = await issuer.authenticate(credentials.clientId, credentials.secret);
    if (grantType !== 'client_credentials') {
      throw new OAuthError(
        400,
        'unsupported_grant_type',
        `Only grant_type=client_credentials is supported, not "${grantType}".`,
      );
    }
    const issued = await issuer.issue(client, scope);
    return c.json(issued.body, 200, { ...issued.rateHeaders, 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  });
}

function invalidRequest(description: string): OAuthError {
  return new OAuthError(400, 'invalid_request', description);
}

/** RFC 3.1: a parameter sent twice makes the request invalid. */
function singleParameter(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw invalidRequest(`The parameter ${name} is repeated.`);
  return values[0];
}

/** RFC 6749 2.3.1: id and secret are form-encoded, joined by ":", then Base64 (RFC 4648, padded). */
export function parseBasicCredentials(header: string | undefined): { clientId: string; secret: string } {
  if (header === undefined || !/^Basic\b/i.test(header)) {
    throw new OAuthError(
      401,
      'invalid_client',
      'Authenticate the client with HTTP Basic (Authorization: Basic base64(client_id:client_secret)).',
      {
        'WWW-Authenticate': 'Basic realm="adreport", charset="UTF-8"',
      },
    );
  }
  const encoded = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header)?.[1];
  if (encoded === undefined || encoded.length % 4 !== 0)
    throw invalidRequest('The Basic authorization header is not valid Base64.');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidRequest('The Basic credentials need the form client_id:client_secret.');
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    if (clientId === '' || secret === '')
      throw invalidRequest('The Basic credentials have an empty client id or secret.');
    return { clientId, secret };
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    throw invalidRequest('The Basic credentials are not correctly form-encoded.');
  }
}

function formDecode(text: string): string {
  return decodeURIComponent(text.replaceAll('+', ' '));
}
