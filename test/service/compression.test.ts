import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeQuery, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/**
 * JSON responses over 1 KB are compressed as Accept-Encoding allows (RFC 9110 12.5.3); what the
 * client decompresses is byte for byte what a client without Accept-Encoding gets.
 */

let fx: ReportingFixture;
beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d' });
}, 300_000);
afterAll(async () => {
  await fx?.close();
});

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** As received. */
  raw: Buffer;
  /** Decoded as Content-Encoding says (here, with zlib: independent of the server's code). */
  body: Buffer;
}

function request(method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const url = new URL(fx.service.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        method,
        host: url.hostname,
        port: url.port,
        path,
        ca: fx.service.tls!.cert,
        servername: 'localhost',
        agent: false,
        headers: { authorization: `Bearer ${fx.orgs[0]!.token}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const coding = res.headers['content-encoding'];
          const body =
            coding === 'gzip' ? zlib.gunzipSync(raw) : coding === 'br' ? zlib.brotliDecompressSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const vary = (headers: IncomingHttpHeaders) =>
  String(headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase());

/** Three JSON bodies of different origins: a c.json document, a small JSON page, a big streamed page. */
const TARGETS = {
  'the OpenAPI document (~75 KB, built in JS)': '/openapi.json',
  'a 100-row campaign page': `/reporting/v0/campaigns?${encodeQuery({ limit: 100 })}`,
  'a 2,000-row keyword page (streamed in parts)': `/reporting/v0/keywords?${encodeQuery({ segments: 'Day', limit: 2_000 })}`,
};

describe('JSON responses are compressed when the client asks', () => {
  for (const [name, path] of Object.entries(TARGETS)) {
    it(`${name}: gzip and br decode to the identity bytes; Vary; Content-Length only for the whole body`, async () => {
      const plain = await request('GET', path);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(vary(plain.headers)).toContain('accept-encoding');
      expect(plain.body.length).toBeGreaterThan(1024);
      for (const coding of ['gzip', 'br'] as const) {
        const res = await request('GET', path, { 'accept-encoding': coding });
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBe(coding);
        expect(vary(res.headers)).toContain('accept-encoding');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body.equals(plain.body), `${coding} decodes to the identity body`).toBe(true);
        expect(res.raw.length, 'smaller than the identity body').toBeLessThan(plain.body.length / 3);
        if (res.headers['content-length'] !== undefined)
          expect(Number(res.headers['content-length'])).toBe(res.raw.length);
        else expect(res.headers['transfer-encoding']).toBe('chunked');
      }
    });
  }

  it('a big page is compressed as it streams: no Content-Length, chunked', async () => {
    const res = await request('GET', TARGETS['a 2,000-row keyword page (streamed in parts)'], {
      'accept-encoding': 'gzip',
    });
    expect(res.body.length).toBeGreaterThan(64 * 1024);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
  });
});

describe('negotiation (RFC 9110 12.5.3)', () => {
  const CASES: Array<[string, string | undefined]> = [
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['x-gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['gzip;q=0.5, br;q=0.9', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.4', 'br'],
    ['*', 'gzip'],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, gzip;q=0', undefined],
    ['deflate, compress', undefined],
    ['identity', undefined],
    ['', undefined],
    ['gzip;q=2', undefined],
    ['gzip;q=abc', undefined],
    ['identity;q=1, gzip;q=0.5', undefined],
    ['*;q=0', undefined],
  ];
  it.each(CASES)('Accept-Encoding: "%s" -> %s', async (header, expected) => {
    const res = await request('GET', '/openapi.json', { 'accept-encoding': header });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(expected);
    JSON.parse(res.body.toString('utf8'));
  });

  it('"gzip, deflate, br" (browsers, curl --compressed, Python requests) gets gzip: equal weights go to the cheaper coding', async () => {
    const res = await request('GET', '/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.headers['content-encoding']).toBe('gzip');
  });
});

describe('what stays uncompressed', () => {
  it('bodies of 1 KB or less, unless the client refuses identity', async () => {
    const small = await request('GET', '/health', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body.toString()).toBe('{"status":"ok"}');
    expect(vary(small.headers)).toContain('accept-encoding');
    const refused = await request('GET', '/health', { 'accept-encoding': 'gzip, identity;q=0' });
    expect(refused.headers['content-encoding']).toBe('gzip');
    expect(refused.body.toString()).toBe('{"status":"ok"}');
    // Nothing acceptable at all: the body goes out without a coding rather than not at all.
    const nothing = await request('GET', '/health', { 'accept-encoding': '*;q=0' });
    expect(nothing.status).toBe(200);
    expect(nothing.headers['content-encoding']).toBeUndefined();
  });

  it('HEAD answers carry no Content-Encoding', async () => {
    const res = await request('HEAD', '/openapi.json', { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.raw.length).toBe(0);
  });

  it('error bodies follow the same rule: a small 404 stays plain, a 422 listing many rules is compressed', async () => {
    const small = await request('GET', '/nope', { 'accept-encoding': 'gzip' });
    expect(small.status).toBe(404);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString()).error.code).toBe('not_found');

    const url = new URL(fx.service.url);
    const tooLong = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field${i + 1}`, 'x'.repeat(1_001)]));
    const big = await new Promise<Raw>((resolve, reject) => {
      const req = https.request(
        {
          method: 'POST',
          host: url.hostname,
          port: url.port,
          path: '/provisioning/v0/accounts',
          ca: fx.service.tls!.cert,
          servername: 'localhost',
          agent: false,
          headers: {
            authorization: `Bearer ${fx.orgs[0]!.token}`,
            'content-type': 'application/json',
            'accept-encoding': 'br',
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              raw,
              body: res.headers['content-encoding'] === 'br' ? zlib.brotliDecompressSync(raw) : raw,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ account: tooLong }));
    });
    expect(big.status).toBe(422);
    expect(big.headers['content-encoding']).toBe('br');
    expect(big.body.length).toBeGreaterThan(1024);
    expect(JSON.parse(big.body.toString()).error.details.length).toBeGreaterThanOrEqual(20);
  });

  it('exports keep their own coding: CSV and NDJSON gzip only, never br; Parquet never', async () => {
    const base = `/reporting/v0/campaigns?${encodeQuery({ segments: 'Week' })}`;
    const csvBr = await request('GET', `${base}&format=csv`, { 'accept-encoding': 'br' });
    expect(csvBr.status).toBe(200);
    expect(csvBr.headers['content-encoding']).toBeUndefined();
    const ndjson = await request('GET', `${base}&format=ndjson`, { 'accept-encoding': 'br, gzip;q=0.1' });
    expect(ndjson.headers['content-encoding']).toBe('gzip');
    expect(ndjson.body.toString().split('\n').filter(Boolean).length).toBeGreaterThan(10);
    const parquet = await request('GET', `${base}&format=parquet`, { 'accept-encoding': 'gzip, br' });
    expect(parquet.headers['content-encoding']).toBeUndefined();
    expect(parquet.raw.subarray(0, 4).toString('latin1')).toBe('PAR1');
  });

  it('a client that hangs up during a compressed page leaves the service serving, with nothing logged', async () => {
    const errorsBefore = fx.errors.length;
    const url = new URL(fx.service.url);
    await new Promise<void>((resolve, reject) => {
      const req = https.get(
        {
          host: url.hostname,
          port: url.port,
          path: TARGETS['a 2,000-row keyword page (streamed in parts)'],
          ca: fx.service.tls!.cert,
          servername: 'localhost',
          agent: false,
          headers: { authorization: `Bearer ${fx.orgs[0]!.token}`, 'accept-encoding': 'br' },
        },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', () => undefined);
      req.on('close', () => resolve());
      setTimeout(() => reject(new Error('no response')), 10_000);
    });
    const after = await request('GET', TARGETS['a 100-row campaign page'], { 'accept-encoding': 'br' });
    expect(after.status).toBe(200);
    expect(fx.errors.slice(errorsBefore)).toEqual([]);
  });
});
