import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { replyToClientError } from './client-error.js';
import { notImplemented } from './request-head.js';
import { rawErrorResponse, type TransportError } from './transport-error.js';
import { LINGER_MS } from './unread-body.js';

/**
 * Answers what Node's HTTP layer rejects before a request exists (parser errors, the headers and
 * request timeouts, CONNECT) with the error envelope, and closes every connection it is told
 * about. Returns the function the request handler calls for each response, so that a late error
 * (a body timing out after an early answer) does not write into a response already under way.
 */
export function answerParserErrors(
  server: http.Server,
  secure: boolean,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const current = new WeakMap<Duplex, http.ServerResponse>();
  // The parser reports each later chunk of a broken connection again; one answer is enough.
  const answered = new WeakSet<Duplex>();

  server.on(
    'clientError',
    (error: Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number }, socket: Duplex) => {
      if (answered.has(socket)) return;
      const reply = replyToClientError(error);
      const response = current.get(socket);
      // No reply means no HTTP on this socket (a TLS failure or timeout, a reset): an end() would
      // leave a TLS socket whose handshake never finished open for good, so it is destroyed.
      if (reply === undefined || !socket.writable || (response?.headersSent && !response.writableFinished)) {
        socket.destroy();
        return;
      }
      answerAndClose(socket, reply, secure);
      answered.add(socket);
    },
  );

  // Without a listener Node drops a CONNECT without a word.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) =>
    answerAndClose(socket, notImplemented('CONNECT'), secure),
  );

  return (req, res) => void current.set(req.socket, res);
}

/** Writes the error, ends our side, and destroys the socket once the client closes or after LINGER_MS. */
function answerAndClose(socket: Duplex, reply: TransportError, secure: boolean): void {
  socket.end(rawErrorResponse(reply, secure));
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
