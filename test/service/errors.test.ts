import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let auth: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer();
  auth = { authorization: `Bearer ${await server.token()}` };
});
afterAll(() => server.close());

const ORG = '/provisioning/v0/organization';

function expectEnvelope(res: { json: any; headers: Record<string, unknown> }, status: number, code: string) {
  expect(res.json).toEqual({
    error: {
      status,
      code,
      message: expect.any(String),
      details: expect.any(Array),
      requestId: res.headers['x-request-id'],
    },
  });
}

function patch(body: string, headers: Record<string, string> = {}) {
  return server.http.request('PATCH', ORG, {
    headers: { ...auth, 'content-type': 'application/json', ...headers },
    body,
  });
}

async function organizationName(): Promise<string> {
  return (await server.http.get(ORG, auth)).json.organization.name;
}

describe('error envelope and request ids (supplement 1)', () => {
  it('puts X-Request-Id on every response and echoes a given one', async () => {
    const fresh = await server.http.get('/health');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await server.http.get('/nope', { 'x-request-id': 'trace-123' });
    expect(echoed.headers['x-request-id']).toBe('trace-123');
    expect(echoed.json.error.requestId).toBe('trace-123');
  });

  it('answers an unknown route 404 with the JSON error body', async () => {
    const res = await server.http.get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectEnvelope(res, 404, 'not_found');
  });

  it('answers a known path with another method 405 with Allow', async () => {
    const res = await server.http.request('PUT', ORG, {
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PATCH');
    expectEnvelope(res, 405, 'method_not_allowed');
  });

  it('answers DELETE errors with the status alone and an empty body (spec 7)', async () => {
    const res = await server.http.request('DELETE', ORG, { headers: auth });
    expect(res.status).toBe(405);
    expect(res.text).toBe('');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    const unknown = await server.http.request('DELETE', '/no/such/route');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('');
  });
});

describe('bad bodies: clear 4xx, never 500, and nothing changes', () => {
  it('refuses malformed JSON with 400 malformed_json', async () => {
    const before = await organizationName();
    const res = await patch('{"organization": {"name": ');
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, 'malformed_json');
    expect(await organizationName()).toBe(before);
  });

  it('refuses a body that is not the wrapper object with 400', async () => {
    for (const body of ['[]', '"text"', '{"name":"x"}', '{"organization":"x"}']) {
      const res = await patch(body);
      expect(res.status, body).toBe(400);
      expect(res.json.error.code).toBe('invalid_body');
    }
  });

  it('refuses a non-JSON content type with 415', async () => {
    const res = await patch('{"organization":{"name":"x"}}', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expectEnvelope(res, 415, 'unsupported_media_type');
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ organization: { name: 'x'.repeat(1024 * 1024) } });
    const res = await patch(big);
    expect(res.status).toBe(413);
    expectEnvelope(res, 413, 'payload_too_large');
  });

  it('does not read the body of a GET: one over 1 MiB is answered as without it', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const res = await server.http.request('GET', '/provisioning/v0/organization', {
      headers: { ...auth, 'content-type': 'text/plain', 'content-length': String(big.length) },
      body: big,
    });
    expect(res.status).toBe(200);
    expect(res.json.organization.id).toBeGreaterThan(0);
  });

  it('refuses a broken rule with 422 naming the field, and stores nothing', async () => {
    const before = await organizationName();
    const res = await patch(JSON.stringify({ organization: { name: 'x'.repeat(201) } }));
    expect(res.status).toBe(422);
    expectEnvelope(res, 422, 'validation_failed');
    expect(res.json.error.details).toEqual([
      { field: 'organization.name', code: 'too_long', message: expect.any(String) },
    ]);
    expect(await organizationName()).toBe(before);
  });

  it('refuses unknown fields with 422 unknown_field instead of ignoring them', async () => {
    const res = await patch(JSON.stringify({ organization: { name: 'ok', id: 99 } }));
    expect(res.status).toBe(422);
    expect(res.json.error.details).toEqual([
      { field: 'organization.id', code: 'unknown_field', message: expect.any(String) },
    ]);
  });

  it('accepts application/merge-patch+json on PATCH', async () => {
    const res = await patch(JSON.stringify({ organization: { name: 'Merged' } }), {
      'content-type': 'application/merge-patch+json',
    });
    expect(res.status).toBe(200);
    expect(res.json.organization.name).toBe('Merged');
  });
});

describe('unencoded characters in the query string (spec 4.4)', () => {
  // Each is outside RFC 3986's query set; the raw byte goes on the wire.
  const raw = ['"', '<', '>', '[', ']', '{', '}', '|', '\\', '^', '`', '%zz', '\u00e9'];
  it.each(raw)('answers 400 unencoded_characters for a raw %s', async (ch) => {
    const res = await server.http.request('GET', `/health?filter=a${ch}b`, { headers: auth });
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, 'unencoded_characters');
  });

  it('answers 400 unencoded_characters for a raw space, which splits the request line', async () => {
    const net = await import('node:tls');
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(
        { host: '127.0.0.1', port: server.service.port, ca: server.service.tls!.cert, servername: 'localhost' },
        () => {
          socket.write('GET /health?filter=a b HTTP/1.1\r\nHost: localhost\r\n\r\n');
        },
      );
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(text).toContain('"code":"unencoded_characters"');
  });

  it('accepts the same values percent-encoded', async () => {
    // A label filter's value may hold any of them (GET /health takes no parameter at all).
    const value = encodeURIComponent('tier:a "[]{}|\\^` b é');
    const res = await server.http.get(`/provisioning/v0/accounts?labels=${value}`, auth);
    expect(res.status, res.text).toBe(200);
  });
});

describe('unexpected failures', () => {
  it('answer 500 with a body that carries no stack, SQL or path', async () => {
    await server.service.db.write('all-organizations', (tx) =>
      tx.run('ALTER TABLE organizations RENAME TO organizations_moved'),
    );
    try {
      const res = await server.http.get(ORG, auth);
      expect(res.status).toBe(500);
      expectEnvelope(res, 500, 'internal_error');
      expect(res.text).not.toMatch(/SELECT|organizations|Catalog|\/tmp|\.ts|at /);
      expect(server.errors.length).toBeGreaterThan(0);
    } finally {
      await server.service.db.write('all-organizations', (tx) =>
        tx.run('ALTER TABLE organizations_moved RENAME TO organizations'),
      );
    }
  });
});
