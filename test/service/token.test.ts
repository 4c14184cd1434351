import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FORM } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ tokenTtlSeconds: 900 });
});
afterAll(() => server.close());

function postToken(body: string, headers: Record<string, string> = {}) {
  return server.http.request('POST', '/token', {
    headers: { authorization: basic(server.clientId, server.clientSecret), 'content-type': FORM, ...headers },
    body,
  });
}

describe('POST /token, successful grant (spec 4.1, RFC 6749 4.4 and 5.1)', () => {
  it('returns a bearer token with expiry and scope, not cacheable, and no refresh token', async () => {
    const res = await postToken('grant_type=client_credentials');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.json.token_type).toBe('Bearer');
    expect(typeof res.json.access_token).toBe('string');
    expect(res.json.expires_in).toBe(900);
    expect(res.json.scope.split(' ').sort()).toEqual(['provisioning', 'reporting']);
    expect(res.json).not.toHaveProperty('refresh_token');
  });

  it('issues a token that the API accepts', async () => {
    const token = (await postToken('grant_type=client_credentials')).json.access_token;
    const res = await server.http.get('/provisioning/v0/organization', { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(res.json.organization.id).toBe(1);
  });

  it('narrows the scope to a requested subset', async () => {
    const res = await postToken('grant_type=client_credentials&scope=reporting');
    expect(res.status).toBe(200);
    expect(res.json.scope).toBe('reporting');
  });

  it('accepts a charset parameter on the form content type', async () => {
    const res = await postToken('grant_type=client_credentials', { 'content-type': `${FORM}; charset=UTF-8` });
    expect(res.status).toBe(200);
  });

  it('form-decodes the Basic credentials before comparing them (RFC 6749 2.3.1)', async () => {
    // Percent-encoding unreserved characters changes the bytes but not the decoded value.
    const encodedId = server.clientId.replace('_', '%5F');
    const encodedSecret = [...server.clientSecret]
      .map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`)
      .join('');
    const res = await postToken('grant_type=client_credentials', { authorization: basic(encodedId, encodedSecret) });
    expect(res.status).toBe(200);
  });

  it('accepts a client_id in the body that matches the authenticated client', async () => {
    const res = await postToken(`grant_type=client_credentials&client_id=${server.clientId}`);
    expect(res.status).toBe(200);
  });
});

describe('POST /token, client authentication failures (invalid_client, 401)', () => {
  const cases: Array<[string, string | undefined]> = [
    ['a wrong secret', 'x'.repeat(43)],
    ['an unknown client id', undefined],
  ];
  it.each(cases)('refuses %s with WWW-Authenticate: Basic', async (_name, secret) => {
    const authorization =
      secret === undefined
        ? basic('adr_000000000000000000000000', server.clientSecret)
        : basic(server.clientId, secret);
    const res = await postToken('grant_type=client_credentials', { authorization });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses a request without client authentication', async () => {
    const res = await server.http.request('POST', '/token', {
      headers: { 'content-type': FORM },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('invalid_client');
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
  });

  it('refuses another authentication scheme', async () => {
    const res = await postToken('grant_type=client_credentials', { authorization: 'Bearer abc' });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('invalid_client');
  });
});

describe('POST /token, malformed requests (invalid_request, 400)', () => {
  const cases: Array<[string, string, Record<string, string>]> = [
    ['a JSON content type', '{"grant_type":"client_credentials"}', { 'content-type': 'application/json' }],
    ['no content type', 'grant_type=client_credentials', { 'content-type': '' }],
    ['a missing grant_type', 'scope=reporting', {}],
    ['a repeated grant_type', 'grant_type=client_credentials&grant_type=client_credentials', {}],
    ['a repeated scope', 'grant_type=client_credentials&scope=reporting&scope=reporting', {}],
    ['a Basic header that is not Base64', 'grant_type=client_credentials', { authorization: 'Basic !!!not-base64' }],
    [
      'Basic credentials without a colon',
      'grant_type=client_credentials',
      { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` },
    ],
    [
      'Basic credentials with broken percent-encoding',
      'grant_type=client_credentials',
      { authorization: `Basic ${Buffer.from('abc%zz:secret').toString('base64')}` },
    ],
    ['a client secret in the body', 'grant_type=client_credentials&client_secret=abc', {}],
    ['a body client_id of another client', 'grant_type=client_credentials&client_id=adr_other', {}],
  ];
  it.each(cases)('refuses %s', async (_name, body, headers) => {
    const res = await postToken(body, headers);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_request');
    expect(res.json.error_description).toEqual(expect.any(String));
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('POST /token, failures raised before the endpoint runs (RFC 6749 shape)', () => {
  it('answers a body over 1 MiB with 413 invalid_request, not the API envelope', async () => {
    const res = await postToken(`grant_type=client_credentials&pad=${'x'.repeat(1024 * 1024)}`);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('1 MiB') });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers a full database queue with 503 temporarily_unavailable and Retry-After', async () => {
    const busy = await startTestServer({ database: { readConnections: 1, maxQueued: 0 } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          busy.http.request('POST', '/token', {
            headers: { authorization: basic(busy.clientId, busy.clientSecret), 'content-type': FORM },
            body: 'grant_type=client_credentials',
          }),
        ),
      );
      const refused = answers.filter((res) => res.status === 503);
      expect(answers.every((res) => res.status === 200 || res.status === 503)).toBe(true);
      expect(refused.length).toBeGreaterThan(0);
      for (const res of refused) {
        expect(res.json).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
      }
    } finally {
      await busy.close();
    }
  });
});

describe('POST /token, grant type and scope', () => {
  it('refuses other grant types with unsupported_grant_type', async () => {
    const res = await postToken('grant_type=password&username=a&password=b');
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('unsupported_grant_type');
  });

  it.each([
    ['an unknown scope', 'admin'],
    ['an empty scope', ''],
    ['a double space', 'provisioning  reporting'],
  ])('refuses %s with invalid_scope', async (_name, scope) => {
    const res = await postToken(`grant_type=client_credentials&scope=${encodeURIComponent(scope)}`);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_scope');
  });

  it('refuses a scope the client was not given', async () => {
    const { insertClient, newClientCredentials } = await import('../../src/auth/clients.js');
    const credentials = await newClientCredentials();
    await server.service.db.write('all-organizations', (tx) =>
      insertClient(tx, credentials, { organizationId: 1, scopes: ['reporting'] }),
    );
    const res = await postToken('grant_type=client_credentials&scope=provisioning', {
      authorization: basic(credentials.clientId, credentials.clientSecret),
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_scope');
    const allowed = await postToken('grant_type=client_credentials', {
      authorization: basic(credentials.clientId, credentials.clientSecret),
    });
    expect(allowed.json.scope).toBe('reporting');
  });
});

describe('POST /token, secrets', () => {
  it('stores only a slow hash of the secret', async () => {
    const row = await server.service.db.read((r) =>
      r.one<{ secret_hash: string }>('SELECT secret_hash FROM api_clients WHERE client_id = $1', [server.clientId]),
    );
    expect(row!.secret_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$/);
    expect(row!.secret_hash).not.toContain(server.clientSecret);
  });

  it('generates secrets of at least 128 bits from [A-Za-z0-9-._~]', () => {
    expect(server.clientSecret).toMatch(/^[A-Za-z0-9\-._~]+$/);
    // base64url carries 6 bits a character.
    expect(server.clientSecret.length * 6).toBeGreaterThanOrEqual(128);
  });
});

describe('POST /token, repeated failures', () => {
  it('slows down failures for one client id while the real client still gets tokens at once', async () => {
    const wrong = () =>
      postToken('grant_type=client_credentials', { authorization: basic(server.clientId, 'wrong-secret') });
    for (let i = 0; i < 7; i++) expect((await wrong()).status).toBe(401);
    const started = performance.now();
    expect((await wrong()).status).toBe(401);
    const failedAfter = performance.now() - started;
    // The 8th failure waits at least 200 ms * 2^2 beyond its own scrypt check.
    expect(failedAfter).toBeGreaterThanOrEqual(800);

    const ok = await postToken('grant_type=client_credentials');
    expect(ok.status).toBe(200);
  });
});
