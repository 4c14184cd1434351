import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../helpers/poll.js';
import { startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/*
 * Issue 36 item 11: a client that stops reading an export. The export stops at the idle timeout
 * (query interrupted, slot freed) and ends with its documented error line after what was already
 * buffered; a client that still takes nothing is disconnected at the write-idle timeout, and the
 * log says why. A real TLS socket that stops reading (paused: its receive buffer fills, then the
 * server's send buffer); waits are polls for the server's side of it, never fixed sleeps.
 */
const IDLE_MS = 1_000;
/** ~19 MB of NDJSON on this world, far more than the pipe, socket and kernel buffers hold (~4.5 MB). */
const HEAVY = new URLSearchParams([
  ['segments', 'Day,DeviceType'],
  ...Array.from(
    { length: 8 },
    (_, i) =>
      [
        'formulas',
        `formula_${String(i).padStart(2, '0')}_${'x'.repeat(52)}:statistics.cost*${i + 1}+statistics.impressions/${i + 2}:Money`,
      ] as [string, string],
  ),
  ['format', 'ndjson'],
]).toString();

interface Reader {
  readonly received: Buffer[];
  readonly closed: Promise<void>;
  resume(): void;
}

/** GET over a raw TLS socket that stops reading once the head and some body have arrived. */
async function stallingReader(fx: ReportingFixture, token: string, target: string): Promise<Reader> {
  const socket = tls.connect({
    host: '127.0.0.1',
    port: fx.service.port,
    ca: fx.service.tls!.cert,
    servername: 'localhost',
  });
  await new Promise((resolve) => socket.once('secureConnect', resolve));
  const received: Buffer[] = [];
  let size = 0;
  let paused = false;
  const started = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      size += chunk.length;
      if (!paused && size >= 64 * 1024) {
        paused = true;
        socket.pause();
        resolve();
      }
    });
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.write(
    `GET ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
      `Accept-Encoding: identity\r\nX-Request-Id: stalled-reader\r\nConnection: close\r\n\r\n`,
  );
  await started;
  return { received, closed, resume: () => socket.resume() };
}

/** The head and the de-chunked body of what arrived (a body cut inside a chunk keeps what came). */
function parse(bytes: Buffer): { head: string; body: Buffer; complete: boolean } {
  const end = bytes.indexOf('\r\n\r\n');
  const head = bytes.subarray(0, end).toString('latin1');
  const parts: Buffer[] = [];
  let at = end + 4;
  for (;;) {
    const line = bytes.indexOf('\r\n', at);
    if (line < 0) return { head, body: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(bytes.subarray(at, line).toString('latin1'), 16);
    if (size === 0) return { head, body: Buffer.concat(parts), complete: true };
    parts.push(bytes.subarray(line + 2, Math.min(line + 2 + size, bytes.length)));
    if (line + 2 + size + 2 > bytes.length) return { head, body: Buffer.concat(parts), complete: false };
    at = line + 2 + size + 2;
  }
}

/** Polls until an export of the organization is admitted again: the stalled one has let its slot go. */
async function slotFreed(fx: ReportingFixture, token: string): Promise<void> {
  await poll('the stalled export frees its slot', async () => {
    const res = await fx.get('/reporting/v0/accounts?format=csv', token);
    return res.status === 200 ? true : undefined;
  });
}

const TRAILER = `{"error":{"code":"export_failed","message":"the client took no data for ${IDLE_MS / 1000} s"}}\n`;

describe('an export whose client stops reading', () => {
  let fx: ReportingFixture;
  beforeAll(async () => {
    fx = await startReportingFixture({
      world: 'small-2orgs-30d',
      // The write-idle timeout far away: this client reads again before it.
      service: {
        exports: { maxConcurrent: 1, maxPerOrganization: 1, idleTimeoutMs: IDLE_MS },
        http: { writeIdleTimeoutMs: 600_000 },
      },
    });
  });
  afterAll(() => fx.close());

  it('stops at the idle timeout, and a client that reads again gets what was buffered, then the error line', async () => {
    const token = fx.orgs[0]!.token;
    const reader = await stallingReader(fx, token, `/reporting/v0/keywords?${HEAVY}`);
    await slotFreed(fx, token);
    reader.resume();
    await reader.closed;
    const { head, body, complete } = parse(Buffer.concat(reader.received));
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(complete).toBe(true);
    const text = body.toString('utf8');
    expect(text.endsWith(`\n${TRAILER}`)).toBe(true);
    // Rows before it are whole NDJSON rows, but for a last one the stop may have cut.
    const rows = text.slice(0, -TRAILER.length - 1).split('\n');
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows.slice(0, -1)) expect(JSON.parse(row)).toHaveProperty('statistics');
    // Far less than the whole export (~19 MB): the query stopped.
    expect(body.length).toBeLessThan(15_000_000);
    expect(fx.errors).toEqual([]);
  });
});

describe('an export whose client never reads again', () => {
  let fx: ReportingFixture;
  beforeAll(async () => {
    fx = await startReportingFixture({
      world: 'small-2orgs-30d',
      service: {
        exports: { maxConcurrent: 1, maxPerOrganization: 1, idleTimeoutMs: IDLE_MS },
        http: { writeIdleTimeoutMs: 1_500 },
      },
    });
  });
  afterAll(() => fx.close());

  it('is disconnected at the write-idle timeout, and the log says why', async () => {
    const token = fx.orgs[0]!.token;
    const reader = await stallingReader(fx, token, `/reporting/v0/keywords?${HEAVY}`);
    const line = await poll('the server closes the stalled connection', () =>
      fx.logs.find((l) => l.includes('X-Request-Id stalled-reader')),
    );
    expect(line).toMatch(
      /^closed the connection of GET \/reporting\/v0\/keywords \(X-Request-Id stalled-reader\): the client took no bytes for 1\.5 s with \d+ bytes waiting/,
    );
    await slotFreed(fx, token);
    // What the kernel had taken still arrives; the response is cut (no last chunk).
    reader.resume();
    await reader.closed;
    const { head, complete } = parse(Buffer.concat(reader.received));
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(complete).toBe(false);
    expect(fx.errors).toEqual([]);
  });
});
