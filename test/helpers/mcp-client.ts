import { Agent } from 'undici';
import { Client, StreamableHTTPClientTransport, type AuthProvider } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * The MCP SDK's own clients against a test service over HTTPS (Node's fetch with a dispatcher
 * that trusts the service's self-signed certificate): the v2 client (@modelcontextprotocol/client),
 * speaking the 2026-07-28 revision or, in `legacy` mode, 2025-11-25; and the v1 client
 * (@modelcontextprotocol/sdk), the one most agent hosts ship, 2025-11-25 only.
 */
export interface McpConnection {
  readonly client: Client;
  close(): Promise<void>;
}

export type Era = 'legacy' | 'modern';

function trustingFetch(cert: string | undefined) {
  const dispatcher = new Agent({ connect: { ca: cert, servername: 'localhost' } });
  const fetchWith = (url: string | URL, init?: RequestInit) => fetch(url, { ...init, dispatcher } as RequestInit);
  return { fetchWith, dispatcher };
}

export async function connectMcp(
  baseUrl: string,
  cert: string | undefined,
  auth: { token: string } | { provider: AuthProvider },
  era: Era = 'modern',
): Promise<McpConnection> {
  const { fetchWith, dispatcher } = trustingFetch(cert);
  const client = new Client(
    { name: 'adreport-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    fetch: fetchWith,
    ...('token' in auth
      ? { requestInit: { headers: { authorization: `Bearer ${auth.token}` } } }
      : { authProvider: auth.provider }),
  });
  try {
    await client.connect(transport);
  } catch (error) {
    await dispatcher.close();
    throw error;
  }
  return {
    client,
    async close() {
      await client.close();
      await dispatcher.close();
    },
  };
}

export async function connectV1(
  baseUrl: string,
  cert: string | undefined,
  token: string,
): Promise<{ client: V1Client; close(): Promise<void> }> {
  const { fetchWith, dispatcher } = trustingFetch(cert);
  const client = new V1Client({ name: 'adreport-test-v1', version: '1.0.0' });
  await client.connect(
    new V1Transport(new URL('/mcp', baseUrl), {
      fetch: fetchWith,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return {
    client,
    async close() {
      await client.close();
      await dispatcher.close();
    },
  };
}
