import type http from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a connection closed with a request body still arriving is read from (and the bytes
 * dropped) after the response, before it is destroyed. Closing at once would answer the
 * client's next bytes with a TCP reset, which can erase the response from its receive buffer
 * unread (RFC 9112 9.6). A client that reads the response and closes ends it sooner.
 */
export const LINGER_MS = 2_000;

/** Whether the request announces a body (RFC 9112 6.3): chunked, or a non-zero Content-Length. */
export function announcesBody(req: http.IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * A response whose head goes out while its request's body has not fully arrived (an early 413,
 * 405, 415, 401 or 400, or any answer that ignores the body) says `Connection: close`, and the
 * connection then closes in stages. Keeping it open would mean reading an unbounded body
 * nobody wants, and @hono/node-server gives up draining after 500 ms and destroys the socket:
 * a pooled client that was told `keep-alive` sent its next request into that reset.
 */
export function closeIfBodyUnread(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (!announcesBody(req)) return;
  // Node has no hook between "headers decided" and "headers written"; writeHead is where both
  // the app's responses and the implicit ones pass.
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (!req.complete && !this.headersSent) {
      this.setHeader('Connection', 'close');
      lingerOnClose(req);
    }
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

const lingering = new WeakSet<Socket>();

/**
 * Node ends a `Connection: close` response with socket.destroySoon(): end, then destroy once
 * written. On this socket that becomes: end (our FIN follows the response), keep reading what
 * the client still sends and drop it, destroy when the client closes too or after LINGER_MS.
 */
function lingerOnClose(req: http.IncomingMessage): void {
  const socket = req.socket;
  if (lingering.has(socket)) return;
  lingering.add(socket);
  let started = false;
  socket.destroySoon = function (this: Socket) {
    if (started) return;
    started = true;
    if (this.writable) this.end();
    // The response is out, so nobody wants the body. The app's body stream (a web stream over
    // the request) pauses the request whenever its unread queue is full, which would stop the
    // reading; drop its listener as Node's own dump of an unread body does.
    req.removeAllListeners('data');
    req.resume();
    this.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
