import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCount, createAccount, VALID_ACCOUNT } from '../helpers/accounts.js';
import { basic, FORM } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 36 item 3: a request body may be gzip, deflate or br coded (RFC 9110 8.4); the 1 MiB
 * limit holds for the decoded body (a decompression bomb is a 413 and creates nothing); a body
 * that is not what its coding says is a 400 naming Content-Encoding; a coding the service
 * cannot decode is a 415 with Accept-Encoding (RFC 9110 15.5.16).
 */

let server: TestServer;
let token: string;
const ACCOUNTS = '/provisioning/v0/accounts';
const MiB = 1024 * 1024;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token();
});
afterAll(async () => {
  await server?.close();
});

function send(method: string, path: string, body: Buffer, coding: string, contentType = 'application/json') {
  return server.http.request(method, path, {
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-encoding': coding },
    body,
  });
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const CODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  'x-gzip': (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  'GZIP ': (b) => zlib.gzipSync(b),
  identity: (b) => b,
  'gzip, br': (b) => zlib.brotliCompressSync(zlib.gzipSync(b)),
  'identity, deflate': (b) => zlib.deflateSync(b),
};

describe('coded bodies are decoded', () => {
  it.each(Object.keys(CODERS))('POST with Content-Encoding: %s creates the account', async (coding) => {
    const name = `Coded ${coding.trim()}`;
    const res = await send('POST', ACCOUNTS, CODERS[coding]!(json({ account: { ...VALID_ACCOUNT, name } })), coding);
    expect(res.status, res.text).toBe(201);
    expect(res.json.account.name).toBe(name);
    const stored = await server.http.get(res.headers.location!, { authorization: `Bearer ${token}` });
    expect(stored.json.account.name).toBe(name);
  });

  it('a gzip and a br merge patch change the account', async () => {
    const account = await createAccount(server, token);
    for (const [coding, name] of [
      ['gzip', 'Patched by gzip'],
      ['br', 'Patched by br'],
    ] as const) {
      const body = CODERS[coding]!(json({ account: { name } }));
      const res = await send('PATCH', `${ACCOUNTS}/id/${account.id}`, body, coding, 'application/merge-patch+json');
      expect(res.status, res.text).toBe(200);
      expect(res.json.account.name).toBe(name);
    }
  });

  it('a decoded body of exactly 1 MiB is read; the limit is on the decoded bytes', async () => {
    const account = { ...VALID_ACCOUNT, name: 'Exactly one MiB' };
    const text = JSON.stringify({ account });
    // Padding inside the JSON text (whitespace) up to 1 MiB exactly.
    const body = Buffer.from(text.slice(0, -1) + ' '.repeat(MiB - Buffer.byteLength(text)) + '}');
    expect(body.length).toBe(MiB);
    const res = await send('POST', ACCOUNTS, zlib.gzipSync(body), 'gzip');
    expect(res.status, res.text).toBe(201);
  });

  it('the token endpoint decodes its form too', async () => {
    const res = await server.http.request('POST', '/token', {
      headers: {
        authorization: basic(server.clientId, server.clientSecret),
        'content-type': FORM,
        'content-encoding': 'gzip',
      },
      body: zlib.gzipSync('grant_type=client_credentials'),
    });
    expect(res.status, res.text).toBe(200);
    expect(typeof res.json.access_token).toBe('string');
  });
});

describe('what is refused, and that it changes nothing', () => {
  it('a gzip bomb (20 MB of zeros in about 20 KB) is a 413 and creates nothing', async () => {
    const zeros = Buffer.alloc(20 * 1000 * 1000, 0x20);
    const bomb = zlib.gzipSync(Buffer.concat([Buffer.from('{"account":{"name":"Bomb"'), zeros, Buffer.from('}}')]));
    expect(bomb.length).toBeLessThan(MiB / 10);
    const before = await accountCount(server, token);
    for (const [coding, body] of [
      ['gzip', bomb],
      ['br', zlib.brotliCompressSync(zeros)],
      ['deflate', zlib.deflateSync(zeros)],
      // A small br around a gzip bomb: each decoded step is held to the limit.
      ['gzip, br', zlib.brotliCompressSync(bomb)],
    ] as const) {
      const res = await send('POST', ACCOUNTS, body, coding);
      expect(res.status, `${coding}: ${res.text}`).toBe(413);
      expect(res.json.error.code).toBe('payload_too_large');
      expect(res.json.error.message).toContain('decoded');
    }
    expect(await accountCount(server, token)).toBe(before);
  });

  it('a body that is not what its coding says is a 400 naming Content-Encoding', async () => {
    const before = await accountCount(server, token);
    const plain = json({ account: { ...VALID_ACCOUNT, name: 'Not gzip' } });
    const gzip = zlib.gzipSync(plain);
    for (const [coding, body] of [
      ['gzip', plain],
      ['gzip', gzip.subarray(0, gzip.length - 10)],
      ['br', plain],
      ['deflate', zlib.deflateRawSync(plain)],
      ['gzip, br', zlib.brotliCompressSync(plain)],
    ] as const) {
      const res = await send('POST', ACCOUNTS, body, coding);
      expect(res.status, `${coding}: ${res.text}`).toBe(400);
      expect(res.json.error.code).toBe('invalid_body');
      expect(res.json.error.details[0].field).toBe('Content-Encoding');
    }
    expect(await accountCount(server, token)).toBe(before);
  });

  it('a coding the service cannot decode is a 415 with Accept-Encoding', async () => {
    const before = await accountCount(server, token);
    const body = json({ account: { ...VALID_ACCOUNT, name: 'Unsupported' } });
    for (const coding of ['compress', 'zstd', 'x-unknown', 'gzip, zstd', 'gzip, gzip, gzip, gzip']) {
      const res = await send('POST', ACCOUNTS, body, coding);
      expect(res.status, `${coding}: ${res.text}`).toBe(415);
      expect(res.json.error.code).toBe('unsupported_content_encoding');
      expect(res.json.error.details[0].field).toBe('Content-Encoding');
      expect(res.headers['accept-encoding']).toBe('gzip, deflate, br');
    }
    const patch = await send('PATCH', `${ACCOUNTS}/id/${(await createAccount(server, token)).id}`, body, 'zstd');
    expect(patch.status).toBe(415);
    expect(patch.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(await accountCount(server, token)).toBe(before + 1);
  });

  it('the token endpoint answers a coding it cannot decode in its own error shape', async () => {
    const res = await server.http.request('POST', '/token', {
      headers: {
        authorization: basic(server.clientId, server.clientSecret),
        'content-type': FORM,
        'content-encoding': 'zstd',
      },
      body: 'grant_type=client_credentials',
    });
    // RFC 6749 5.2: its errors are 400 invalid_request, a body that is not a form's included.
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_request');
    expect(res.json.error_description).toContain('zstd');
    expect(res.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('a coded body over 1 MiB as sent is a 413 before any decoding', async () => {
    const random = zlib.gzipSync(crypto.randomBytes(MiB + 1000));
    expect(random.length).toBeGreaterThan(MiB);
    const res = await send('POST', ACCOUNTS, random, 'gzip');
    expect(res.status).toBe(413);
  });
});
