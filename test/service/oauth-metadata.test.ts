import https from 'node:https';
import * as oauth from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PATH = '/.well-known/oauth-authorization-server';

let server: TestServer;
let behindProxy: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  behindProxy = await startTestServer({ trustProxy: true });
});
afterAll(async () => {
  await server.close();
  await behindProxy.close();
});

/**
 * A fetch for openid-client that trusts our self-signed certificate (openid-client's docs:
 * customFetch). "localhost" is dialled as 127.0.0.1, where the test server listens, while the
 * URL, the Host header and the TLS name stay localhost.
 */
function fetchTrusting(ca: string): oauth.CustomFetch {
  return (url, options) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const headers = Object.fromEntries(
        new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).entries(),
      );
      const body = options.body === undefined || options.body === null ? undefined : String(options.body);
      const req = https.request(
        {
          method: options.method,
          host: target.hostname === 'localhost' ? '127.0.0.1' : target.hostname,
          servername: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          headers: { ...headers, host: target.host },
          ca,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: responseHeaders }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  it('describes the token endpoint with the origin the request reached as issuer, without a token', async () => {
    const port = server.service.port;
    const res = await server.http.get(PATH, { host: `localhost:${port}` });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const origin = `https://localhost:${port}`;
    // RFC 8414 2: issuer, token_endpoint (the grant uses it) and response_types_supported are required.
    expect(res.json).toEqual({
      issuer: origin,
      token_endpoint: `${origin}/token`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
      scopes_supported: ['provisioning', 'reporting'],
      response_types_supported: ['none'],
      service_documentation: `${origin}/openapi.json`,
    });
  });

  it('lets openid-client discover the server and get a token by the client credentials grant that the API accepts', async () => {
    const issuer = new URL(`https://localhost:${server.service.port}`);
    const config = await oauth.discovery(
      issuer,
      server.clientId,
      undefined,
      oauth.ClientSecretBasic(server.clientSecret),
      {
        algorithm: 'oauth2',
        [oauth.customFetch]: fetchTrusting(server.service.tls!.cert),
      },
    );
    expect(config.serverMetadata().token_endpoint).toBe(`${issuer.origin}/token`);

    const granted = await oauth.clientCredentialsGrant(config, { scope: 'provisioning' });
    expect(granted.token_type.toLowerCase()).toBe('bearer');
    expect(granted.scope).toBe('provisioning');
    expect(granted.expiresIn()).toBeGreaterThan(0);
    const res = await server.http.get('/provisioning/v0/organization', {
      authorization: `Bearer ${granted.access_token}`,
    });
    expect(res.status).toBe(200);
    expect(res.json.organization.id).toBe(1);
  });

  it('behind a TLS-terminating proxy names the Host the proxy passed on, with https', async () => {
    const res = await behindProxy.http.get(PATH, { host: 'api.example.com', 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(200);
    expect(res.json.issuer).toBe('https://api.example.com');
    expect(res.json.token_endpoint).toBe('https://api.example.com/token');
    // Plain HTTP as the proxy reports it is refused like every other route (spec 5.7).
    expect((await behindProxy.http.get(PATH, { host: 'api.example.com', 'x-forwarded-proto': 'http' })).status).toBe(
      404,
    );
  });

  it.each(['evil.example/path', 'user@evil.example', 'a b'])(
    'never puts a Host that is not host[:port] (%j) into the issuer: 400',
    async (host) => {
      const res = await behindProxy.http.get(PATH, { host, 'x-forwarded-proto': 'https' });
      expect(res.status).toBe(400);
      expect(res.text).not.toContain('issuer');
    },
  );

  it('normalizes the Host as a URL client would (case)', async () => {
    const res = await behindProxy.http.get(PATH, { host: 'API.Example.COM:8443', 'x-forwarded-proto': 'https' });
    expect(res.json.issuer).toBe('https://api.example.com:8443');
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await server.http.get('/openapi.json')).json;
    expect(doc.paths[PATH].get.responses['200']).toBeDefined();
  });
});
