import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { SCOPES } from '../../config/config.js';
import type { AppEnv } from '../context.js';
import { errorResponses } from '../openapi-errors.js';

export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** What a metadata document (a GET without token or parameters) can answer besides 200. */
export const METADATA_ERRORS = errorResponses(
  'get',
  {
    400: 'The raw query string holds a character that must be percent-encoded (unencoded_characters), or the query has a parameter (the metadata takes none: unknown_parameter).',
  },
  [500],
);

const metadataSchema = z.object({
  issuer: z.string().openapi({
    description: 'https://<Host of the request>: the origin the client reached; no path.',
    example: 'https://localhost:8443',
  }),
  token_endpoint: z.string(),
  grant_types_supported: z.array(z.literal('client_credentials')),
  token_endpoint_auth_methods_supported: z.array(z.literal('client_secret_basic')),
  scopes_supported: z.array(z.enum(SCOPES)),
  response_types_supported: z.array(z.literal('none')).openapi({
    description:
      '["none"]: there is no authorization endpoint, so no response type issues a code or a token (RFC 8414 2 requires the member; an empty list is refused by validators such as Authlib\'s).',
  }),
  service_documentation: z.string().openapi({ description: 'The OpenAPI 3.1 document of the API.' }),
});

const metadataRoute = createRoute({
  method: 'get',
  path: OAUTH_METADATA_PATH,
  operationId: 'getAuthorizationServerMetadata',
  tags: ['Token'],
  summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
  description:
    'Lets OAuth client libraries find the token endpoint and its rules by themselves. No token needed. The issuer is https:// plus the Host header the request arrived with, so a proxy in front must pass the Host on.',
  security: [],
  responses: {
    200: { description: 'The metadata.', content: { 'application/json': { schema: metadataSchema } } },
    ...METADATA_ERRORS,
  },
});

/**
 * GET /.well-known/oauth-authorization-server. The service is its own authorization server for
 * the client credentials grant only; the issuer is the https origin the request reached (RFC 8414
 * 3.3 wants it to equal the URL the client started discovery from, whatever name it used).
 */
export function registerOAuthMetadataRoute(app: OpenAPIHono<AppEnv>): void {
  app.openapi(metadataRoute, (c) => {
    // The request URL's host is the Host header as @hono/node-server checked it (a Host that is
    // not host[:port] never gets here: 400 before the app) and WHATWG URL normalized it. The
    // scheme is https whatever the socket: the transport guard lets only https through (TLS
    // here, or X-Forwarded-Proto: https behind a trusted proxy).
    const issuer = `https://${new URL(c.req.url).host}`;
    return c.json(
      {
        issuer,
        token_endpoint: `${issuer}/token`,
        grant_types_supported: ['client_credentials' as const],
        token_endpoint_auth_methods_supported: ['client_secret_basic' as const],
        scopes_supported: [...SCOPES],
        // RFC 8414 2 makes this member REQUIRED, though a client-credentials-only server has no
        // authorization endpoint and so no response type. The empty list said that exactly, but
        // Authlib's AuthorizationServerMetadata.validate() refuses it ("is required": a falsy
        // list), and omitting the member (what the OAuth WG suggested for token-endpoint-only
        // servers, openid/OpenID4VCI#248) fails the same check. "code" or "token" would announce
        // the authorization code or the implicit grant. "none" (OAuth 2.0 Multiple Response Type
        // Encoding Practices 4, in IANA's response types registry) is the one registered value
        // that issues neither a code nor a token: the honest answer in a form validators accept.
        // No authorization_endpoint is published, so no client can try it.
        response_types_supported: ['none' as const],
        service_documentation: `${issuer}/openapi.json`,
      },
      200,
      // Clients discover once and keep it; an hour is plenty for a document that changes with a release.
      { 'Cache-Control': 'public, max-age=3600', Vary: 'Host' },
    );
  });
}
