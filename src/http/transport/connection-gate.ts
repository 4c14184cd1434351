import type http from 'node:http';
import type https from 'node:https';
import net from 'node:net';
import type tls from 'node:tls';

export interface ConnectionCaps {
  /** Open connections of the listener. */
  readonly maxConnections: number;
  /** Open connections of one remote address (IPv6: one /64); undefined for none. */
  readonly maxConnectionsPerIp: number | undefined;
}

/**
 * The key connections are counted under: IPv4 as is, IPv6 by its /64 (the block one host or
 * LAN is usually given, so an attacker cannot step around the cap by cycling addresses).
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return '?';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? headGroups
      : [
          ...headGroups,
          ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'),
          ...tailGroups,
        ];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Counts open connections, in all and per address key, and admits one more or not. */
export class ConnectionCounter {
  private total = 0;
  private readonly perKey = new Map<string, number>();

  constructor(private readonly caps: ConnectionCaps) {}

  /** Counts the socket until it closes, or says no (then the caller drops it). */
  admit(socket: net.Socket): boolean {
    if (this.total >= this.caps.maxConnections) return false;
    const key = addressKey(socket.remoteAddress);
    const open = this.perKey.get(key) ?? 0;
    if (this.caps.maxConnectionsPerIp !== undefined && open >= this.caps.maxConnectionsPerIp) return false;
    this.total++;
    this.perKey.set(key, open + 1);
    socket.once('close', () => {
      this.total--;
      const left = (this.perKey.get(key) ?? 1) - 1;
      if (left === 0) this.perKey.delete(key);
      else this.perKey.set(key, left);
    });
    return true;
  }
}

/**
 * Takes over the server's own 'connection' handling (Node's HTTP parser setup, or tls.Server
 * wrapping the socket in TLS at once) so that a gate can run first; returns it for the gate to call.
 */
function takeConnectionHandling(server: net.Server): (socket: net.Socket) => void {
  const own = server.listeners('connection') as Array<(socket: net.Socket) => void>;
  server.removeAllListeners('connection');
  return (socket) => {
    for (const listener of own) listener.call(server, socket);
  };
}

/**
 * Over a cap, the new connection is reset at once (RST: the client sees ECONNRESET, a TLS
 * client before its handshake) rather than queued, so the descriptors stay bounded.
 */
function refuse(socket: net.Socket): void {
  socket.resetAndDestroy();
}

/** A plain-HTTP listener with connection caps in front. */
export function gateConnections(server: http.Server, counter: ConnectionCounter): void {
  const handle = takeConnectionHandling(server);
  server.on('connection', (socket: net.Socket) => (counter.admit(socket) ? handle(socket) : refuse(socket)));
}

export interface TlsPortGate {
  /** Destroys every connection that has not finished its TLS handshake (for shutdown). */
  destroyPending(): void;
}

/**
 * The HTTPS port, with caps in front and the first byte looked at: a TLS connection starts with
 * a handshake record (0x16) and goes to the TLS server; anything else is plain HTTP sent to the
 * wrong port and goes to `plain` (which answers it 404 https_required). From accept to a
 * finished handshake a connection gets `handshakeTimeoutMs` in all (first byte included, and
 * however slowly it trickles in); after that the HTTP timeouts govern it.
 */
export function gateTlsPort(
  server: https.Server,
  counter: ConnectionCounter,
  options: { handshakeTimeoutMs: number; plain: http.Server },
): TlsPortGate {
  const startTls = takeConnectionHandling(server);
  // Admitted connections whose TLS handshake has not finished, with their deadline.
  const pending = new Map<string, { socket: net.Socket; deadline: NodeJS.Timeout }>();
  const keyOf = (socket: net.Socket | tls.TLSSocket) => `${socket.remoteAddress}|${socket.remotePort}`;

  server.on('connection', (socket: net.Socket) => {
    if (!counter.admit(socket)) return refuse(socket);
    const key = keyOf(socket);
    const deadline = setTimeout(() => socket.destroy(), options.handshakeTimeoutMs);
    deadline.unref();
    pending.set(key, { socket, deadline });
    socket.once('close', () => {
      clearTimeout(deadline);
      if (pending.get(key)?.socket === socket) pending.delete(key);
    });
    // Until a consumer takes over, a reset must not become an uncaught error.
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] === 0x16) {
        // TLSSocket reads what was unshifted before anything new.
        startTls(socket);
      } else {
        options.plain.emit('connection', socket);
        socket.resume();
      }
    });
  });
  // Handshake done: the HTTP layer's own timeouts (headers, request, keep-alive) take over.
  server.on('secureConnection', (secured: tls.TLSSocket) => {
    const key = keyOf(secured);
    const entry = pending.get(key);
    if (entry === undefined) return;
    clearTimeout(entry.deadline);
    pending.delete(key);
  });
  return {
    destroyPending() {
      for (const { socket } of pending.values()) socket.destroy();
      pending.clear();
    },
  };
}
