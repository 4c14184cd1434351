import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { TlsMaterial } from './tls.js';
import { errorBody } from './error-mapper.js';

type FetchHandler = Parameters<typeof getRequestListener>[0];

export interface Listener {
  readonly server: http.Server;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish, cuts what is left after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/** The API listener: HTTPS, or plain HTTP behind a trusted TLS-terminating proxy. */
export function listenApi(fetch: FetchHandler, options: { host: string; port: number; tls: TlsMaterial | undefined }): Promise<Listener> {
  const handlers = new InFlight();
  const listener = getRequestListener(fetch);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => handlers.track(listener(req, res));
  const server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' }, handler)
    : http.createServer(handler);
  return listen(server, options.host, options.port, handlers);
}

/**
 * Counts running request handlers. A client that drops its connection ends the socket at once,
 * while its handler still runs, so "all connections closed" does not mean "all requests done".
 */
class InFlight {
  private count = 0;
  private readonly onIdle: Array<() => void> = [];

  track(handling: Promise<void>): void {
    this.count++;
    handling.finally(() => {
      this.count--;
      if (this.count === 0) for (const resolve of this.onIdle.splice(0)) resolve();
    });
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.onIdle.push(resolve));
  }
}

/** Spec 5.7: requests over plain HTTP are not served; every one gets the 404 error body. */
export function listenPlainHttpRefusal(options: { host: string; port: number }): Promise<Listener> {
  const server = http.createServer((req, res) => {
    req.resume();
    const id = requestIdOf(req.headers['x-request-id']);
    send(res, 404, errorBody(404, 'https_required', 'This service is served over HTTPS only.', [], id), id);
  });
  return listen(server, options.host, options.port);
}

function listen(server: http.Server, host: string, port: number, handlers?: InFlight): Promise<Listener> {
  // Requests the HTTP parser itself rejects (bad request line, header overflow) still get our envelope.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (error.code === 'ECONNRESET')) return socket.destroy();
    const id = crypto.randomUUID();
    const unencoded = error.code === 'HPE_INVALID_URL' || hasRawSpaceInTarget(error);
    const body = JSON.stringify(
      unencoded
        ? errorBody(400, 'unencoded_characters', 'The request target has characters that must be percent-encoded.', [], id)
        : errorBody(400, 'bad_request', 'The request could not be parsed as HTTP.', [], id),
    );
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        close: (timeoutMs) => closeServer(server, timeoutMs, handlers),
      });
    });
  });
}

/** A raw space in the target splits the request line, so the parser sees a bad version instead. */
function hasRawSpaceInTarget(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): boolean {
  const firstLine = error.rawPacket?.toString('latin1').split('\r\n')[0] ?? '';
  return /^[A-Z]+ \S+ .+ HTTP\/\d\.\d$/.test(firstLine) || (/^[A-Z]+ \S+ /.test(firstLine) && !/ HTTP\/\d\.\d$/.test(firstLine));
}

async function closeServer(server: http.Server, timeoutMs: number, handlers: InFlight | undefined): Promise<void> {
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  timer.unref();
  // close() stops accepting and, since Node 19, drops idle keep-alive connections too.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  // Handlers cannot be cancelled; past the timeout shutdown goes on and the store's own drain waits for their queries.
  await Promise.race([handlers?.idle(), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  clearTimeout(timer);
}

function send(res: http.ServerResponse, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'X-Request-Id': requestId });
  res.end(text);
}

function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && /^[\x21-\x7e]{1,200}$/.test(header) ? header : crypto.randomUUID();
}
