import { Agent } from 'undici';
import { createAdreportClient, type AdreportClient, type AdreportClientOptions } from '../../src/client/index.js';
import type { TestServer } from './server.js';

export interface TestClient {
  client: AdreportClient;
  /** Every request the client sent, in order: method, path and query, the bearer or basic it carried. */
  sent: Array<{ method: string; url: URL; authorization: string | null }>;
  close(): Promise<void>;
}

/**
 * The typed client against a test server: Node's own fetch, with a dispatcher that trusts the
 * server's self-signed certificate (what NODE_EXTRA_CA_CERTS does for a user's process).
 * `transform` may rewrite a request before it is sent (a test's stand-in for a token the
 * service refuses).
 */
export function testClient(
  server: TestServer,
  options: Partial<AdreportClientOptions> = {},
  transform: (request: Request) => Request = (request) => request,
): TestClient {
  const dispatcher = new Agent({ connect: { ca: server.service.tls?.cert, servername: 'localhost' } });
  const sent: TestClient['sent'] = [];
  const client = createAdreportClient({
    baseUrl: server.service.url,
    clientId: server.clientId,
    clientSecret: server.clientSecret,
    fetch: (request) => {
      const outgoing = transform(request);
      sent.push({
        method: outgoing.method,
        url: new URL(outgoing.url),
        authorization: outgoing.headers.get('authorization'),
      });
      return fetch(outgoing, { dispatcher } as RequestInit);
    },
    ...options,
  });
  return { client, sent, close: () => dispatcher.close() };
}
