import type http from 'node:http';
import type net from 'node:net';

/**
 * Closes the connection of a response whose client takes no bytes for `timeoutMs` while the
 * server has bytes waiting for it (issue 36 item 11: a paused reader of an export kept its ~4 MB
 * buffered for ever). Node's socket timeout sees write progress (it is put off while the kernel
 * takes queued bytes), so only a client that takes nothing is cut; a server that is the slow side
 * (a long report, a query between rows) has nothing waiting and is left alone.
 */
export function closeStalledReaders(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  timeoutMs: number,
  log: (line: string) => void,
): void {
  res.setTimeout(timeoutMs, () => {
    const socket = res.socket;
    if (!socket || socket.destroyed) return;
    const waiting = bytesWaiting(socket, res);
    if (waiting === 0) return;
    const requestId = req.headers['x-request-id'];
    log(
      `closed the connection of ${req.method} ${pathOf(req.url)}${typeof requestId === 'string' ? ` (X-Request-Id ${requestId.slice(0, 200)})` : ''}: the client took no bytes for ${timeoutMs / 1000} s with ${waiting} bytes waiting (ADREPORT_WRITE_IDLE_TIMEOUT_MS)`,
    );
    socket.destroy();
  });
}

/** Bytes written but not yet taken by the kernel: in the response, the socket, and the socket's native write queue. */
function bytesWaiting(socket: net.Socket, res: http.ServerResponse): number {
  const queued = (socket as net.Socket & { _handle?: { writeQueueSize?: number } | null })._handle?.writeQueueSize ?? 0;
  return res.writableLength + socket.writableLength + queued;
}

/** The path without the query (which may carry a filter the log need not keep). */
function pathOf(url: string | undefined): string {
  return (url ?? '').split('?')[0]!.slice(0, 300);
}
