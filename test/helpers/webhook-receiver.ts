import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { selfSignedPair } from '../../src/http/tls.js';

/** One request as the receiver got it: the raw body is what a signature covers. */
export interface Received {
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly at: number;
  /** What the receiver answered. */
  readonly status: number;
}

/**
 * A local HTTPS receiver on 127.0.0.1 with a self-signed pair made like the service's own
 * (selfSignedPair; for `hostName`, localhost by default), for ADREPORT_WEBHOOK_ALLOW_PRIVATE=true
 * or a lookup that answers 127.0.0.1. `answer` decides each status (default 200); `hold` leaves
 * requests unanswered (a receiver that hangs).
 */
export interface Receiver {
  readonly url: string;
  readonly caFile: string;
  readonly received: Received[];
  answer: (request: { path: string; body: string; seen: number }) => number | 'hold';
  close(): Promise<void>;
}

export async function startReceiver(dir: string, hostName = 'localhost'): Promise<Receiver> {
  const tls = await selfSignedPair(Date.now(), [hostName]);
  const held: Array<() => void> = [];
  const seenPerKey = new Map<string, number>();
  const receiver: Receiver = {
    url: '',
    caFile: path.join(dir, `receiver-${hostName}.pem`),
    received: [],
    answer: () => 200,
    close: async () => undefined,
  };
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const key = `${req.url} ${req.headers['adreport-event-id'] as string}`;
      const seen = (seenPerKey.get(key) ?? 0) + 1;
      seenPerKey.set(key, seen);
      const status = receiver.answer({ path: req.url ?? '', body, seen });
      if (status === 'hold') {
        held.push(() => res.destroy());
        return;
      }
      receiver.received.push({ path: req.url ?? '', headers: req.headers, body, at: Date.now(), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(receiver, {
    url: `https://${hostName}:${port}`,
    close: async () => {
      for (const release of held) release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(receiver.caFile, tls.cert, { mode: 0o644 });
  return receiver;
}

/**
 * The receiver's check, written from the README's description of Adreport-Signature alone:
 * "t=<unix seconds>, v1=<hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the secret>"; refuse a
 * timestamp more than 5 minutes away.
 */
export function verifySignature(secret: string, header: string, rawBody: string, nowSeconds: number): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.trim().split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300 || !parts.v1) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${parts.t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
