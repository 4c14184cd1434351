import type { LookupAddress } from 'node:dns';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import { firstRefused, hostOf, isAddressLiteral, refusedAddress, type Lookup } from './target-address.js';

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
  /** Resolves the target's name; every answer is checked before one is connected to. */
  readonly lookup: Lookup;
}

/**
 * One delivery attempt: POST over HTTPS, no redirects followed (a 3xx is a failed attempt), the
 * whole exchange within timeoutMs. The address is checked after DNS, inside the connection's own
 * lookup: the one resolution whose answers are checked is the one the socket connects to (no
 * second query a rebinding name could answer differently). The answer's body is read and dropped.
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
  // A literal address is connected to without a lookup: checked here.
  const literalRefusal = isAddressLiteral(host) && !options.allowPrivate ? refusedAddress(host) : undefined;
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
      lookup: guardedLookup(options.lookup, options.allowPrivate),
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

/**
 * The connection's lookup: resolves once, checks every answer (one special address refuses the
 * name), and hands the checked answers to the socket, which connects to one of them (or, with
 * `all`, tries them in turn: each was checked).
 */
function guardedLookup(lookup: Lookup, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (answers) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const list: LookupAddress[] = answers
          .filter((a) => family === undefined || a.family === family)
          .map((a) => ({ address: a.address, family: a.family }));
        const refused = allowPrivate ? undefined : firstRefused(hostname, answers);
        if (refused) {
          const failure: NodeJS.ErrnoException = new Error(`refused: ${refused}`);
          failure.code = 'EADDRREFUSED_SSRF';
          return callback(failure, '', 0);
        }
        if (list.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        callback(null, list[0]!.address, list[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
