import crypto from 'node:crypto';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { SqlAuthenticator } from './session.js';
import { SqlError } from './session.js';
import { authenticate, type Authenticated } from './authentication.js';
import { backendKeyData, errorResponse, parameterStatus } from './backend-messages.js';
import { CancelKeys } from './cancel-keys.js';
import { Connection } from './connection.js';
import { errorFields } from './errors.js';
import { negotiate, type Started } from './negotiation.js';
import { Output } from './output.js';

export interface SqlWireServerOptions {
  readonly host: string;
  /** 0 picks a free port (the started server's `port` says which). */
  readonly port: number;
  /** PEM key and certificate: every session is TLS, a plain StartupMessage is refused. */
  readonly tls: { readonly key: string | Buffer; readonly cert: string | Buffer };
  readonly authenticator: SqlAuthenticator;
  /** ParameterStatus server_version, e.g. '15.0 (adreport 0.1.0)': drivers read the major version from it. */
  readonly serverVersion: string;
  /** Internal errors and dropped connections; stderr when not given. */
  readonly log?: (line: string) => void;
  /** Sessions at once (authenticating or authenticated); the next is refused with 53300. Default 100, PostgreSQL's. */
  readonly maxConnections?: number;
  /** From accept to AuthenticationOk (TLS handshake and SCRAM included); default 10 s. */
  readonly startupTimeoutMs?: number;
  /** An authenticated connection idle this long after ReadyForQuery is closed with 57P05; default 0, never. */
  readonly idleTimeoutMs?: number;
  /**
   * Derives the salts offered to unknown users (32+ random bytes). Give one that outlives restarts
   * (PostgreSQL keeps its mock nonce in pg_control): with a new one per start, an unknown user's salt
   * changes at a restart while a real user's does not. Default: random per server.
   */
  readonly mockSecret?: Buffer;
}

export interface SqlWireServer {
  readonly port: number;
  /** Stops accepting, ends every connection (57P01 to authenticated ones, as a fast shutdown), resolves when all are closed. */
  close(): Promise<void>;
}

const CLOSE_GRACE_MS = 5000;

/**
 * The PostgreSQL wire endpoint: accepts TCP, negotiates TLS, authenticates by SCRAM-SHA-256 and
 * serves each connection's messages to its SqlSession. Connection limits: sessions beyond
 * maxConnections get 53300 after their StartupMessage; sockets that have not reached it yet are
 * capped at as many again (plus room for CancelRequests) and closed unanswered beyond that, so a
 * flood of idle sockets costs no more than the startup timeout lets it.
 */
export async function startSqlWireServer(options: SqlWireServerOptions): Promise<SqlWireServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxConnections = options.maxConnections ?? 100;
  const maxSockets = 2 * maxConnections + 16;
  const startupTimeoutMs = options.startupTimeoutMs ?? 10_000;
  const secureContext = tls.createSecureContext({
    key: options.tls.key,
    cert: options.tls.cert,
    minVersion: 'TLSv1.2',
  });
  const mockSecret = options.mockSecret ?? crypto.randomBytes(32);
  const cancelKeys = new CancelKeys();
  const sockets = new Set<net.Socket>();
  const connections = new Map<net.Socket, Connection>();
  let sessions = 0;
  let closing = false;

  const serveSocket = async (socket: net.Socket): Promise<void> => {
    const streams: Duplex[] = [];
    // Bounds what the client controls (TLS handshake, its startup and SCRAM messages), not the session's opening.
    const startupTimer = setTimeout(() => {
      log(`sql endpoint: ${socket.remoteAddress ?? '?'} did not authenticate within ${startupTimeoutMs} ms; closed`);
      streams.forEach((stream) => stream.destroy());
    }, startupTimeoutMs);
    let holdsSlot = false;
    const releaseSlot = () => {
      if (holdsSlot) sessions--;
      holdsSlot = false;
    };
    socket.once('close', () => {
      clearTimeout(startupTimer);
      sockets.delete(socket);
      releaseSlot();
    });
    const admit = () => {
      if (closing || sessions >= maxConnections) return false;
      sessions++;
      holdsSlot = true;
      return true;
    };

    let started: Started | null;
    try {
      started = await negotiate(socket, {
        secureContext,
        cancel: (processId, secretKey) => void cancelKeys.cancel(processId, secretKey),
        onStream: (stream) => streams.push(stream),
      });
    } catch (error) {
      // Before a StartupMessage the only answers worth sending are FATALs; a malformed packet is just closed, as in PostgreSQL.
      if (error instanceof SqlError) await refuse(new Output(socket), error);
      else socket.destroy();
      return;
    }
    if (!started) return;
    const out = new Output(started.stream);
    let authenticated: Authenticated | null;
    try {
      authenticated = await authenticate(started, out, {
        authenticator: options.authenticator,
        mockSecret,
        admit,
        proven: () => clearTimeout(startupTimer),
      });
    } catch (error) {
      await refuse(out, error);
      return;
    }
    if (!authenticated) {
      started.stream.destroy();
      return;
    }
    const { user, session, parameters } = authenticated;
    const connection = new Connection({
      session,
      reader: started.reader,
      out,
      log,
      label: `connection of ${JSON.stringify(user)} from ${socket.remoteAddress ?? '?'}`,
      idleTimeoutMs: options.idleTimeoutMs ?? 0,
    });
    const key = cancelKeys.register(() => connection.cancel());
    connections.set(socket, connection);
    started.stream.once('close', () => connection.lost());
    for (const [name, value] of reportedParameters(options.serverVersion, user, parameters))
      out.push(parameterStatus(name, value));
    out.push(backendKeyData(key.processId, key.secretKey));
    try {
      if (closing) await connection.terminate();
      await connection.serve();
    } finally {
      // Free once the session is closed, not when the socket's close comes around: the next client may be waiting for the slot.
      releaseSlot();
      key.release();
      connections.delete(socket);
    }
  };

  const refuse = async (out: Output, error: unknown): Promise<void> => {
    const fields = errorFields(error, log, 'while a connection started');
    out.push(errorResponse({ ...fields, severity: 'FATAL' }));
    await out.end();
  };

  const server = net.createServer((socket) => {
    socket.on('error', () => {
      // A reset or a failed handshake: the streams above see the close; nothing to report to anyone.
    });
    if (closing || sockets.size >= maxSockets) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    serveSocket(socket).catch((error: unknown) => {
      log(
        `sql endpoint: connection failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      socket.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    async close() {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      const closed = [...sockets].map((socket) =>
        socket.destroyed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve())),
      );
      for (const socket of sockets) {
        const connection = connections.get(socket);
        if (connection) void connection.terminate();
        else socket.destroy();
      }
      const stragglers = setTimeout(() => sockets.forEach((socket) => socket.destroy()), CLOSE_GRACE_MS);
      await Promise.all(closed);
      clearTimeout(stragglers);
      await stopped;
    },
  };
}

/** ParameterStatus after authentication: what libpq, pgJDBC and psqlODBC read before their first query. */
function reportedParameters(
  serverVersion: string,
  user: string,
  parameters: Readonly<Record<string, string>>,
): [string, string][] {
  return [
    ['server_version', serverVersion],
    ['server_encoding', 'UTF8'],
    ['client_encoding', 'UTF8'],
    ['DateStyle', 'ISO, MDY'],
    ['IntervalStyle', 'postgres'],
    ['TimeZone', 'UTC'],
    ['integer_datetimes', 'on'],
    ['standard_conforming_strings', 'on'],
    ['is_superuser', 'off'],
    ['session_authorization', user],
    ['application_name', parameters.application_name ?? ''],
    // PostgreSQL 14+ reports both; libpq's target_session_attrs reads them instead of asking.
    ['in_hot_standby', 'off'],
    ['default_transaction_read_only', 'on'],
  ];
}
