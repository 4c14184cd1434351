import https from 'node:https';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertClient, newClientCredentials } from '../../src/auth/clients.js';
import { OverloadedError } from '../../src/shared/errors.js';
import { basic, FORM } from '../helpers/http.js';
import { poll } from '../helpers/poll.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 36 item 9: a request its client's bucket refuses costs almost nothing. It is refused
 * before its body is read and without a database query (the token is checked in memory). How
 * little it costs other tenants is measured by bench/refusal-flood.ts, not here.
 */
const ACCOUNTS = '/provisioning/v0/accounts';
const ORG = '/provisioning/v0/organization';
/** Far more than the 1 MiB body limit: a body the server must not wait for. */
const ANNOUNCED_BYTES = 64 * 1024 * 1024;

let server: TestServer;
/** The clock stands still, so an emptied bucket stays empty (holds are real timers). */
const nowMs = Date.now();
/** The token of a client whose bucket is empty (and, the clock standing still, stays empty). */
let token: string;
beforeAll(async () => {
  server = await startTestServer(
    { rateLimit: { ratePerSecond: 1, burst: 1 }, database: { readConnections: 1, maxQueued: 0 } },
    { nowMs: () => nowMs },
  );
  token = await server.token('provisioning');
  // The one request of the bucket.
  expect((await server.http.get(ORG, { authorization: `Bearer ${token}` })).status).toBe(200);
});
afterAll(() => server.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
}

/**
 * POSTs with a Content-Length far past the body limit but writes only the first 1 KiB, then
 * waits for the whole answer: it comes only if the server answers without reading the body
 * (a server waiting for the rest would never answer, and the test would time out).
 */
function postWithUnsentBody(path: string, authorization: string): Promise<Answer> {
  const url = new URL(server.service.url);
  return new Promise((resolve, reject) => {
    const first = Buffer.alloc(1024, 0x20);
    const req = https.request(
      {
        method: 'POST',
        host: url.hostname,
        port: url.port,
        path,
        ca: server.service.tls!.cert,
        servername: 'localhost',
        agent: false,
        headers: { authorization, 'content-type': 'application/json', 'content-length': String(ANNOUNCED_BYTES) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            json: JSON.parse(text),
          });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.write(first);
  });
}

async function accountCount(): Promise<number> {
  const res = await server.http.get(ACCOUNTS, { authorization: `Bearer ${await freshToken()}` });
  expect(res.status).toBe(200);
  return Number(res.headers['x-totalcount']);
}

/** The token of a new client of the same organization: a full bucket of its own (one request). */
async function freshToken(): Promise<string> {
  const client = await newClientCredentials();
  // With no queue, a background write (a job claim, the report jobs' expiry sweep) makes it 503 for a moment: retry.
  await poll('the client is stored', () =>
    server.service.db
      .write('all-organizations', (tx) => insertClient(tx, client, { organizationId: 1, scopes: ['provisioning'] }))
      .then(
        () => true,
        (error: unknown) => {
          if (error instanceof OverloadedError) return undefined;
          throw error;
        },
      ),
  );
  const ask = () =>
    server.http.request('POST', '/token', {
      headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    });
  // With one read connection and no queue, a background read makes it 503 for a moment; clients retry.
  let res = await ask();
  for (let i = 0; i < 50 && res.status === 503; i++) res = await ask();
  expect(res.status).toBe(200);
  return res.json.access_token as string;
}

describe('a request refused by its client bucket', () => {
  it('is answered 429 with Retry-After and the RateLimit headers before its body is sent, and creates nothing', async () => {
    const before = await accountCount();
    const answer = await postWithUnsentBody(ACCOUNTS, `Bearer ${token}`);
    expect(answer.status).toBe(429);
    expect(answer.json.error.code).toBe('rate_limited');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(answer.headers['ratelimit-policy']).toBe('"per-client";q=1;w=1');
    expect(answer.headers.ratelimit).toBe(`"per-client";r=0;t=${answer.headers['retry-after']}`);
    // The body it did not read is not read afterwards either: the connection closes (unread-body.ts).
    expect(answer.headers.connection).toBe('close');
    expect(await accountCount()).toBe(before);
  });

  it('is a 429, not the 413 of a body over the limit: the bucket decides before the body limit', async () => {
    // The announced length alone exceeds 1 MiB; a client with tokens left gets the 413 for it.
    const allowed = await postWithUnsentBody(ACCOUNTS, `Bearer ${await freshToken()}`);
    expect(allowed.status).toBe(413);
    const refused = await postWithUnsentBody(ACCOUNTS, `Bearer ${token}`);
    expect(refused.status).toBe(429);
  });

  it('makes no database query: refused while the only read connection is held, where a request that runs gets 503', async () => {
    const otherToken = await freshToken();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Background reads (job runner, the demo's backfill, disabled-client refresh) may hold the one
    // connection for a while; with no queue our own hold is then refused at once, so it is tried again.
    const holding = await poll('the only read connection held', async () => {
      const attempt = server.service.db.read(() => gate);
      const refused = await Promise.race([
        attempt.then(
          () => false,
          () => true,
        ),
        new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
      ]);
      return refused ? undefined : { attempt };
    });
    try {
      // The control: a request that runs needs the database, which is busy.
      expect((await server.http.get(ORG, { authorization: `Bearer ${otherToken}` })).status).toBe(503);
      const refused = await server.http.get(ORG, { authorization: `Bearer ${token}` });
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe('rate_limited');
    } finally {
      release();
      await holding.attempt;
    }
  });
});
