/**
 * The token and account endpoints at 16 connections on an existing database (issue 21 item 4):
 * `POST /token`, `GET /provisioning/v0/accounts?limit=100` and `POST /provisioning/v0/accounts`,
 * the service in this process so its event loop is watched (bench/loop-watch.ts), autocannon in a
 * child process (bench/load-child.ts). Before the loads the organization is filled up to 100
 * accounts with every custom field, two labels each, so the list is a full page of 100.
 *
 *   cp bench/out/scale-10/adreport.duckdb* /tmp/p21/ && \
 *   node -r ./bench/node-threads.cjs --import tsx bench/provisioning-load.ts /tmp/p21/adreport.duckdb <clientId> <clientSecret> [--runs 3] [--seconds 10] [--only accounts?]
 *
 * Works on the copy it is given (it writes accounts). Prints one line per load: requests/s,
 * service CPU ms per request (this process's user+system time over the run / requests; of it the
 * main thread's, which is the event loop's), event
 * loop delay max and p99, the longest GC pause.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configFromEnv, mergeConfig, serviceConfigSchema } from '../src/config/config.js';
import { startService } from '../src/main.js';
import { post, root } from './lib.js';
import { watchEventLoop, type LoopWatched } from './loop-watch.js';

const [dbPath, clientId, clientSecret] = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const RUNS = flag('--runs', 3);
const SECONDS = flag('--seconds', 10);
const BIG = 1_000_000;
const LIST_ROWS = 100;

interface ChildRun {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

function loadChild(options: object, started: () => void): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'bench', 'load-child.ts'), JSON.stringify(options)],
      { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    let going = false;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!going && out.startsWith('ready\n')) {
        going = true;
        started();
        child.stdin.end('go\n');
      }
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as ChildRun) : reject(new Error(`exit ${code}`)),
    );
  });
}

/** CPU ms the calling (main) thread has run, from /proc (Linux): the event loop's own work. */
function mainThreadMs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
}

function accountBody(i: number): string {
  const custom: Record<string, string | number> = {};
  for (let f = 1; f <= 20; f++) custom[`field${f}`] = `value ${f} of account ${i}`;
  for (let f = 21; f <= 30; f++) custom[`field${f}`] = i * 1000 + f + 0.25;
  return JSON.stringify({
    account: {
      name: `Bench account ${i}`,
      languageCode: 'de',
      countryCode: 'DE',
      currency: 'EUR',
      notes: `notes of ${i}`,
      ...custom,
      labels: { clientId: `C-${i}`, tier: 'gold' },
    },
  });
}

async function main(): Promise<void> {
  if (!dbPath || !clientId || !clientSecret)
    throw new Error('usage: provisioning-load.ts <db> <clientId> <clientSecret>');
  const config = serviceConfigSchema.parse(
    mergeConfig(configFromEnv(process.env), {
      dbPath,
      host: '127.0.0.1',
      port: 0,
      rateLimit: { ratePerSecond: BIG, burst: BIG, tokenRatePerSecond: BIG, tokenBurst: BIG },
    }),
  );
  // Run with `node -r ./bench/node-threads.cjs` as `npm run bench` does: libuv's 10 threads, and
  // the query threads ranked below the event loop as `serve` ranks them.
  const nodeThreads = (globalThis as { adreportNodeThreads?: ReadonlySet<number> }).adreportNodeThreads;
  const service = await startService(config, {
    logError: (entry) => console.error('server error:', entry.error),
    nodeThreads,
  });
  try {
    const base = `https://127.0.0.1:${service.port}`;
    const ca = service.tls!.cert;
    const form = {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    const token = ((await post(`${base}/token`, form, 'grant_type=client_credentials', ca)) as { access_token: string })
      .access_token;
    const bearer = { authorization: `Bearer ${token}` };
    const json = { ...bearer, 'content-type': 'application/json' };
    // A full page of accounts with every field set (added to the copy's own accounts).
    for (let i = 0; i < LIST_ROWS; i++) await post(`${base}/provisioning/v0/accounts`, json, accountBody(i), ca);

    const loads: Array<{ name: string; options: object }> = [
      {
        name: 'POST /token',
        options: { url: `${base}/token`, method: 'POST', headers: form, body: 'grant_type=client_credentials' },
      },
      {
        name: `GET accounts?limit=${LIST_ROWS}`,
        options: { url: `${base}/provisioning/v0/accounts?limit=${LIST_ROWS}`, headers: bearer },
      },
      {
        name: 'POST accounts',
        options: { url: `${base}/provisioning/v0/accounts`, method: 'POST', headers: json, body: accountBody(1) },
      },
    ];
    const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1]! : '';
    for (const { name, options } of loads.filter((l) => l.name.includes(only))) {
      await loadChild({ ...options, connections: 16, duration: 1 }, () => undefined);
      for (let run = 0; run < RUNS; run++) {
        let stop: (() => LoopWatched) | undefined;
        let cpu: NodeJS.CpuUsage | undefined;
        let loopCpu = 0;
        const r = await loadChild({ ...options, connections: 16, duration: SECONDS }, () => {
          stop = watchEventLoop();
          cpu = process.cpuUsage();
          loopCpu = mainThreadMs();
        });
        const used = process.cpuUsage(cpu);
        const loopMs = (mainThreadMs() - loopCpu) / Math.max(1, r.requests);
        const loop = stop!();
        const cpuMs = (used.user + used.system) / 1000 / Math.max(1, r.requests);
        console.log(
          `${name} run ${run + 1}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, cpu ${cpuMs.toFixed(2)} ms/req (main thread ${loopMs.toFixed(2)}), ` +
            `loop max ${loop.maxMs.toFixed(1)} ms p99 ${loop.p99Ms.toFixed(1)} ms, longest gap ${loop.longest.ms.toFixed(0)} ms ` +
            `(ran ${loop.longest.ranMs.toFixed(0)}, waited ${loop.longest.waitedMs.toFixed(0)}), gc max ${loop.gcMaxMs.toFixed(1)} ms` +
            `${r.non2xx + r.errors > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
        );
      }
    }
  } finally {
    await service.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
