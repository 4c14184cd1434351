import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawTls } from '../helpers/raw-http.js';
import { basic, FORM } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Shortened through the config; production defaults are 20 s and 60 s. Node looks for expired
// requests once a second, so a cut comes up to a second after its deadline.
const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_500;
const CHECK_INTERVAL_MS = 1_000;
const SLACK_MS = 1_500;

let server: TestServer;
let ca: string;
beforeAll(async () => {
  server = await startTestServer({
    http: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
  });
  ca = server.service.tls!.cert;
});
afterAll(() => server.close());

function expectTimeoutEnvelope(res: { status: number; json: any; headers: Record<string, string> }) {
  expect(res.status).toBe(408);
  expect(res.json).toEqual({
    error: {
      status: 408,
      code: 'request_timeout',
      message: expect.any(String),
      details: [],
      requestId: res.headers['x-request-id'],
    },
  });
  expect(res.headers.connection).toBe('close');
}

describe('slow clients (408)', () => {
  it('cuts a request head still arriving after headersTimeout with 408 request_timeout', async () => {
    const res = await rawTls(server.service.port, ca, {
      text: 'GET /health HTTP/1.1\r\nHost: localhost\r\n',
      // One header line every 200 ms: never idle, never finished.
      drip: { chunks: Array.from({ length: 100 }, (_, i) => `X-Slow-${i}: y\r\n`), intervalMs: 200 },
      waitMs: 10_000,
      untilClose: true,
    });
    expectTimeoutEnvelope(res);
    expect(res.ended).toBe('closed');
    expect(res.elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(res.elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS);
  });

  it('cuts a request body still arriving after requestTimeout with 408 request_timeout', async () => {
    const body = 'grant_type=client_credentials';
    const res = await rawTls(server.service.port, ca, {
      text: `POST /token HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basic(server.clientId, server.clientSecret)}\r\nContent-Type: ${FORM}\r\nContent-Length: ${body.length}\r\n\r\n`,
      drip: { chunks: body.split(''), intervalMs: 200 },
      waitMs: 10_000,
      untilClose: true,
    });
    expectTimeoutEnvelope(res);
    expect(res.ended).toBe('closed');
    expect(res.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(res.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS);
    // The cut request reached the handler, which must not log it as a server failure.
    expect(server.errors).toEqual([]);
  });

  it('serves a body that arrives slowly but within the limits', async () => {
    const body = 'grant_type=client_credentials';
    const res = await rawTls(server.service.port, ca, {
      text: `POST /token HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basic(server.clientId, server.clientSecret)}\r\nContent-Type: ${FORM}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      drip: { chunks: [body.slice(0, 10), body.slice(10)], intervalMs: 300 },
      waitMs: 10_000,
    });
    expect(res.status).toBe(200);
    expect(res.json.access_token).toEqual(expect.any(String));
  });

  it('closes a connection that sends nothing after TLS once headersTimeout has passed', async () => {
    const res = await rawTls(server.service.port, ca, { waitMs: 10_000, untilClose: true });
    expect(res.ended).toBe('closed');
    expect(res.elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS);
  });
});
