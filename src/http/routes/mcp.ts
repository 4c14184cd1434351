import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { SCOPES } from '../../config/config.js';
import { ApiError } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';
import { METADATA_ERRORS } from './oauth-metadata.js';

/** The Model Context Protocol endpoint (issue 42): a protocol of its own, not an operation of the OpenAPI document. */
export const MCP_PATH = '/mcp';
/** RFC 9728 protected resource metadata of /mcp: where MCP clients learn which authorization server issues its tokens. */
export const MCP_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** What serves /mcp (src/mcp/mcp-endpoint.ts): the app hands it the request and the authenticated caller. */
export interface McpHandler {
  handle(
    request: Request,
    caller: { readonly clientId: string; readonly scopes: readonly string[]; readonly token: string },
  ): Promise<Response>;
}

const originOf = (url: string) => `https://${new URL(url).host}`;

const metadataSchema = z.object({
  resource: z
    .string()
    .openapi({ description: 'https://<Host of the request>/mcp', example: 'https://localhost:8443/mcp' }),
  authorization_servers: z.array(z.string()).openapi({
    description: 'This service itself: its /.well-known/oauth-authorization-server names the token endpoint.',
  }),
  scopes_supported: z.array(z.enum(SCOPES)),
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: z.string(),
  resource_documentation: z.string(),
});

const metadataRoute = createRoute({
  method: 'get',
  path: MCP_RESOURCE_METADATA_PATH,
  operationId: 'getMcpResourceMetadata',
  tags: ['Token'],
  summary: 'OAuth 2.0 protected resource metadata of the MCP endpoint (RFC 9728)',
  description:
    'MCP clients find here (or through the resource_metadata of the 401 from /mcp) that this service issues the tokens /mcp takes: POST /token with the client credentials grant. No token needed. /mcp needs the reporting scope; its provisioning tools the provisioning scope too.',
  security: [],
  responses: {
    200: { description: 'The metadata.', content: { 'application/json': { schema: metadataSchema } } },
    ...METADATA_ERRORS,
  },
});

/**
 * A 401 from /mcp names the resource metadata (MCP authorization, RFC 9728 5.1), so a client that
 * knows only the URL of /mcp can find the token endpoint.
 */
function withResourceMetadata(guard: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      await guard(c, next);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      const challenge = error.headers['WWW-Authenticate'] ?? 'Bearer realm="adreport"';
      throw new ApiError(error.status, error.code, error.message, error.details, {
        ...error.headers,
        'WWW-Authenticate': `${challenge}, resource_metadata="${originOf(c.req.url)}${MCP_RESOURCE_METADATA_PATH}"`,
      });
    }
  };
}

/**
 * The MCP transport's rule against DNS rebinding: a request a browser sends from a page of another
 * origin (its Origin header) is refused before anything else. Agents outside browsers send none.
 */
const sameOriginOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== originOf(c.req.url))
    throw new ApiError(
      403,
      'origin_not_allowed',
      `Requests to ${MCP_PATH} from a page of another origin (${origin.slice(0, 100)}) are refused.`,
    );
  await next();
};

/**
 * POST /mcp (GET and DELETE answer 405: stateless, no session and no stream of the server's own)
 * behind `guard` (a bearer token with the reporting scope, the client's request bucket), and the
 * resource metadata that points MCP clients at the token endpoint.
 */
export function registerMcpRoutes(app: OpenAPIHono<AppEnv>, mcp: McpHandler, guard: MiddlewareHandler<AppEnv>): void {
  app.openapi(metadataRoute, (c) => {
    const origin = originOf(c.req.url);
    return c.json(
      {
        resource: `${origin}${MCP_PATH}`,
        authorization_servers: [origin],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ['header' as const],
        resource_name: 'adreport MCP server',
        resource_documentation: `${origin}/openapi.json`,
      },
      200,
      { 'Cache-Control': 'public, max-age=3600', Vary: 'Host' },
    );
  });
  app.on(['GET', 'POST', 'DELETE'], MCP_PATH, sameOriginOnly, withResourceMetadata(guard), async (c) => {
    const auth = c.get('auth');
    const token = (c.req.header('authorization') ?? '').replace(/^bearer\s+/i, '');
    return mcp.handle(c.req.raw, { clientId: auth.clientId, scopes: auth.scopes, token });
  });
}
