import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLORER_OUT } from '../../scripts/explorer-bundle.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * GET /explorer over HTTPS, without a browser: the page and its files, the Content-Security-Policy
 * the issue asks for (no inline script, no third-party origin), the script budget of the first
 * view, caching and compression, and what other requests to its paths get.
 * test/browser/explorer-browser.test.ts runs the page itself in Chromium.
 */
let server: TestServer;
let dispatcher: Agent;

beforeAll(async () => {
  server = await startTestServer();
  dispatcher = new Agent({ connect: { ca: server.service.tls?.cert, servername: 'localhost' } });
});
afterAll(async () => {
  await dispatcher.close();
  await server.close();
});

/** A GET whose body comes back as the bytes sent (no decompression), with its headers. */
async function get(target: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await request(`${server.service.url}${target}`, { method: method as 'GET', headers, dispatcher });
  const body = Buffer.from(await res.body.arrayBuffer());
  const header = (name: string) => {
    const value = res.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return { status: res.statusCode, header, body, text: body.toString('utf8') };
}

/** Every `src` and `href` of the page, and its script elements. */
function referencesOf(html: string) {
  const urls = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({
    attributes: m[1]!,
    content: m[2]!,
  }));
  return { urls, scripts };
}

function directivesOf(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0] !== '')
      .map(([name, ...values]) => [name!, values]),
  );
}

describe('GET /explorer', () => {
  it('serves the page without a token, as HTML', async () => {
    const res = await get('/explorer');
    expect(res.status).toBe(200);
    expect(res.header('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>adreport explorer</title>');
    expect(res.text).toContain('<form id="sign-in-form"');
  });

  it('sends a Content-Security-Policy that allows only its own origin, no inline code, no framing', async () => {
    const res = await get('/explorer');
    const csp = res.header('content-security-policy') ?? '';
    const directives = directivesOf(csp);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);
    // No way around it: no unsafe keyword, no nonce or hash, no host or scheme beyond blob:/data: images.
    for (const [name, values] of directives) {
      for (const value of values) {
        expect(value, `${name} ${value}`).not.toMatch(/unsafe|nonce-|sha256-|https?:|\*/);
        if (!value.startsWith("'")) expect(name, `${name} ${value}`).toBe('img-src');
      }
    }
    expect(res.header('x-frame-options')).toBe('DENY');
    expect(res.header('referrer-policy')).toBe('no-referrer');
    expect(res.header('x-content-type-options')).toBe('nosniff');
  });

  it('holds no inline script, style or event handler, and refers only to files of its own path', async () => {
    const html = (await get('/explorer')).text;
    const { urls, scripts } = referencesOf(html);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(script.attributes).toMatch(/\ssrc="\/explorer\/[^"]+"/);
      expect(script.content.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style[\s>]/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    const external = urls.filter((u) => !u.startsWith('/explorer/') && !u.startsWith('#'));
    expect(external).toEqual([]);
  });

  it('serves every file the page refers to, each with its type and the same policy', async () => {
    const page = await get('/explorer');
    const { urls } = referencesOf(page.text);
    const types: Record<string, string> = {
      '.js': 'text/javascript; charset=utf-8',
      '.css': 'text/css; charset=utf-8',
      '.svg': 'image/svg+xml',
    };
    for (const url of urls.filter((u) => u.startsWith('/explorer/'))) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.header('content-type'), url).toBe(types[path.extname(url)]);
      expect(res.header('content-security-policy'), url).toBe(
        (await get('/explorer')).header('content-security-policy'),
      );
      expect(res.body.equals(fs.readFileSync(path.join(EXPLORER_OUT, path.basename(url)))), url).toBe(true);
    }
  });

  it('loads under 200 KB of script for the first view, and the bundle pulls in no other script', async () => {
    const { scripts } = referencesOf((await get('/explorer')).text);
    let bytes = 0;
    for (const script of scripts) {
      const src = /\ssrc="([^"]+)"/.exec(script.attributes)![1]!;
      const res = await get(src);
      expect(res.status).toBe(200);
      bytes += res.body.length;
      // One bundle: no import of another file, static or dynamic.
      expect(res.text).not.toMatch(/\bimport\s*\(|\bfrom\s*["']|\bimport\s*["']/);
    }
    expect(bytes).toBeGreaterThan(10_000);
    expect(bytes).toBeLessThan(200 * 1024);
  });

  it('sends the first view its script and styles in under 120 KB compressed (issue 43), gzip as served', async () => {
    const { urls } = referencesOf((await get('/explorer')).text);
    const assets = urls.filter((url) => /\.(js|css)$/.test(url));
    expect(assets.some((url) => url.endsWith('.js'))).toBe(true);
    let sent = 0;
    for (const url of assets) {
      const res = await get(url.startsWith('/') ? url : `/explorer/${url}`, { 'accept-encoding': 'gzip' });
      expect(res.status, url).toBe(200);
      expect(res.header('content-encoding'), url).toBe('gzip');
      sent += res.body.length;
    }
    expect(sent).toBeLessThan(120 * 1024);
  });

  it('answers If-None-Match with 304, and gives brotli or gzip to clients that take them', async () => {
    const plain = await get('/explorer/explorer.js');
    const etag = plain.header('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(plain.header('cache-control')).toBe('no-cache');
    expect(plain.header('vary')).toContain('Accept-Encoding');
    expect(plain.header('content-encoding')).toBeUndefined();
    expect(Number(plain.header('content-length'))).toBe(plain.body.length);

    const revalidated = await get('/explorer/explorer.js', { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(revalidated.header('etag')).toBe(etag);

    const br = await get('/explorer/explorer.js', { 'accept-encoding': 'gzip, br' });
    expect(br.header('content-encoding')).toBe('br');
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    const gzip = await get('/explorer/explorer.js', { 'accept-encoding': 'gzip' });
    expect(gzip.header('content-encoding')).toBe('gzip');
    expect(zlib.gunzipSync(gzip.body).equals(plain.body)).toBe(true);

    const page = await get('/explorer', { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(page.header('content-encoding')).toBeUndefined();
  });

  it('answers HEAD with the headers alone', async () => {
    const res = await get('/explorer', {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.header('content-security-policy')).toBeDefined();
    expect(res.body.length).toBe(0);
  });

  it('redirects /explorer/ to the page, and answers other paths and methods as the API does', async () => {
    const slash = await get('/explorer/');
    expect(slash.status).toBe(308);
    expect(slash.header('location')).toBe('/explorer');

    for (const target of ['/explorer/nope.js', '/explorer/index.html', '/explorer/explorer.js.br', '/explorer/a/b']) {
      const res = await get(target);
      expect(res.status, target).toBe(404);
      expect(JSON.parse(res.text).error.code, target).toBe('not_found');
    }
    const post = await get('/explorer', {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.header('allow')).toContain('GET');
  });

  it('keeps the API behind its token: the page is the only thing served without one', async () => {
    const res = await get('/reporting/v0/fields');
    expect(res.status).toBe(401);
  });
});

describe('a service whose explorer is not built', () => {
  it('serves the API, and says at GET /explorer how to build the page (503)', async () => {
    const empty = tempDir('adreport-no-explorer-');
    const unbuilt = await startTestServer({}, undefined, { explorerDir: empty });
    try {
      const page = await unbuilt.http.get('/explorer');
      expect(page.status).toBe(503);
      expect(page.json.error.code).toBe('explorer_not_built');
      expect(page.json.error.message).toContain('npm run build');
      expect(page.json.error.message).not.toContain(empty);
      expect((await unbuilt.http.get('/health')).status).toBe(200);
    } finally {
      await unbuilt.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
