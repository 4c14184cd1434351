import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawTls } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let auth: Record<string, string>;
let ca: string;
beforeAll(async () => {
  server = await startTestServer();
  auth = { authorization: `Bearer ${await server.token()}` };
  ca = server.service.tls!.cert;
});
afterAll(() => server.close());

const ORG = '/provisioning/v0/organization';
// The limits README documents, written out here rather than imported from the code under test.
const MAX_TARGET_BYTES = 12_288;
const IMPLEMENTED = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

function expectEnvelope(res: { json: any; headers: Record<string, unknown> }, status: number, code: string) {
  expect(res.json).toEqual({
    error: { status, code, message: expect.any(String), details: [], requestId: res.headers['x-request-id'] },
  });
}

function raw(text: string, untilClose = false) {
  return rawTls(server.service.port, ca, { text, waitMs: 5_000, untilClose });
}

describe('methods the service does not implement (RFC 9110 15.6.2)', () => {
  it.each(['PROPFIND', 'PURGE', 'TRACE', 'LINK', 'MKCOL'])(
    'answers %s 501 not_implemented on known and unknown paths',
    async (method) => {
      for (const path of ['/health', ORG, '/no/such/route']) {
        const res = await server.http.request(method, path, { headers: { ...auth, 'x-request-id': 'm-1' } });
        expect(res.status, `${method} ${path}`).toBe(501);
        expectEnvelope(res, 501, 'not_implemented');
        expect(res.json.error.requestId).toBe('m-1');
        expect(res.json.error.message).toContain(IMPLEMENTED);
      }
    },
  );

  it('answers a method token the HTTP parser does not know 501 in the envelope', async () => {
    const res = await raw('FROBNICATE /health HTTP/1.1\r\nHost: localhost\r\n\r\n', true);
    expect(res.status).toBe(501);
    expectEnvelope(res, 501, 'not_implemented');
    expect(res.headers.connection).toBe('close');
    expect(res.ended).toBe('closed');
  });

  it('answers CONNECT 501 instead of dropping the connection', async () => {
    const res = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(res.status).toBe(501);
    expectEnvelope(res, 501, 'not_implemented');
  });

  it('still answers a known method on a known path that does not serve it 405 with Allow', async () => {
    const res = await server.http.request('OPTIONS', ORG, { headers: auth });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PATCH');
  });

  it('answers a request line that is not HTTP at all 400, not 501', async () => {
    const res = await raw('\x01\x02\x03 garbage\r\n\r\n');
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, 'bad_request');
  });
});

describe('request target forms (RFC 9112 3.2)', () => {
  it('answers OPTIONS * with 204 and the methods the service implements', async () => {
    const res = await raw('OPTIONS * HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe(IMPLEMENTED);
  });

  it('answers a target that is neither a path nor an absolute URL 400 in the envelope', async () => {
    for (const target of ['*', 'health', 'localhost:443']) {
      const res = await raw(`GET ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      expect(res.status, target).toBe(400);
      expectEnvelope(res, 400, 'bad_request');
      expect(res.json.error.message).toContain('neither a path nor an absolute URL');
    }
  });
});

describe('request target length (RFC 9110 15.5.15)', () => {
  const target = (length: number) => {
    const prefix = '/provisioning/v0/accounts?x=';
    return prefix + 'a'.repeat(length - prefix.length);
  };

  it('answers a target over 12 KiB 414 uri_too_long before authentication and routing', async () => {
    const res = await server.http.request('GET', target(MAX_TARGET_BYTES + 1), {
      headers: { 'x-request-id': 'long-1' },
    });
    expect(res.status).toBe(414);
    expectEnvelope(res, 414, 'uri_too_long');
    expect(res.json.error.message).toContain('12288');
    // The same length minus one byte is read as usual: no token, so 401.
    expect((await server.http.request('GET', target(MAX_TARGET_BYTES))).status).toBe(401);
  });

  it('answers a target past the parser limit (16 KiB head) 414 as well', async () => {
    for (const length of [20_000, 30_000]) {
      const res = await server.http.request('GET', target(length), { headers: auth });
      expect(res.status, String(length)).toBe(414);
      expectEnvelope(res, 414, 'uri_too_long');
    }
  });

  it('answers a request line whose start and end the parser never sees together 431 naming both limits', async () => {
    // Node reads TLS records of 16 KiB: a 60 KB line overflows inside a record that holds neither its start nor its end.
    const res = await server.http.request('GET', target(60_000), { headers: auth });
    expect(res.status).toBe(431);
    expectEnvelope(res, 431, 'request_header_fields_too_large');
    expect(res.json.error.message).toContain('12288');
  });

  it('answers a DELETE with too long a target 414 with the status alone (spec 7)', async () => {
    const res = await server.http.request('DELETE', target(MAX_TARGET_BYTES + 100), { headers: auth });
    expect(res.status).toBe(414);
    expect(res.text).toBe('');
  });

  it('serves the longest legitimate report URL: 20 formulas and a 2,000-character filter', async () => {
    const formulas = Array.from(
      { length: 20 },
      (_, i) =>
        `f${String(i).padStart(2, '0')}:round(statistics.cost / max(statistics.conversions, 1) * 100) / 100:Money`,
    );
    let filter = "statistics.cost >= 0 and name in ['Campaign 000'";
    for (let i = 1; filter.length + 17 <= 2_000; i++) filter += `, 'Campaign ${String(i).padStart(3, '0')}'`;
    filter = `${filter}]`.padEnd(2_000, ' ');
    expect(filter.length).toBe(2_000);
    const query = [
      'startDate=2026-01-01',
      'endDate=2026-03-31',
      `statistics=${encodeURIComponent('impressions,clicks,cost,conversions,conversionValue,ctr,averageCpc,conversionRate,costPerConversion,costWithMarkup,calls,callConversions,totalConversions,averageCpm,valuePerConversion,roas')}`,
      `segments=${encodeURIComponent('Day,DeviceType')}`,
      ...formulas.map((f) => `formulas=${encodeURIComponent(f)}`),
      `filter=${encodeURIComponent(filter)}`,
      `sort=${encodeURIComponent('-formulas.f00,-statistics.cost')}`,
      'embed=labels',
      'totals=true',
      'limit=10000',
      'offset=0',
    ].join('&');
    const path = `/reporting/v0/campaigns?${query}`;
    // Percent-encoded the way encodeURIComponent does it, the longest a common client makes it.
    expect(path.length).toBeGreaterThan(5_000);
    expect(path.length).toBeLessThanOrEqual(MAX_TARGET_BYTES);
    const res = await server.http.request('GET', path, { headers: auth });
    expect(res.status, res.text).toBe(200);
  });
});

describe('header size (RFC 6585 5)', () => {
  it('answers headers past the 16 KiB parser limit 431 in the envelope', async () => {
    const res = await raw(`GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, true);
    expect(res.status).toBe(431);
    expectEnvelope(res, 431, 'request_header_fields_too_large');
    expect(res.headers.connection).toBe('close');
  });
});

describe('Host (RFC 9112 3.2)', () => {
  it('answers two Host headers 400 bad_request saying so', async () => {
    const res = await raw(
      'GET /health HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nX-Request-Id: host-2\r\n\r\n',
    );
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, 'bad_request');
    expect(res.json.error.requestId).toBe('host-2');
    expect(res.json.error.message).toMatch(/2 Host headers/);
    // A request that two parties could read differently ends its connection.
    expect(res.headers.connection).toBe('close');
  });

  it('answers an HTTP/1.1 request without Host 400 in the envelope', async () => {
    const res = await raw('GET /health HTTP/1.1\r\n\r\n');
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, 'bad_request');
    expect(res.json.error.message).toMatch(/no Host header/);
  });

  it('answers a Host that differs from an absolute-form target 400, and serves one that matches', async () => {
    const port = server.service.port;
    const differing = await raw(`GET https://evil.example/health HTTP/1.1\r\nHost: localhost:${port}\r\n\r\n`);
    expect(differing.status).toBe(400);
    expectEnvelope(differing, 400, 'bad_request');
    expect(differing.json.error.message).toMatch(/evil\.example/);
    const matching = await raw(
      `GET https://localhost:${port}/health HTTP/1.1\r\nHost: LOCALHOST:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(matching.status).toBe(200);
  });

  it('answers an HTTP/1.0 request without Host 400 in the envelope too', async () => {
    const res = await raw('GET /health HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, 'bad_request');
    expect(res.json.error.message).toMatch(/no Host header/);
  });

  it('answers a Host that is not host[:port] 400', async () => {
    const res = await raw('GET /health HTTP/1.1\r\nHost: a b/c\r\n\r\n');
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, 'bad_request');
  });
});

describe('Accept-Patch on 415 (RFC 5789 2.2)', () => {
  it('names the accepted patch formats when a PATCH is sent as JSON Patch or as anything else', async () => {
    for (const type of ['application/json-patch+json', 'text/plain']) {
      const res = await server.http.request('PATCH', ORG, { headers: { ...auth, 'content-type': type }, body: '[]' });
      expect(res.status, type).toBe(415);
      expectEnvelope(res, 415, 'unsupported_media_type');
      expect(res.headers['accept-patch']).toBe('application/json, application/merge-patch+json');
    }
  });

  it('does not add Accept-Patch to a 415 of a POST', async () => {
    const res = await server.http.request('POST', '/provisioning/v0/accounts', {
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(res.status).toBe(415);
    expect(res.headers['accept-patch']).toBeUndefined();
  });
});

describe('early errors to requests whose body is unread', () => {
  // A pooled client sends the next request on the same connection unless told to close it.
  function pooled() {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca });
    const request = (method: string, path: string, headers: Record<string, string>, body?: Buffer) =>
      new Promise<{ status: number; connection: string | undefined; json: any }>((resolve, reject) => {
        const req = https.request(
          { host: '127.0.0.1', port: server.service.port, method, path, headers, agent, servername: 'localhost' },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({
                status: res.statusCode ?? 0,
                connection: res.headers.connection,
                json: text ? JSON.parse(text) : undefined,
              });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    return { agent, request };
  }

  const large = Buffer.alloc(4 * 1024 * 1024, 'x');
  const half = Buffer.alloc(512 * 1024, 'x');
  const json = { 'content-type': 'application/json' };
  const cases: Array<[string, number, string, string, Record<string, string>, Buffer]> = [
    ['413 body over 1 MiB', 413, 'PATCH', ORG, json, large],
    ['405 method of another route', 405, 'PUT', ORG, json, half],
    ['415 not JSON', 415, 'PATCH', ORG, { 'content-type': 'text/plain' }, half],
    ['400 unencoded query', 400, 'POST', '/provisioning/v0/accounts?x=a%zz', json, half],
    ['401 no token', 401, 'POST', '/provisioning/v0/accounts', json, half],
  ];

  it.each(cases)(
    "%s: says Connection: close, and the pooled client's next request succeeds",
    async (_name, status, method, path, headers, body) => {
      const client = pooled();
      const credentials = status === 401 ? {} : auth;
      try {
        for (let round = 0; round < 5; round++) {
          const first = await client.request(
            method,
            path,
            { ...credentials, ...headers, 'content-length': String(body.length) },
            body,
          );
          expect(first.status).toBe(status);
          expect(first.connection).toBe('close');
          const second = await client.request('GET', ORG, auth);
          expect(second.status).toBe(200);
          expect(second.json.organization.id).toBeGreaterThan(0);
        }
      } finally {
        client.agent.destroy();
      }
    },
  );

  it('keeps the connection of a request whose body was read', async () => {
    const client = pooled();
    try {
      const body = Buffer.from(JSON.stringify({ organization: { name: 'x'.repeat(201) } }));
      const first = await client.request(
        'PATCH',
        ORG,
        { ...auth, 'content-type': 'application/json', 'content-length': String(body.length) },
        body,
      );
      expect(first.status).toBe(422);
      expect(first.connection).toBe('keep-alive');
    } finally {
      client.agent.destroy();
    }
  });
});
