import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv, mergeConfig, serviceConfigSchema } from '../../src/config/config.js';
import { startServe, type ServeProcess } from '../helpers/cli.js';
import { poll } from '../helpers/poll.js';
import { tempDir } from '../helpers/server.js';

/**
 * Connections that never become HTTP (issue 19 item 16), against the real bin: descriptors are
 * counted in /proc/<pid>/fd of the server process.
 */
const HANDSHAKE_TIMEOUT_MS = 1_500;
/**
 * A timeout far past the test's ceiling: what only such a timeout could end makes the test time
 * out, so the tests wait for events and assert no durations.
 */
const LONG_MS = '600000';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Served extends ServeProcess {
  /** Status of GET /health on a fresh connection (from 127.0.0.1). */
  health(): Promise<number>;
  /** Open descriptors of the server process. */
  fds(): number;
}

async function serve(env: Record<string, string>): Promise<Served> {
  const dir = tempDir();
  const server = await startServe(['--db', path.join(dir, 'a.duckdb')], {
    ADREPORT_TLS_HANDSHAKE_TIMEOUT_MS: String(HANDSHAKE_TIMEOUT_MS),
    ...env,
  });
  cleanups.push(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const ca = fs.readFileSync(path.join(dir, 'a.duckdb.tls', 'cert.pem'), 'utf8');
  return {
    ...server,
    fds: () => fs.readdirSync(`/proc/${server.child.pid}/fd`).length,
    health: () =>
      new Promise((resolve, reject) => {
        const req = https.get(`${server.listening.url}/health`, { ca, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
      }),
  };
}

interface Held {
  socket: net.Socket;
  /** Resolves with how long the server let the connection live, and whether it was reset. */
  closed: Promise<{ afterMs: number; error: string | undefined }>;
}

/** A TCP connection to the port that sends `bytes` (or nothing) and then waits. */
function hold(port: number, options: { bytes?: Buffer; localAddress?: string; drip?: Buffer } = {}): Promise<Held> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: options.localAddress });
    cleanups.push(() => void socket.destroy());
    let error: string | undefined;
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    let drip: NodeJS.Timeout | undefined;
    const closed = new Promise<{ afterMs: number; error: string | undefined }>((done) =>
      socket.on('close', () => {
        clearInterval(drip);
        done({ afterMs: Date.now() - started, error });
      }),
    );
    socket.on('data', () => undefined);
    socket.once('connect', () => {
      if (options.bytes) socket.write(options.bytes);
      if (options.drip) {
        let i = 0;
        const bytes = options.drip;
        drip = setInterval(() => i < bytes.length && socket.writable && socket.write(bytes.subarray(i, ++i)), 300);
      }
      resolve({ socket, closed });
    });
    // A reset at accept may beat the 'connect' event: the connection was still made, and refused.
    void closed.then(() => resolve({ socket, closed }));
  });
}

/** GET /health until it answers: a closed connection may still count for a moment on the server's side. */
function healthOnceFree(server: Served): Promise<number> {
  return poll('GET /health once the held connections are gone', () =>
    server.health().catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') return undefined;
      throw error;
    }),
  );
}

/**
 * Connects from `localAddress` until a connection stays open for `openMs`: one reset while the
 * server has not yet seen an earlier connection of the address close is retried.
 */
function holdOnceAdmitted(port: number, localAddress: string, openMs: number): Promise<Held> {
  return poll(`a connection from ${localAddress} that stays open`, async () => {
    const held = await hold(port, { localAddress });
    const open = await Promise.race([
      held.closed.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), openMs)),
    ]);
    return open ? held : undefined;
  });
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

// The first 5 bytes of a TLS record carrying a ClientHello (0x16 = handshake), promising 512 bytes that never come.
const PARTIAL_CLIENT_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]);
// A full record header and a ClientHello start, sent one byte every 300 ms: never idle for long.
const DRIPPED_CLIENT_HELLO = Buffer.concat([
  PARTIAL_CLIENT_HELLO,
  Buffer.from([0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
  Buffer.alloc(64, 7),
]);

describe('connections that never become HTTP', () => {
  it('are closed after the TLS handshake timeout, and descriptors return to the baseline', async () => {
    const server = await serve({});
    expect(await server.health()).toBe(200);
    await until(() => false, 300);
    const baseline = server.fds();

    const silent = await Promise.all(Array.from({ length: 60 }, () => hold(server.listening.port)));
    const partial = await Promise.all(
      Array.from({ length: 60 }, () => hold(server.listening.port, { bytes: PARTIAL_CLIENT_HELLO })),
    );
    const dripping = await Promise.all(
      Array.from({ length: 5 }, () => hold(server.listening.port, { drip: DRIPPED_CLIENT_HELLO })),
    );
    const held = [...silent, ...partial, ...dripping];
    expect(await until(() => server.fds() >= baseline + held.length, 30_000)).toBe(true);

    // The service keeps answering while they are open.
    expect(await server.health()).toBe(200);

    const lifetimes = await Promise.all(held.map((h) => h.closed));
    // Closed by the timeout: not before it; after it as soon as a busy machine gets to it.
    for (const { afterMs } of lifetimes) {
      expect(afterMs).toBeGreaterThanOrEqual(HANDSHAKE_TIMEOUT_MS - 100);
      expect(afterMs).toBeLessThan(HANDSHAKE_TIMEOUT_MS + 30_000);
    }
    expect(
      await until(() => server.fds() <= baseline, 30_000),
      `${server.fds()} descriptors, baseline ${baseline}`,
    ).toBe(true);
  });

  it('do not hold up a graceful stop', async () => {
    // Both timeouts far past the test's ceiling: connections that held the stop up would make it
    // wait for one of them, so the test would time out instead of seeing the exit.
    const server = await serve({ ADREPORT_TLS_HANDSHAKE_TIMEOUT_MS: LONG_MS, ADREPORT_SHUTDOWN_TIMEOUT_MS: LONG_MS });
    // The variable reaches the setting (with the default 10 s the stop would end in time anyway).
    expect(
      serviceConfigSchema.parse(mergeConfig(configFromEnv({ ADREPORT_SHUTDOWN_TIMEOUT_MS: LONG_MS }), {}))
        .shutdownTimeoutMs,
    ).toBe(600_000);
    const held = await Promise.all([
      ...Array.from({ length: 5 }, () => hold(server.listening.port)),
      ...Array.from({ length: 5 }, () => hold(server.listening.port, { bytes: PARTIAL_CLIENT_HELLO })),
    ]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // The stop closed every one of them: their 'close' comes, long before the handshake timeout could.
    await Promise.all(held.map((h) => h.closed));
  });

  it('resets a remote address over its connection cap while other addresses are served', async () => {
    const server = await serve({ ADREPORT_MAX_CONNECTIONS_PER_IP: '20', ADREPORT_TLS_HANDSHAKE_TIMEOUT_MS: LONG_MS });
    const held = await Promise.all(
      Array.from({ length: 20 }, () => hold(server.listening.port, { localAddress: '127.0.0.2' })),
    );
    const over = await hold(server.listening.port, { localAddress: '127.0.0.2' });
    const refused = await over.closed;
    // Reset by the cap: the handshake timeout (LONG_MS) would come only after the test's ceiling.
    expect(refused.error).toBe('ECONNRESET');
    // Another address is not affected.
    expect(await server.health()).toBe(200);
    // The first 20 are still open; once one closes, the address may connect again.
    const stillOpen = await Promise.race([
      held[0]!.closed.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 300)),
    ]);
    expect(stillOpen).toBe(true);
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const again = await holdOnceAdmitted(server.listening.port, '127.0.0.2', 500);
    for (const h of [...held, again]) h.socket.destroy();
  });

  it('resets connections over the total cap, and serves again when they are gone', async () => {
    const server = await serve({ ADREPORT_MAX_CONNECTIONS: '30', ADREPORT_TLS_HANDSHAKE_TIMEOUT_MS: LONG_MS });
    const held = await Promise.all(
      Array.from({ length: 30 }, (_, i) => hold(server.listening.port, { localAddress: `127.0.1.${i + 1}` })),
    );
    const over = await hold(server.listening.port, { localAddress: '127.0.2.1' });
    // Reset by the cap, not the handshake timeout (LONG_MS, after the test's ceiling).
    await over.closed;
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    expect(await healthOnceFree(server)).toBe(200);
  });
});
