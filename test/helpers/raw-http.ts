import net from 'node:net';
import tls from 'node:tls';

export interface RawResponse {
  /** 0 when the server sent nothing before closing. */
  status: number;
  headers: Record<string, string>;
  body: string;
  json: any;
  /**
   * How the exchange ended: a whole response arrived (and `untilClose` was not asked), the
   * server closed, the client gave up waiting, or a socket error.
   */
  ended: 'complete' | 'closed' | 'waited' | `error ${string}`;
  elapsedMs: number;
}

export interface RawExchange {
  /** Written at once after connecting, byte for byte. */
  text?: string | Buffer;
  /** Written one after another, `intervalMs` apart, after `text` (a slow client). */
  drip?: { chunks: Array<string | Buffer>; intervalMs: number };
  /** Stop waiting after this long (the server may hold the connection). */
  waitMs?: number;
  /** Wait for the server to close the connection, not just for a whole response. */
  untilClose?: boolean;
}

/**
 * Sends bytes over TLS exactly as given (no client library fixing them up) and reads the
 * answer until the server closes or `waitMs` passes.
 */
export function rawTls(port: number, ca: string, exchange: RawExchange): Promise<RawResponse> {
  return rawExchange(
    () => tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }),
    'secureConnect',
    exchange,
  );
}

/** The same over plain TCP. */
export function rawTcp(port: number, exchange: RawExchange): Promise<RawResponse> {
  return rawExchange(() => net.connect({ host: '127.0.0.1', port }), 'connect', exchange);
}

function rawExchange(connect: () => net.Socket, readyEvent: string, exchange: RawExchange): Promise<RawResponse> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect();
    const chunks: Buffer[] = [];
    let drip: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (ended: RawResponse['ended']) => {
      if (done) return;
      done = true;
      clearInterval(drip);
      clearTimeout(waiting);
      socket.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks).toString('utf8')), ended, elapsedMs: Date.now() - started });
    };
    const waiting = setTimeout(() => finish('waited'), exchange.waitMs ?? 5_000);
    socket.on(readyEvent, () => {
      if (exchange.text !== undefined) socket.write(exchange.text);
      const pending = [...(exchange.drip?.chunks ?? [])];
      if (pending.length > 0) {
        drip = setInterval(() => {
          const next = pending.shift();
          if (next === undefined) return clearInterval(drip);
          if (socket.writable) socket.write(next);
        }, exchange.drip!.intervalMs);
      }
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (!exchange.untilClose && isComplete(Buffer.concat(chunks).toString('utf8'))) finish('complete');
    });
    socket.on('close', () => finish('closed'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(chunks.length > 0 ? 'closed' : `error ${error.code ?? error.message}`),
    );
  });
}

function isComplete(text: string): boolean {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return false;
  if (/^HTTP\/1\.[01] (204|304)/.test(text)) return true;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split + 2))?.[1];
  return length !== undefined && Buffer.byteLength(text.slice(split + 4)) >= Number(length);
}

export function parseResponse(text: string): Pick<RawResponse, 'status' | 'headers' | 'body' | 'json'> {
  const split = text.indexOf('\r\n\r\n');
  const head = split >= 0 ? text.slice(0, split) : text;
  const body = split >= 0 ? text.slice(split + 4) : '';
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let json: unknown;
  try {
    json = body === '' ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body, json };
}
