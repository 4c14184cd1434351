import dns from 'node:dns';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { hostOf, refusedAddress } from './target-address.js';

export interface PostResult {
  /** The receiver's status; undefined when no answer came (refused, timeout, network, TLS). */
  readonly statusCode: number | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
}

export interface PostOptions {
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  /** Extra certificate authorities to trust besides Node's (a receiver with a private CA). */
  readonly extraCa: readonly string[];
}

/**
 * One delivery attempt: POST over HTTPS, no redirects followed, the whole exchange within
 * timeoutMs. The address is checked after DNS, inside the connection's lookup, so what is checked
 * is what is connected to. The answer's body is read and dropped.
 */
export function postJson(
  url: URL,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const done = (statusCode: number | undefined, error: string | undefined): PostResult => ({
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  if (url.protocol !== 'https:') return Promise.resolve(done(undefined, 'only https targets are delivered to'));
  const host = hostOf(url);
  const literalRefusal = net.isIP(host) !== 0 && !options.allowPrivate ? refusedAddress(host) : undefined;
  if (literalRefusal) return Promise.resolve(done(undefined, `refused: ${literalRefusal}`));
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | undefined, error: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(statusCode, error));
    };
    const req = https.request({
      method: 'POST',
      host,
      port: url.port === '' ? 443 : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      ca: options.extraCa.length > 0 ? [...tls.rootCertificates, ...options.extraCa] : undefined,
      lookup: guardedLookup(options.allowPrivate),
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(undefined, `no complete answer within ${options.timeoutMs} ms`);
    }, options.timeoutMs);
    req.on('response', (res) => {
      res.on('data', () => undefined);
      res.on('end', () => finish(res.statusCode, undefined));
      res.on('error', (error) => finish(res.statusCode, error.message));
    });
    req.on('error', (error) => finish(undefined, describe(error)));
    req.end(body);
  });
}

function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** dns.lookup, then every address checked: one refused address fails the connection. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = allowPrivate ? undefined : list.map((a) => refusedAddress(a.address)).find((r) => r);
      if (refused) {
        const failure: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to ${refused}`);
        failure.code = 'EADDRREFUSED_SSRF';
        return callback(failure, '', 0);
      }
      if (list.length === 0)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
