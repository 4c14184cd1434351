/**
 * Restart time after a crash under write load (issue 19, item 23).
 *
 *   node --import tsx bench/crash-restart.ts [--root DIR] [--rounds 16] [--load-seconds 3] [--writers 8]
 *
 * Runs the real bin (`DIR/dist/cli.cjs serve`, DIR defaults to this checkout; build it first) on a
 * fresh database, then per round: account creates from `--writers` concurrent clients for
 * `--load-seconds`, kill -9 in the middle of them, start again and time from spawn to the first
 * 200 on /health. Prints one line per round (restart ms, WAL bytes left by the crash and after
 * the restart, acknowledged writes) and a summary. Only Node built-ins, so it runs unchanged
 * against an older checkout (`--root` a git worktree of the base commit).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: process.cwd() },
    rounds: { type: 'string', default: '16' },
    'load-seconds': { type: 'string', default: '3' },
    writers: { type: 'string', default: '8' },
    /** Stop after the last kill -9 (no restart) and keep the database, to look at what a crash leaves. */
    'keep-crashed': { type: 'boolean', default: false },
  },
});
const root = path.resolve(values.root!);
const rounds = Number(values.rounds);
const loadMs = Number(values['load-seconds']) * 1000;
const writers = Number(values.writers);
const bin = path.join(root, 'dist', 'cli.cjs');
if (!fs.existsSync(bin))
  throw new Error(`${bin} is missing: build that checkout first (npx tsc -p tsconfig.build.json)`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-crash-'));
const db = path.join(dir, 'adreport.duckdb');
const wal = `${db}.wal`;
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: writers + 2 });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function request(
  port: number,
  method: string,
  pathName: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, method, path: pathName, headers, agent, servername: 'localhost' },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function serve(port: number, demo: boolean): { child: ChildProcess; exited: Promise<void>; stdout: Promise<string> } {
  const args = [
    bin,
    'serve',
    '--json',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--db',
    db,
    ...(demo ? ['--demo'] : []),
  ];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      ADREPORT_DEMO_DATA: 'false',
      ADREPORT_RATE_LIMIT_PER_SECOND: '1000000',
      ADREPORT_RATE_LIMIT_BURST: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stdout = new Promise<string>((resolve) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]!);
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, stdout };
}

/** Polls /health every 5 ms from the moment of the spawn; the restart time is spawn -> first 200. */
async function untilHealthy(port: number, started: number, child: ChildProcess): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before /health answered`);
    try {
      if ((await request(port, 'GET', '/health', {})).status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 120_000) throw new Error('no /health within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function token(port: number, clientId: string, clientSecret: string): Promise<string> {
  const res = await request(
    port,
    'POST',
    '/token',
    {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    'grant_type=client_credentials',
  );
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return (JSON.parse(res.text) as { access_token: string }).access_token;
}

/** Writers post accounts until `stop`; counts the creates acknowledged with 201. */
async function writeLoad(port: number, bearer: string, stop: { now: boolean }, round: number): Promise<number> {
  let acknowledged = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; !stop.now; i++) {
        const body = JSON.stringify({
          account: {
            name: `Crash ${round}-${w}-${i}`,
            languageCode: 'de',
            countryCode: 'DE',
            currency: 'EUR',
            notes: 'x'.repeat(200),
          },
        });
        try {
          const res = await request(
            port,
            'POST',
            '/provisioning/v0/accounts',
            { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
            body,
          );
          if (res.status === 201) acknowledged++;
        } catch {
          return; // the server died under us
        }
      }
    }),
  );
  return acknowledged;
}

const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

const times: number[] = [];
let port = await freePort();
let server = serve(port, true);
const demo = (JSON.parse(await server.stdout) as { demo: { clientId: string; clientSecret: string } }).demo;
console.log(`root ${root}, ${rounds} rounds of ${loadMs} ms write load from ${writers} writers, database ${db}`);
console.log('| round | restart ms | WAL after kill (KiB) | WAL after restart (KiB) | acknowledged creates |');
console.log('|---:|---:|---:|---:|---:|');
for (let round = 1; round <= rounds; round++) {
  const bearer = await token(port, demo.clientId, demo.clientSecret);
  const stop = { now: false };
  const load = writeLoad(port, bearer, stop, round);
  await new Promise((resolve) => setTimeout(resolve, loadMs));
  // Killed while the writers are still sending: the crash lands between and inside transactions.
  server.child.kill('SIGKILL');
  await server.exited;
  stop.now = true;
  const acknowledged = await load;
  const walAfterKill = size(wal);
  if (values['keep-crashed'] && round === rounds) {
    console.log(
      `kept the crashed database: ${db} (WAL ${Math.round(walAfterKill / 1024)} KiB, ${acknowledged} acknowledged creates in the last round)`,
    );
    process.exit(0);
  }
  port = await freePort();
  const started = performance.now();
  server = serve(port, false);
  const ms = await untilHealthy(port, started, server.child);
  times.push(ms);
  console.log(
    `| ${round} | ${Math.round(ms)} | ${Math.round(walAfterKill / 1024)} | ${Math.round(size(wal) / 1024)} | ${acknowledged} |`,
  );
}
server.child.kill('SIGTERM');
await server.exited;
agent.destroy();
const sorted = [...times].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)]!;
console.log(
  `restart ms: first ${Math.round(times[0]!)}, last ${Math.round(times.at(-1)!)}, median ${Math.round(median)}, max ${Math.round(sorted.at(-1)!)}; database ${Math.round(size(db) / 1024)} KiB`,
);
fs.rmSync(dir, { recursive: true, force: true });
