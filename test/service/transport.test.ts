import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { HttpClient } from '../helpers/http.js';
import { rawTcp } from '../helpers/raw-http.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function track(server: TestServer): Promise<TestServer> {
  cleanups.push(() => server.close());
  return server;
}

async function start(dir: string, overrides: Record<string, unknown>): Promise<RunningService> {
  const config = serviceConfigSchema.parse({
    dbPath: path.join(dir, 'a.duckdb'),
    host: '127.0.0.1',
    port: 0,
    ...overrides,
  });
  const service = await startService(config, { logError: () => undefined });
  cleanups.push(() => service.close());
  return service;
}

function peerFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'localhost' }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('HTTPS (DESIGN D7, spec 5.7)', () => {
  it('generates a self-signed pair for localhost in <db>.tls/ on first start, and reuses it', async () => {
    const dir = tempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const first = await start(dir, {});
    expect(first.tls?.source).toBe('generated');
    const certPath = path.join(dir, 'a.duckdb.tls', 'cert.pem');
    const keyPath = path.join(dir, 'a.duckdb.tls', 'key.pem');
    expect(fs.statSync(keyPath).mode & 0o077).toBe(0);
    const cert = new crypto.X509Certificate(fs.readFileSync(certPath));
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');

    // The client verifies the chain against the generated certificate: real TLS, no -k.
    const client = new HttpClient(first.url, fs.readFileSync(certPath, 'utf8'));
    cleanups.push(() => client.close());
    expect((await client.get('/health')).status).toBe(200);
    await first.close();

    const second = await start(dir, {});
    expect(second.tls?.source).toBe('existing');
    expect(await peerFingerprint(second.port)).toBe(cert.fingerprint256);
  });

  it('serves a given certificate and key', async () => {
    const dir = tempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
    fs.writeFileSync(path.join(dir, 'given-cert.pem'), pems.cert);
    fs.writeFileSync(path.join(dir, 'given-key.pem'), pems.private);
    const service = await start(dir, {
      tlsCert: path.join(dir, 'given-cert.pem'),
      tlsKey: path.join(dir, 'given-key.pem'),
    });
    expect(service.tls?.source).toBe('given');
    expect(await peerFingerprint(service.port)).toBe(new crypto.X509Certificate(pems.cert).fingerprint256);
    expect(fs.existsSync(path.join(dir, 'a.duckdb.tls'))).toBe(false);
  });

  it('refuses a certificate without its key', async () => {
    const dir = tempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    await expect(start(dir, { tlsCert: path.join(dir, 'cert.pem') })).rejects.toThrow(
      /--tls-cert and --tls-key go together/,
    );
  });

  it('answers every request on the plain HTTP port with 404 and the JSON error body', async () => {
    const server = await track(await startTestServer({ httpPort: 0 }));
    const plain = new HttpClient(`http://127.0.0.1:${server.service.httpPort}`);
    cleanups.push(() => plain.close());
    for (const [method, path] of [
      ['GET', '/health'],
      ['POST', '/token'],
      ['GET', '/provisioning/v0/organization'],
    ] as const) {
      const res = await plain.request(method, path, {
        headers: { 'x-request-id': 'plain-1' },
        body: method === 'POST' ? 'grant_type=client_credentials' : undefined,
      });
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ status: 404, code: 'https_required', requestId: 'plain-1' });
    }
  });
});

describe('plain HTTP sent to the HTTPS port', () => {
  it('gets the 404 https_required error body, while TLS on the same port is served', async () => {
    const server = await track(await startTestServer());
    const plain = new HttpClient(`http://127.0.0.1:${server.service.port}`);
    cleanups.push(() => plain.close());
    for (const [method, path] of [
      ['GET', '/health'],
      ['POST', '/token'],
      ['DELETE', '/provisioning/v0/accounts/id/1'],
    ] as const) {
      const res = await plain.request(method, path, {
        headers: { 'x-request-id': 'plain-on-tls' },
        body: method === 'POST' ? 'grant_type=client_credentials' : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.connection).toBe('close');
      if (method === 'DELETE') expect(res.text).toBe('');
      else expect(res.json.error).toMatchObject({ status: 404, code: 'https_required', requestId: 'plain-on-tls' });
    }
    expect((await server.http.get('/health')).status).toBe(200);
  });

  it('closes a plain connection that sends bytes that are not HTTP', async () => {
    const server = await track(await startTestServer());
    const res = await rawTcp(server.service.port, { text: 'hello\r\n\r\n', waitMs: 5_000, untilClose: true });
    expect(res.status).toBe(400);
    expect(res.ended).toBe('closed');
  });
});

describe('behind a TLS-terminating proxy (--trust-proxy)', () => {
  it('accepts plain connections and serves only X-Forwarded-Proto: https', async () => {
    const server = await track(await startTestServer({ trustProxy: true }));
    expect(server.service.url).toMatch(/^http:/);
    const viaProxy = (proto?: string) =>
      server.http.get('/health', proto === undefined ? {} : { 'x-forwarded-proto': proto });
    expect((await viaProxy('https')).status).toBe(200);
    expect((await viaProxy('https, http')).status).toBe(200);
    const plain = await viaProxy('http');
    expect(plain.status).toBe(404);
    expect(plain.json.error.code).toBe('https_required');
    // Without the header nothing says the client used TLS, so it is not served either.
    expect((await viaProxy()).status).toBe(404);
  });
});
