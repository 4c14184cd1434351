import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { ServiceConfig } from '../config/config.js';
import type { TlsMaterial } from './tls.js';
import { ConnectionCounter, gateConnections, gateTlsPort, type TlsPortGate } from './transport/connection-gate.js';
import { answerParserErrors } from './transport/parser-errors.js';
import { asksServerOptions, checkRequestHead, IMPLEMENTED_METHODS } from './transport/request-head.js';
import { requestIdFor, sendTransportError, type TransportError } from './transport/transport-error.js';
import { closeStalledReaders } from './transport/stalled-readers.js';
import { closeIfBodyUnread } from './transport/unread-body.js';

type FetchHandler = Parameters<typeof getRequestListener>[0];

/** Connection and request limits (config `http`, README: HTTPS). */
export type TransportLimits = ServiceConfig['http'];

export interface Listener {
  readonly server: http.Server;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish, cuts what is left after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Node checks the headers and request timeouts on this period (30 s by default, which let a
 * 20 s limit run to 50 s); a pass walks the connections that are mid-request, 1-4 ms for 5,000
 * (README: HTTP timeouts).
 */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

function httpServerOptions(limits: TransportLimits): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // A missing Host is refused by checkRequestHead, in the error envelope rather than Node's bare 400.
    requireHostHeader: false,
  };
}

const HTTPS_REQUIRED: TransportError = {
  status: 404,
  code: 'https_required',
  message: 'This service is served over HTTPS only.',
};

/**
 * The API listener: HTTPS (plain HTTP arriving on its port is answered 404), or plain HTTP
 * behind a trusted TLS-terminating proxy.
 */
export function listenApi(
  fetch: FetchHandler,
  options: {
    host: string;
    port: number;
    tls: TlsMaterial | undefined;
    limits: TransportLimits;
    /** Info lines (a stalled reader's connection closed); none when left out. */
    log?: ((line: string) => void) | undefined;
  },
): Promise<Listener> {
  const { limits } = options;
  const log = options.log ?? (() => undefined);
  const secure = options.tls !== undefined;
  let gate: TlsPortGate | undefined;
  let server: http.Server;
  if (options.tls) {
    server = https.createServer({
      ...httpServerOptions(limits),
      cert: options.tls.cert,
      key: options.tls.key,
      minVersion: 'TLSv1.2',
      handshakeTimeout: limits.tlsHandshakeTimeoutMs,
    });
    const counter = new ConnectionCounter({
      maxConnections: limits.maxConnections,
      maxConnectionsPerIp: limits.maxConnectionsPerIp,
    });
    gate = gateTlsPort(server as https.Server, counter, {
      handshakeTimeoutMs: limits.tlsHandshakeTimeoutMs,
      plain: plainHttpRefusal(limits),
    });
  } else {
    server = http.createServer(httpServerOptions(limits));
    // Behind a proxy every connection comes from the proxy's address: only the total is capped.
    gateConnections(
      server,
      new ConnectionCounter({ maxConnections: limits.maxConnections, maxConnectionsPerIp: undefined }),
    );
  }
  const noteResponse = answerParserErrors(server, secure);
  const handlers = new InFlight();
  const listener = getRequestListener(fetch);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    noteResponse(req, res);
    closeIfBodyUnread(req, res);
    // Refused before routing, and the connection closes: a head the service will not read
    // (too long a target, an unknown method, a doubtful Host) may be one a proxy read otherwise.
    const refused = checkRequestHead(req);
    if (refused) return sendTransportError(req, res, refused, { secure, close: true });
    if (asksServerOptions(req)) return answerServerOptions(req, res);
    closeStalledReaders(req, res, limits.writeIdleTimeoutMs, log);
    handlers.track(listener(req, res));
  });
  return listen(server, options.host, options.port, handlers, gate);
}

/** `OPTIONS *` asks what the server implements (RFC 9110 9.3.7); the app's routes know only paths. */
function answerServerOptions(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(204, {
    Allow: IMPLEMENTED_METHODS.join(', '),
    'Cache-Control': 'no-store',
    'X-Request-Id': requestIdFor(req.headers['x-request-id']),
  });
  res.end();
}

/**
 * Spec 5.7: requests over plain HTTP are not served; every one gets the 404 error body, and the
 * connection closes. Behind the HTTPS port this server does not listen itself, so Node's
 * timeouts do not run for it there: the gate's deadline bounds those connections instead.
 */
function plainHttpRefusal(limits: TransportLimits): http.Server {
  const server = http.createServer(httpServerOptions(limits));
  const noteResponse = answerParserErrors(server, false);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    noteResponse(req, res);
    closeIfBodyUnread(req, res);
    sendTransportError(req, res, HTTPS_REQUIRED, { secure: false, close: true });
  });
  return server;
}

/** The optional plain-HTTP port (--http-port): answers every request with the 404 of spec 5.7. */
export function listenPlainHttpRefusal(options: {
  host: string;
  port: number;
  limits: TransportLimits;
}): Promise<Listener> {
  const server = plainHttpRefusal(options.limits);
  gateConnections(
    server,
    new ConnectionCounter({
      maxConnections: options.limits.maxConnections,
      maxConnectionsPerIp: options.limits.maxConnectionsPerIp,
    }),
  );
  return listen(server, options.host, options.port);
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

function listen(
  server: http.Server,
  host: string,
  port: number,
  handlers?: InFlight,
  gate?: TlsPortGate,
): Promise<Listener> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        close: (timeoutMs) => closeServer(server, timeoutMs, handlers, gate),
      });
    });
  });
}

async function closeServer(
  server: http.Server,
  timeoutMs: number,
  handlers: InFlight | undefined,
  gate: TlsPortGate | undefined,
): Promise<void> {
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  timer.unref();
  // close() stops accepting and, since Node 19, drops idle keep-alive connections too.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Connections still in their TLS handshake carry no request; Node's HTTP layer does not know them.
  gate?.destroyPending();
  await closed;
  // Handlers cannot be cancelled; past the timeout shutdown goes on and the store's own drain waits for their queries.
  await Promise.race([handlers?.idle(), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  clearTimeout(timer);
}
