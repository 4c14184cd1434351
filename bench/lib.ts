/** Shared pieces of the load benchmarks: the server process, HTTPS posts, autocannon runs, tables. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CONNECTIONS = 16;

export interface Listening {
  port: number;
  demo: { clientId: string; clientSecret: string } | null;
}
export interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}
/** A run of bench/run.ts's load children (median requests over the runs). */
export interface LoadRun extends Run {
  requests: number;
  /** bench/run.ts: the service's CPU over the run (absent in results written before it was measured). */
  cpu?: CpuCost;
}

/** What requests cost the server that answered them: its CPU time over a measurement's window. */
export interface CpuCost {
  /** CPU ms of the server's process (or process tree) over the window. */
  ms: number;
  /** Requests (or queries, transactions) answered in the window. */
  requests: number;
  /** ms / requests. */
  msPerRequest: number;
}

export const cpuCost = (ms: number, requests: number): CpuCost => ({ ms, requests, msPerRequest: ms / requests });

/** The median of each field over runs (each its own median, as the other measures of a run are). */
export const medianCpu = (costs: readonly CpuCost[]): CpuCost => ({
  ms: median(costs.map((c) => c.ms)),
  requests: median(costs.map((c) => c.requests)),
  msPerRequest: median(costs.map((c) => c.msPerRequest)),
});

/** Spawns `adreport serve` with rate limits lifted and resolves with its `listening` line (or rejects if it exits first). */
export function startServer(
  dbPath: string,
  extraArgs: readonly string[] = [],
  /** The checkout whose dist/cli.cjs serves (another worktree: the code before a change). */
  checkout: string = root,
): { child: ChildProcess; ready: Promise<Listening> } {
  const big = '1000000';
  const child = spawn(
    process.execPath,
    ['dist/cli.cjs', 'serve', ...extraArgs, '--json', '--port', '0', '--host', '127.0.0.1', '--db', dbPath],
    {
      cwd: checkout,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        // The demo accounts' background backfill would load the machine during the measurement.
        ADREPORT_DEMO_DATA: 'false',
        ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: big,
        ADREPORT_TOKEN_RATE_LIMIT_BURST: big,
        ADREPORT_RATE_LIMIT_PER_SECOND: big,
        ADREPORT_RATE_LIMIT_BURST: big,
      },
    },
  );
  const ready = new Promise<Listening>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited early (code ${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { event?: string } & Listening;
        if (msg.event === 'listening') resolve(msg);
      } catch {
        /* not JSON: ignore */
      }
    });
  });
  return { child, ready };
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** One POST over node:https, trusting only the server's self-signed cert. */
export function post(url: string, headers: Record<string, string>, body: string, ca: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, {
      method: 'POST',
      ca,
      headers: { ...headers, 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', reject).on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`POST ${url} -> ${res.statusCode}: ${text}`));
        else resolve(JSON.parse(text));
      });
    });
    req.end(body);
  });
}

/** An access token of a client (client credentials grant) over node:https. */
export async function clientToken(
  base: string,
  ca: string,
  client: { clientId: string; clientSecret: string },
): Promise<string> {
  const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
  const answer = (await post(`${base}/token`, form, 'grant_type=client_credentials', ca)) as { access_token: string };
  return answer.access_token;
}

/** One autocannon run. autocannon always connects with rejectUnauthorized: false. */
export async function load(opts: autocannon.Options, durationSeconds: number): Promise<Run> {
  const r = await autocannon({ connections: CONNECTIONS, duration: durationSeconds, ...opts });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/**
 * A load child's handshake with bench/run.ts: say "ready" once loaded, then wait for a line on
 * stdin. Starting a process is a fork of the bench process, which serves and holds gigabytes of
 * DuckDB's buffers; that fork blocked the event loop being watched for 20-130 ms per run.
 */
export async function readyThenWaitForGo(): Promise<void> {
  console.log('ready');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export function table(results: Record<string, Run[]>): string {
  const rows = [
    '| endpoint | run | req/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  const row = (name: string, label: string, r: Run) =>
    `| ${name} | ${label} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`;
  for (const [name, runs] of Object.entries(results)) {
    runs.forEach((r, i) => rows.push(row(name, String(i + 1), r)));
    const med: Run = {
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
      errors: runs.reduce((a, r) => a + r.errors, 0),
    };
    rows.push(row(`**${name}**`, '**median**', med));
  }
  return rows.join('\n');
}

/** Runs each target RUNS times after a 1 s warm-up; logs each run on stderr. */
export async function measure(
  targets: Record<string, autocannon.Options>,
  runs: number,
  durationSeconds: number,
): Promise<Record<string, Run[]>> {
  const results: Record<string, Run[]> = {};
  for (const [name, opts] of Object.entries(targets)) {
    await load(opts, 1);
    results[name] = [];
    for (let i = 0; i < runs; i++) {
      const r = await load(opts, durationSeconds);
      results[name].push(r);
      console.error(`${name} run ${i + 1}/${runs}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms`);
    }
  }
  return results;
}

/**
 * Prints the table, writes bench/out/<name>.md with the machine and the run's facts, and
 * returns the exit code: 1 when any run had non-2xx responses, errors or no throughput.
 */
export function report(name: string, facts: readonly string[], results: Record<string, Run[]>): number {
  const md = table(results);
  console.log(md);
  const cpus = os.cpus();
  const outDir = path.join(root, 'bench', 'out');
  mkdirSync(outDir, { recursive: true });
  const header = [
    `# ${name}`,
    '',
    `- date: ${new Date().toISOString()}`,
    ...facts.map((fact) => `- ${fact}`),
    `- cpu: ${cpus[0]?.model ?? 'unknown'} (${cpus.length} cores), ${os.platform()} ${os.release()}, node ${process.version}`,
  ];
  writeFileSync(path.join(outDir, `${name}.md`), [...header, '', md, ''].join('\n'));
  const bad = Object.values(results)
    .flat()
    .some((r) => r.non2xx > 0 || r.errors > 0 || r.rps === 0);
  if (bad) console.error('FAIL: some runs had non-2xx responses or errors');
  return bad ? 1 : 0;
}

/** The port of a `serve --json` child, from its `listening` line; rejects if it exits first. */
export function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited early (code ${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { event?: string; port: number };
        if (msg.event === 'listening') resolve(msg.port);
      } catch {
        /* not JSON */
      }
    });
  });
}

const oneAtATime = new https.Agent({ keepAlive: true, maxSockets: 1 });

/** A GET on one kept-alive connection (a client that waits for each answer): its status and time. */
export function timedGet(url: string, token: string, ca: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, agent: oneAtATime, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      })
      .on('error', reject);
  });
}

/**
 * The self-signed certificate `serve` made for a database: beside it (`<db>.tls/`, issue 36), or
 * where a release before that put it (`<db dir>/tls/`), so a `--root` of older code is measured too.
 */
export function certificateOf(dbPath: string): string {
  const beside = `${dbPath}.tls/cert.pem`;
  return readFileSync(existsSync(beside) ? beside : path.join(path.dirname(dbPath), 'tls', 'cert.pem'), 'utf8');
}

/** Closes timedGet's connection, so the process can end. */
export function closeTimedGets(): void {
  oneAtATime.destroy();
}

/** The p-th percentile (nearest rank) of xs; NaN for none. */
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
