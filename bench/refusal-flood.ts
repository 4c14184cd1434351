/**
 * What a flood of refusals costs other tenants (issue 36 item 9): organization A's client
 * floods `GET /provisioning/v0/organization` at N connections, far past its per-client bucket,
 * so nearly every answer is 429; organization B asks `GET /organization` at a steady pace under
 * its own bucket, one request at a time. B's p50/p99 idle vs during the flood, and their ratios.
 *
 *   npm run build && node --import tsx bench/refusal-flood.ts [--root DIR] [--seconds S]
 *     [--connections N] [--cpu-prof DIR]
 *
 * No generated data: a fresh database with two organizations and a client each (made with the
 * bin's `orgs create` / `clients create`). `--root` is the checkout whose dist/cli.cjs serves
 * (default this one), so the code before a change is measured by this same bench on the same
 * machine in the same session. `--cpu-prof DIR` writes the server's V8 CPU profile there.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { certificateOf, clientToken, closeTimedGets, listeningPort, percentile, root, timedGet } from './lib.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ORGANIZATION = '/provisioning/v0/organization';

if (process.argv[2] === 'flood') {
  // The flooding client, in a process of its own so that it does not delay B's measurement.
  const [, , , url, token, connections, seconds] = process.argv;
  const result = await autocannon({
    url: `${url!}${ORGANIZATION}`,
    connections: Number(connections),
    duration: Number(seconds),
    headers: { authorization: `Bearer ${token}` },
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  console.log(JSON.stringify({ rps: result.requests.average, statuses, errors: result.errors + result.timeouts }));
  process.exit(0);
}

const checkout = path.resolve(arg('root') ?? root);
const seconds = Number(arg('seconds') ?? 15);
const connections = Number(arg('connections') ?? 64);
const cpuProf = arg('cpu-prof');
/** B's pace: 25 requests a second, well under the default bucket (50/s, burst 100). */
const B_INTERVAL_MS = 40;

const dir = mkdtempSync(path.join(os.tmpdir(), 'adreport-refusal-flood-'));
const dbPath = path.join(dir, 'adreport.duckdb');
const bin = path.join(checkout, 'dist/cli.cjs');

function admin(...args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [bin, ...args, '--db', dbPath, '--json'], {
    cwd: checkout,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`adreport ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

function newClient(name: string): { clientId: string; clientSecret: string } {
  const org = (admin('orgs', 'create', '--name', name).organization as { id: number }).id;
  return admin('clients', 'create', '--org', String(org), '--scopes', 'provisioning') as {
    clientId: string;
    clientSecret: string;
  };
}

function startServer(): { child: ChildProcess; port: Promise<number> } {
  const child = spawn(
    process.execPath,
    [
      ...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : []),
      bin,
      'serve',
      '--json',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--db',
      dbPath,
    ],
    // The per-client limits stay at their defaults (50/s, burst 100): A is refused, B is not.
    { cwd: checkout, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ADREPORT_DEMO_DATA: 'false' } },
  );
  return { child, port: listeningPort(child) };
}

/** B's GET /organization every B_INTERVAL_MS (or as soon as the previous answer came), for `ms`. */
async function measureB(url: string, token: string, ca: string, ms: number) {
  const times: number[] = [];
  const statuses = new Map<number, number>();
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const next = performance.now() + B_INTERVAL_MS;
    const r = await timedGet(url, token, ca);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    times.push(r.ms);
    const wait = next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return {
    n: times.length,
    p50: +percentile(times, 50).toFixed(1),
    p99: +percentile(times, 99).toFixed(1),
    statuses: Object.fromEntries(statuses),
  };
}

const clientA = newClient('A (floods)');
const clientB = newClient('B (measured)');
const { child, port } = startServer();
try {
  const base = `https://127.0.0.1:${await port}`;
  const ca = certificateOf(dbPath);
  const [tokenA, tokenB] = [await clientToken(base, ca, clientA), await clientToken(base, ca, clientB)];
  await measureB(`${base}${ORGANIZATION}`, tokenB, ca, 2000); // warm-up
  const idle = await measureB(`${base}${ORGANIZATION}`, tokenB, ca, seconds * 1000);
  const flooder = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(root, 'bench/refusal-flood.ts'),
      'flood',
      base,
      tokenA,
      String(connections),
      String(seconds + 3),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' } },
  );
  let floodOut = '';
  flooder.stdout!.on('data', (d: Buffer) => (floodOut += d.toString()));
  const floodDone = new Promise((resolve) => flooder.once('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 2000)); // the flood is at full rate first
  const flooded = await measureB(`${base}${ORGANIZATION}`, tokenB, ca, seconds * 1000);
  await floodDone;
  const flood = JSON.parse(floodOut.trim().split('\n').pop()!) as unknown;
  const ratio = (a: number, b: number) => +(a / b).toFixed(2);
  console.log(
    JSON.stringify(
      {
        checkout,
        seconds,
        connections,
        idle,
        flooded,
        flood,
        p50Ratio: ratio(flooded.p50, idle.p50),
        p99Ratio: ratio(flooded.p99, idle.p99),
      },
      null,
      1,
    ),
  );
} finally {
  closeTimedGets();
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
