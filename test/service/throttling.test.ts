import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertClient, newClientCredentials } from '../../src/auth/clients.js';
import { basic, FORM } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ORG = '/provisioning/v0/organization';

describe('per-client rate limit (token bucket)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimit: { ratePerSecond: 1, burst: 3, tokenRatePerSecond: 1, tokenBurst: 2 } });
  });
  afterAll(() => server.close());

  it('serves the burst with RateLimit headers, then answers 429 with Retry-After', async () => {
    const auth = { authorization: `Bearer ${await server.token()}` };
    const first = await server.http.get(ORG, auth);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"per-client";q=3;w=3');
    expect(first.headers.ratelimit).toMatch(/^"per-client";r=2;t=\d+$/);
    // The bucket refills one request a second, so on a slow machine the 429 may come a little later.
    let limited = await server.http.get(ORG, auth);
    for (let i = 0; i < 20 && limited.status === 200; i++) limited = await server.http.get(ORG, auth);
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers.ratelimit).toMatch(/^"per-client";r=0;t=\d+$/);
  });

  it('keeps each client in its own bucket', async () => {
    const credentials = await newClientCredentials();
    await server.service.db.write('all-organizations', (tx) =>
      insertClient(tx, credentials, { organizationId: 1, scopes: ['provisioning'] }),
    );
    const token = await server.http.request('POST', '/token', {
      headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    });
    const res = await server.http.get(ORG, { authorization: `Bearer ${token.json.access_token}` });
    expect(res.status).toBe(200);
  });

  it('limits token requests per authenticated client with 429 rate_limited, Retry-After and RateLimit headers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20 && !statuses.includes(429); i++) {
      const res = await server.http.request('POST', '/token', {
        headers: { authorization: basic(server.clientId, server.clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      });
      statuses.push(res.status);
      // The token bucket of this server: burst 2, one a second (w: 2 s to refill).
      expect(res.headers['ratelimit-policy']).toBe('"per-client";q=2;w=2');
      if (res.status === 200) expect(res.headers.ratelimit).toMatch(/^"per-client";r=[01];t=\d+$/);
      if (res.status === 429) {
        // Not RFC 8628's slow_down (a device's polling interval): RFC 6749 has no rate-limit code.
        expect(res.json.error).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(res.headers.ratelimit).toBe(`"per-client";r=0;t=${res.headers['retry-after']}`);
      }
    }
    expect(statuses).toContain(429);
  });
});

describe('overload: queued database work beyond the bound', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ database: { readConnections: 1, maxQueued: 0 } });
  });
  afterAll(() => server.close());

  it('answers 503 with Retry-After while the read pool and its queue are full, and recovers', async () => {
    const auth = { authorization: `Bearer ${await server.token()}` };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Background reads (job runner, disabled-client refresh) may hold the one connection for a
    // moment; with no queue our own hold is then refused at once, so it is simply tried again.
    let holding: Promise<void> | undefined;
    for (let i = 0; i < 200 && !holding; i++) {
      const attempt = server.service.db.read(() => gate);
      const refused = await Promise.race([
        attempt.then(
          () => false,
          () => true,
        ),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20)),
      ]);
      if (refused) await new Promise((resolve) => setTimeout(resolve, 10));
      else holding = attempt;
    }
    expect(holding).toBeDefined();
    try {
      const res = await server.http.get(ORG, auth);
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe('overloaded');
      expect(res.headers['retry-after']).toBe('1');

      // Token verification needs no query: an authenticated request that reaches no store answers at once.
      const noStore = await server.http.get('/provisioning/v0/no-such-route', auth);
      expect(noStore.status).toBe(404);
    } finally {
      release();
      await holding;
    }
    // Recovered: served again. With no queue a background read landing at the same instant still wins a 503, so a few tries.
    let after = await server.http.get(ORG, auth);
    for (let i = 0; i < 20 && after.status === 503; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await server.http.get(ORG, auth);
    }
    expect(after.status).toBe(200);
  });
});
