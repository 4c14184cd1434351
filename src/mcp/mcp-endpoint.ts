import { createMcpHandler } from '@modelcontextprotocol/server';
import { buildMcpServer } from './mcp-server.js';
import { RestGateway, type AppFetch } from './rest-gateway.js';

/** Who called /mcp, as the HTTP layer authenticated them. */
export interface McpCaller {
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** The bearer token, forwarded to every REST call the tools make. */
  readonly token: string;
}

export interface McpEndpoint {
  /** One HTTP request to /mcp (POST; GET and DELETE are 405: no sessions, no server-initiated stream). */
  handle(request: Request, caller: McpCaller): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The Model Context Protocol over streamable HTTP, stateless: each request gets its own server
 * (no session, nothing kept between requests). The SDK's handler answers the 2026-07-28
 * revision (the per-request envelope, server/discover) and, for 2025-era clients, the
 * stateless fallback of the 2025-11-25 revision: an initialize, then each request on its own.
 * `appFetch` is the service's own app: the tools answer through the REST API, as the caller.
 */
export function createMcpEndpoint(options: {
  appFetch: AppFetch;
  version: string;
  /** Requests the SDK refused (a protocol version it does not serve, a malformed envelope): the client's mistakes, not the service's. */
  log: (line: string) => void;
}): McpEndpoint {
  const handler = createMcpHandler(
    (context) => {
      const request = context.requestInfo!;
      // The transport guard lets only https through (TLS here, or X-Forwarded-Proto behind a proxy).
      const origin = `https://${new URL(request.url).host}`;
      const rest = new RestGateway(options.appFetch, origin, request.headers);
      return buildMcpServer(rest, { scopes: context.authInfo?.scopes ?? [] }, options.version);
    },
    { onerror: (error) => options.log(error.message) },
  );
  return {
    handle: (request, caller) =>
      handler.fetch(request, {
        authInfo: { token: caller.token, clientId: caller.clientId, scopes: [...caller.scopes] },
      }),
    close: () => handler.close(),
  };
}
