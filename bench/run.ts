/**
 * `npm run bench [-- --quick]`: the service against the engine floor and a PostgreSQL peer, side
 * by side, in one run (issue 10).
 *
 * - micro: parse + plan + compile of representative requests (tinybench);
 * - load: a fixed mix of report requests over HTTPS (autocannon in a child process) at 1, 16 and
 *   64 connections, each request type alone at 1 connection, a constant-rate open-loop run at
 *   half of saturation (bench/open-loop-child.ts), and the token and account endpoints; the
 *   service runs in this process so its event loop can be watched (perf_hooks' delay histogram);
 * - engine floor: the SQL the planner emits, run on the same DuckDB instance in-process;
 * - peer: PostgreSQL from Debian's packages on loopback with the same facts (bench/peer/).
 *
 * Full: scale 10 and 100, 3 runs x 10 s, medians; writes bench/RESULTS.md. --quick: scale 1,
 * 1 run x 3 s, for CI; writes bench/out/RESULTS.quick.md. `--profile` adds where a report's time
 * goes per layer (bench/profile.ts, Server-Timing); `--profile-only` prints only that. Exit 1 when a run had errors or non-2xx
 * answers, or the peer's answers differ from the service's; goals are reported, not enforced.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type autocannon from 'autocannon';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { configFromEnv, mergeConfig, serviceConfigSchema } from '../src/config/config.js';
import { startService, type RunningService } from '../src/main.js';
import { buildPlan } from '../src/planner/build-plan.js';
import { parseReportQuery, reportRequest } from '../src/reporting/report-request.js';
import { compileReport } from '../src/sql/compile-report.js';
import type { SqlValue } from '../src/store/sql-values.js';
import { generatedDatabase, type Generated } from './generated.js';
import { watchEventLoop, type LoopWatched } from './loop-watch.js';
import { clientToken, cpuCost, median, medianCpu, root, type CpuCost, type LoadRun } from './lib.js';
import { processCpuClock } from './process-cpu.js';
import { runMicro, type MicroResult } from './micro.js';
import { benchEngines, enginesSection, resultsFile, withEnginesSection, type EnginesResult } from './engines.js';
import { profileReports, profileSection } from './profile.js';
import { loadFacts, pgbench, startPostgres } from './peer/postgres.js';
import type { OpenLoopOptions, OpenLoopResult } from './open-loop-child.js';
import type { SerialOptions } from './serial-child.js';
import {
  MIX,
  MIX_NAMES,
  type MixName,
  mixParams,
  PEER_QUERIES,
  serviceUrlPath,
  verifyPeerQueries,
} from './peer/report-queries.js';

const quick = process.argv.includes('--quick');
/** The value after a flag, e.g. `--runs 2`; undefined when the flag is absent. */
const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
/** `--scale 10` or `--scale 1,10`: some scales only (scale 100 adds ~40 minutes). */
const SCALES = flag('--scale')?.split(',').map(Number) ?? (quick ? [1] : [1, 10, 100]);
const RUNS = Number(flag('--runs') ?? (quick ? 1 : 3));
const SECONDS = Number(flag('--seconds') ?? (quick ? 3 : 10));
/** `--no-peer`: leave PostgreSQL out (a run of the previous code, compared with a run that has it). */
const PEER = !process.argv.includes('--no-peer');
/** `--reuse`: keep the generated databases even when they end before yesterday (runs across midnight). */
const REUSE = process.argv.includes('--reuse');
/** `--label NAME`: also write the raw results to bench/out/results-NAME.json. */
const LABEL = flag('--label');
/** `--baseline FILE`: results of the code before (a `--label` run), compared in RESULTS.md. */
const BASELINE = flag('--baseline');
/** `--engine clickhouse`: also the report engines side by side (bench/engines.ts); `--engines-only`: only that. */
const ENGINE = flag('--engine');
const ENGINES_ONLY = process.argv.includes('--engines-only');
/** `--profile`: also where a report's time goes, per layer (bench/profile.ts); `--profile-only`: only that. */
const PROFILE_ONLY = process.argv.includes('--profile-only');
const PROFILE = PROFILE_ONLY || process.argv.includes('--profile');
/** Requests per mix report in the profile. */
const PROFILE_COUNT = Number(flag('--profile-count') ?? (quick ? 100 : 300));
const CONCURRENCY = [1, 16, 64] as const;
const BIG = 1_000_000;

/** The event loop per load run (the worst of its runs), by run label. */
type LoopWatch = Map<string, LoopWatched>;

interface OpenLoopRun extends LoadRun {
  connections: number;
  byName: Record<string, { p50: number; p99: number }>;
}

/** The load mix (defined with the peer's equivalent SQL in bench/peer/report-queries.ts). */
function mixOf(organizationId: number, lastDay: string) {
  return MIX_NAMES.map((name) => {
    const params = mixParams(name, organizationId, lastDay);
    const urlPath = serviceUrlPath(name, params);
    return { name, params, endpoint: MIX[name].endpoint, urlPath, query: urlPath.slice(urlPath.indexOf('?') + 1) };
  });
}

/** The SQL the service runs for a request, compiled the same way (same parser, planner, compiler). */
function floorQuery(
  endpoint: string,
  query: string,
  organizationId: number,
  now: Date,
): { sql: string; params: readonly SqlValue[] } {
  const found = ENDPOINT_BY_PATH.get(endpoint)!;
  const request = reportRequest(parseReportQuery(`?${query}`, found), found.level, organizationId, 'json');
  // The service's page is one JSON text rendered by DuckDB: the floor runs that SQL.
  return compileReport(buildPlan(found, request, now)).jsonPage();
}

/**
 * The nice value the service gives its query threads (ADREPORT_DB_WORKER_NICE, default 10). The
 * load children get it too: they stand in for clients on other machines, whose CPU is not the
 * service's, so they compete with its queries on the same footing as before the service ranked
 * its event loop first (everything at 0 then), rather than outranking them.
 */
const WORKER_NICE = serviceConfigSchema.parse(configFromEnv(process.env)).database.workerNice;

/**
 * Runs a bench child script with one JSON argument and resolves with the JSON of its last stdout
 * line. The child says "ready" once loaded; `started` runs then, just before the child is told
 * to go, so a watch of the event loop begins after the fork and the child's start-up.
 *
 * `cpu`: the service's CPU per request over the child's run, from the go to the child's answer:
 * the CPU of this process, where the service runs (the child's own is not in it), over the
 * requests the child counted (open loop: the 2xx ones).
 */
function jsonChild<T extends LoadRun>(
  script: string,
  options: object,
  started: () => void = () => undefined,
): Promise<T & { cpu: CpuCost }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, '--import', 'tsx', path.join(root, 'bench', script), JSON.stringify(options)];
    const child = spawn('nice', ['-n', String(WORKER_NICE), ...command], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    let serviceCpu: (() => number) | undefined;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!serviceCpu && out.startsWith('ready\n')) {
        started();
        serviceCpu = processCpuClock();
        child.stdin.end('go\n');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !serviceCpu) return reject(new Error(`${script} exited ${code}`));
      const cpuMs = serviceCpu();
      const result = JSON.parse(out.trim().split('\n').pop()!) as T;
      resolve({ ...result, cpu: cpuCost(cpuMs, result.requests) });
    });
  });
}

/**
 * RUNS runs of `runFor(SECONDS)` after a 1 s warm-up, the event loop watched during each, and
 * `between` (the floor) after each, so drift on a shared machine hits the service and the floor
 * alike. The loop is watched while the service is under load only; a histogram per run, since
 * one re-enabled after a pause counts the pause as a delay.
 */
async function measureRuns<R extends LoadRun>(
  label: string,
  runFor: (seconds: number, started: () => void) => Promise<R>,
  loop: LoopWatch,
  between?: () => Promise<void>,
): Promise<R[]> {
  await runFor(1, () => undefined);
  const runs: R[] = [];
  let watched: LoopWatched = {
    maxMs: 0,
    p99Ms: 0,
    gcMaxMs: 0,
    waitShare: 0,
    longest: { ms: 0, ranMs: 0, waitedMs: 0 },
  };
  for (let i = 0; i < RUNS; i++) {
    let stop: (() => LoopWatched) | undefined;
    runs.push(await runFor(SECONDS, () => (stop = watchEventLoop())));
    const run = stop!();
    watched = {
      maxMs: Math.max(watched.maxMs, run.maxMs),
      p99Ms: Math.max(watched.p99Ms, run.p99Ms),
      gcMaxMs: Math.max(watched.gcMaxMs, run.gcMaxMs),
      waitShare: Math.max(watched.waitShare, run.waitShare),
      longest: run.longest.ms > watched.longest.ms ? run.longest : watched.longest,
    };
    await between?.();
  }
  loop.set(label, watched);
  return runs;
}

/** The medians of the runs (errors summed), logged. */
function medianRun(label: string, runs: readonly LoadRun[]): LoadRun {
  const m = (pick: (r: LoadRun) => number) => median(runs.map(pick));
  const result = {
    rps: m((r) => r.rps),
    p50: m((r) => r.p50),
    p99: m((r) => r.p99),
    requests: m((r) => r.requests),
    non2xx: sum(runs, (r) => r.non2xx),
    errors: sum(runs, (r) => r.errors),
    ...(runs.every((r) => r.cpu) ? { cpu: medianCpu(runs.map((r) => r.cpu!)) } : {}),
  };
  console.error(
    `${label}: ${Math.round(result.rps)} req/s, ${fmtCpu(result.cpu)} CPU ms/req, p50 ${fmt(result.p50, 1)} ms, p99 ${fmt(result.p99, 1)} ms${result.non2xx + result.errors > 0 ? `, ${result.non2xx} non-2xx, ${result.errors} errors` : ''}`,
  );
  return result;
}

/** Closed-loop load by autocannon: medians of RUNS runs. */
async function measureLoad(
  label: string,
  requested: autocannon.Options,
  loop: LoopWatch,
  between?: () => Promise<void>,
): Promise<LoadRun> {
  // 64 connections of keyword pulls queue for longer than autocannon's default 10 s timeout: count those as latency, not errors.
  const options = { timeout: 60, ...requested };
  return medianRun(
    label,
    await measureRuns(
      label,
      (duration, started) => jsonChild<LoadRun>('load-child.ts', { ...options, duration }, started),
      loop,
      between,
    ),
  );
}

/** The service under autocannon and the engine floor over the same queries at the same concurrency, run by run in turn. */
async function measureAgainstFloor(
  label: string,
  options: autocannon.Options,
  loop: LoopWatch,
  service: RunningService,
  queries: readonly Query[],
): Promise<{ service: LoadRun; floor: FloorRun }> {
  for (const q of queries) await service.db.read((r) => r.all(q.sql, q.params));
  const floors: FloorRun[] = [];
  const serviceRun = await measureLoad(
    label,
    options,
    loop,
    async () => void floors.push(await floorRun(service, queries, options.connections ?? 1)),
  );
  return {
    service: serviceRun,
    floor: {
      qps: median(floors.map((f) => f.qps)),
      p50: median(floors.map((f) => f.p50)),
      p99: median(floors.map((f) => f.p99)),
      cpu: medianCpu(floors.map((f) => f.cpu)),
    },
  };
}

/** Open-loop load at a constant rate (bench/open-loop-child.ts): medians of RUNS runs, overall and per request name. */
async function measureOpenLoop(
  label: string,
  options: Omit<OpenLoopOptions, 'duration'>,
  loop: LoopWatch,
): Promise<OpenLoopRun> {
  const runs = await measureRuns(
    label,
    (duration, started) => jsonChild<OpenLoopResult>('open-loop-child.ts', { ...options, duration }, started),
    loop,
  );
  const byName = Object.fromEntries(
    Object.keys(runs[0]!.byName).map((name) => {
      const of = runs.map((r) => r.byName[name]!);
      return [name, { p50: median(of.map((x) => x.p50)), p99: median(of.map((x) => x.p99)) }];
    }),
  );
  return { ...medianRun(label, runs), connections: Math.max(...runs.map((r) => r.connections)), byName };
}

const sum = <T>(xs: readonly T[], pick: (x: T) => number) => xs.reduce((a, x) => a + pick(x), 0);

type Query = { sql: string; params: readonly SqlValue[] };
/** `cpu`: this process's CPU over the floor's own run (no load child runs then), per query. */
type FloorRun = { qps: number; p50: number; p99: number; cpu: CpuCost };

/** The engine floor: `workers` loops running the queries on the service's own DuckDB connections for SECONDS. */
async function floorRun(service: RunningService, queries: readonly Query[], workers: number): Promise<FloorRun> {
  const latencies: number[] = [];
  const cpu = processCpuClock();
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = w; performance.now() < until; i++) {
        const q = queries[i % queries.length]!;
        const started = performance.now();
        await service.db.read((r) => r.all(q.sql, q.params));
        latencies.push(performance.now() - started);
      }
    }),
  );
  const cpuMs = cpu();
  const sorted = latencies.sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { qps: latencies.length / SECONDS, p50: pct(0.5), p99: pct(0.99), cpu: cpuCost(cpuMs, latencies.length) };
}

interface ScaleResult {
  scale: number;
  factRows: number;
  single: Array<{ name: string; service: LoadRun; floor: FloorRun }>;
  mix: Array<{ connections: number; service: LoadRun; floor: FloorRun }>;
  openLoop: { rate: number; run: OpenLoopRun };
  other: Array<{ name: string; run: LoadRun }>;
  /** Another organization's campaigns30d, one at a time, alone and while the first floods at 64 connections. */
  fairness: { idle: LoadRun; flooded: LoadRun; floodRps: number; floodRefused: number };
  /** One at a time with the page cache on: GET /health, a revalidation (304), a repeat (cache hit); null: no ETag. */
  conditional: { health: LoadRun; notModified: LoadRun | null; cacheHit: LoadRun };
  loop: LoopWatch;
  peer:
    | {
        version: string;
        loadSeconds: number;
        /** cpu1, cpu16: the server's CPU (postmaster tree, not pgbench) per transaction at 1 and 16 clients. */
        single: Array<{ name: string; p50: number; tps16: number; cpu1?: CpuCost; cpu16?: CpuCost }>;
      }
    | { skipped: string };
}

/** The service on the generated database, as `serve` would run it with these ADREPORT_* variables, request rate limits lifted. */
async function startBenchService(generated: Generated, env: NodeJS.ProcessEnv): Promise<RunningService> {
  const config = serviceConfigSchema.parse(
    mergeConfig(configFromEnv(env), {
      dbPath: generated.dbPath,
      host: '127.0.0.1',
      port: 0,
      rateLimit: { ratePerSecond: BIG, burst: BIG, tokenRatePerSecond: BIG, tokenBurst: BIG },
    }),
  );
  // bench/node-threads.cjs listed Node's own threads at start (npm run bench preloads it).
  const nodeThreads = (globalThis as { adreportNodeThreads?: ReadonlySet<number> }).adreportNodeThreads;
  return startService(config, {
    logError: (entry) => console.error('server error:', entry.error),
    log: (line) => console.error(line),
    nodeThreads,
  });
}

/**
 * The environment of the measurements that compute reports: the page cache off (ADREPORT_CACHE_MB=0),
 * since repeating one URL would otherwise measure the cache, not the engine (the conditional
 * measures run with it on); the cost-based rate limit lifted like the request rate limit.
 */
const COMPUTE_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  ADREPORT_CACHE_MB: '0',
  // 0 turns the database-time budget off.
  ADREPORT_DB_TIME_MS_PER_SECOND: '0',
};

async function benchScale(generated: Generated): Promise<ScaleResult> {
  const org = generated.organizations[0]!;
  // ADREPORT_* settings apply as they do to `serve` (e.g. ADREPORT_DB_WORKER_NICE=0 for an A/B run).
  const service = await startBenchService(generated, COMPUTE_ENV);
  const loop: LoopWatch = new Map();
  let result: Omit<ScaleResult, 'peer' | 'conditional' | 'fairness'>;
  try {
    const base = `https://127.0.0.1:${service.port}`;
    const basic = `Basic ${Buffer.from(`${org.clientId}:${org.clientSecret}`).toString('base64')}`;
    const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    const token = await clientToken(base, service.tls!.cert, org);
    const bearer = { authorization: `Bearer ${token}` };
    const now = new Date(Date.parse(`${generated.lastDay}T12:00:00Z`) + 86_400_000);
    const mix = mixOf(org.id, generated.lastDay);
    const floors = mix.map((m) => floorQuery(m.endpoint, m.query, org.id, now));
    const url = (m: (typeof mix)[number]) => `${base}${m.urlPath}`;

    // Each request type alone, one at a time: the service's latency over the engine's.
    const single = [];
    for (const [i, m] of mix.entries()) {
      single.push({
        name: m.name,
        ...(await measureAgainstFloor(`${m.name} x1`, { url: url(m), headers: bearer, connections: 1 }, loop, service, [
          floors[i]!,
        ])),
      });
    }
    // The mix at 1, 16 and 64 connections, against the engine at the same concurrency.
    const requests = mix.map((m) => ({ method: 'GET', path: m.urlPath, headers: bearer }));
    const mixRuns = [];
    for (const connections of CONCURRENCY) {
      mixRuns.push({
        connections,
        ...(await measureAgainstFloor(
          `mix x${connections}`,
          { url: base, requests, connections },
          loop,
          service,
          floors,
        )),
      });
    }
    // Open loop at half of the saturated rate: p99 / p50 without coordinated omission.
    const saturated = Math.max(...mixRuns.map((r) => r.service.rps));
    const rate = Math.max(1, Math.round(saturated / 2));
    const named = mix.map((m) => ({ name: m.name, path: m.urlPath, headers: bearer }));
    const openLoop = {
      rate,
      run: await measureOpenLoop(
        `mix open loop ${rate}/s`,
        { base, ca: service.tls!.cert, rate, requests: named },
        loop,
      ),
    };
    // Token endpoint and accounts.
    const other = [
      {
        name: 'POST /token',
        run: await measureLoad(
          'token x16',
          {
            url: `${base}/token`,
            method: 'POST',
            headers: form,
            body: 'grant_type=client_credentials',
            connections: 16,
          },
          loop,
        ),
      },
      {
        name: 'GET /provisioning/v0/accounts (100)',
        run: await measureLoad(
          'accounts list x16',
          { url: `${base}/provisioning/v0/accounts?limit=100`, headers: bearer, connections: 16 },
          loop,
        ),
      },
      {
        name: 'POST /provisioning/v0/accounts',
        run: await measureLoad(
          'account create x16',
          {
            url: `${base}/provisioning/v0/accounts`,
            method: 'POST',
            headers: { ...bearer, 'content-type': 'application/json' },
            body: JSON.stringify({
              account: { name: BENCH_ACCOUNT_NAME, languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
            }),
            connections: 16,
          },
          loop,
        ),
      },
    ];
    result = {
      scale: generated.scale,
      factRows: generated.factRows,
      single,
      mix: mixRuns,
      openLoop,
      other,
      loop,
    };
  } finally {
    await service.close();
    await removeBenchAccounts(generated.dbPath, org.id);
  }
  const fairness = await benchFairness(generated, loop);
  const conditional = await benchConditional(generated, loop);
  return {
    ...result,
    fairness,
    conditional,
    peer: PEER ? await benchPeer(generated) : { skipped: 'not run (--no-peer)' },
  };
}

/** The second organization's dashboard: campaigns30d at this constant rate (open loop), well within its limits. */
const DASHBOARD_RATE = 10;

/**
 * Fairness: the second organization's campaigns30d at DASHBOARD_RATE per second (open loop), idle
 * and while the first organization runs the mix at 64 connections. The per-client request limit is
 * lifted, so that the flood is report work, not a storm of instant 429s (at the default 50/s a
 * client that ignores Retry-After got 11,000 refusals a second); the database-time budget per
 * organization stays at its default. The page cache is off: a flood of four URLs would be hits.
 * The flood runs SECONDS + 2 s; the dashboard starts 1 s into it. Medians of RUNS runs.
 */
async function benchFairness(generated: Generated, loop: LoopWatch): Promise<ScaleResult['fairness']> {
  const service = await startBenchService(generated, { ...process.env, ADREPORT_CACHE_MB: '0' });
  try {
    const [first, second] = generated.organizations as [Generated['organizations'][0], Generated['organizations'][0]];
    const base = `https://127.0.0.1:${service.port}`;
    const ca = service.tls!.cert;
    const firstBearer = { authorization: `Bearer ${await clientToken(base, ca, first)}` };
    const secondBearer = { authorization: `Bearer ${await clientToken(base, ca, second)}` };
    const flood = mixOf(first.id, generated.lastDay).map((m) => ({
      method: 'GET',
      path: m.urlPath,
      headers: firstBearer,
    }));
    const dashboard = {
      base,
      ca,
      rate: DASHBOARD_RATE,
      requests: [
        {
          name: 'campaigns30d',
          path: mixOf(second.id, generated.lastDay).find((m) => m.name === 'campaigns30d')!.urlPath,
          headers: secondBearer,
        },
      ],
    };
    const dashboardRun = (duration: number, started: () => void) =>
      jsonChild<OpenLoopResult>('open-loop-child.ts', { ...dashboard, duration }, started);
    const idle = medianRun(
      'second organization campaigns30d, idle',
      await measureRuns('second organization campaigns30d, idle', dashboardRun, loop),
    );
    const floods: LoadRun[] = [];
    const label = 'second organization campaigns30d, the first flooding x64';
    const runs = await measureRuns(
      label,
      async (duration, started) => {
        let flooding!: () => void;
        const floodStarted = new Promise<void>((resolve) => (flooding = resolve));
        const floodRun = jsonChild<LoadRun>(
          'load-child.ts',
          { url: base, requests: flood, connections: 64, timeout: 60, duration: duration + 2 },
          flooding,
        );
        await floodStarted;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const run = await dashboardRun(duration, started);
        const floodDone = await floodRun;
        floods.push(floodDone);
        // The service's CPU over the flood's run, which holds the dashboard's: per answer of either, 429s included.
        return { ...run, cpu: cpuCost(floodDone.cpu.ms, floodDone.requests + run.requests) };
      },
      loop,
    );
    // The warm-up's flood is the first; the measured ones follow. Refused (429) answers are the flood's, not errors.
    const measuredFloods = floods.slice(1);
    const floodRps = median(measuredFloods.map((f) => f.rps));
    const floodRefused = median(measuredFloods.map((f) => f.non2xx / Math.max(1, f.requests)));
    console.error(`${label}: the flood sent ${Math.round(floodRps)} req/s, ${Math.round(100 * floodRefused)}% refused`);
    return { idle, flooded: medianRun(label, runs), floodRps, floodRefused };
  } finally {
    await service.close();
  }
}

/** A GET's status and headers over node:https. */
function headersOf(
  url: string,
  headers: Record<string, string>,
  ca: string,
): Promise<{ status: number; etag?: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers }, (res) => {
        res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag }));
      })
      .on('error', reject);
  });
}

/** One at a time, page cache on (the service's default): /health, a 304 revalidation, a repeat served from the cache. */
async function benchConditional(generated: Generated, loop: LoopWatch): Promise<ScaleResult['conditional']> {
  const service = await startBenchService(generated, {
    ...COMPUTE_ENV,
    ADREPORT_CACHE_MB: process.env.ADREPORT_CACHE_MB,
  });
  try {
    const org = generated.organizations[0]!;
    const base = `https://127.0.0.1:${service.port}`;
    const bearer = { authorization: `Bearer ${await clientToken(base, service.tls!.cert, org)}` };
    const campaigns = `${base}${mixOf(org.id, generated.lastDay).find((m) => m.name === 'campaigns30d')!.urlPath}`;
    const ca = service.tls!.cert;
    const serial = (label: string, options: Omit<SerialOptions, 'duration' | 'ca'>) =>
      measureRuns(
        label,
        (duration, started) => jsonChild<LoadRun>('serial-child.ts', { ...options, ca, duration }, started),
        loop,
      ).then((runs) => medianRun(label, runs));
    const health = await serial('GET /health x1', { url: `${base}/health` });
    const cacheHit = await serial('campaigns30d repeated x1', { url: campaigns, headers: bearer });
    const { etag } = await headersOf(campaigns, bearer, ca);
    const notModified =
      etag === undefined
        ? null
        : await serial('campaigns30d If-None-Match x1', {
            url: campaigns,
            headers: { ...bearer, 'if-none-match': etag },
            expectStatus: 304,
          });
    return { health, notModified, cacheHit };
  } finally {
    await service.close();
  }
}

const BENCH_ACCOUNT_NAME = 'Bench GmbH';

/** The generated database is reused: the accounts the create run made go, so the next run's list measures the same table. */
async function removeBenchAccounts(dbPath: string, organizationId: number): Promise<void> {
  const instance = await DuckDBInstance.create(dbPath);
  try {
    const connection = await instance.connect();
    const removed = await connection.run('DELETE FROM accounts WHERE organization_id = $1 AND name = $2', [
      organizationId,
      BENCH_ACCOUNT_NAME,
    ]);
    await connection.run('DELETE FROM account_labels WHERE account_id NOT IN (SELECT id FROM accounts)');
    console.error(`removed the ${removed.rowsChanged} accounts the create run made`);
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
}

/** PostgreSQL with the same facts and the same four queries (pgbench); the service must be stopped (one process per DuckDB file). */
async function benchPeer(generated: Generated): Promise<ScaleResult['peer']> {
  let peer;
  try {
    peer = await startPostgres({
      dir: path.join(root, 'bench', 'out', `postgres-scale-${generated.scale}`),
      log: (line) => console.error(line),
    });
  } catch (error) {
    // Only a machine that cannot install PostgreSQL at all skips it; a broken peer fails below.
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`PostgreSQL peer skipped: ${reason}`);
    return { skipped: reason.split('\n')[0]! };
  }
  try {
    const loaded = await loadFacts(peer, generated.dbPath, (line) => console.error(line));
    const mix = mixOf(generated.organizations[0]!.id, generated.lastDay);
    await verifyPeerQueries(peer, generated.dbPath, {
      organizationId: generated.organizations[0]!.id,
      lastDay: generated.lastDay,
    });
    const single = [];
    for (const m of mix) {
      const sql = PEER_QUERIES[m.name](m.params);
      const one = await pgbench(peer, sql, 1, SECONDS);
      const sixteen = await pgbench(peer, sql, 16, SECONDS);
      const cpu1 = cpuCost(one.serverCpuMs, one.transactions);
      const cpu16 = cpuCost(sixteen.serverCpuMs, sixteen.transactions);
      console.error(
        `postgres ${m.name}: p50 ${one.p50Ms.toFixed(1)} ms x1, ${fmtCpu(cpu1)} CPU ms/tx x1, ${Math.round(sixteen.tps)} tps x16, ${fmtCpu(cpu16)} CPU ms/tx x16`,
      );
      single.push({ name: m.name, p50: one.p50Ms, tps16: sixteen.tps, cpu1, cpu16 });
    }
    return { version: peer.version, loadSeconds: loaded.seconds, single };
  } finally {
    await peer.stop();
  }
}

// ---- report --------------------------------------------------------------------------------

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
/** CPU ms per request to 2-3 significant digits; '-' where it was not measured (results of older code). */
const fmtCpu = (c: CpuCost | undefined) =>
  c === undefined ? '-' : fmt(c.msPerRequest, c.msPerRequest < 1 ? 3 : c.msPerRequest < 10 ? 2 : 1);
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

function microTable(results: readonly MicroResult[]): string[] {
  return [
    '| request | ops/s | p50 us | p99 us |',
    '|---|---:|---:|---:|',
    ...results.map((r) => `| ${r.name} | ${fmt(r.opsPerSecond)} | ${fmt(r.p50Us, 1)} | ${fmt(r.p99Us, 1)} |`),
  ];
}

function scaleSection(r: ScaleResult & { stolen: string }): string[] {
  const lines = [
    `## Scale ${r.scale} (${r.factRows.toLocaleString('en-US')} fact rows; CPU time stolen by the hypervisor meanwhile: ${r.stolen})`,
    '',
  ];
  lines.push(
    '### One request at a time: service vs engine floor (p50 ms)',
    '',
    '| request | service p50 | floor p50 | service / floor | goal <= 1.25 (small reports) | service req/s | CPU ms / request | floor queries/s | CPU ms / query |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|',
  );
  for (const s of r.single) {
    const ratio = s.service.p50 / s.floor.p50;
    // The goal is for small reports; the 10,000-row pull also pays for moving its 3.4 MB over TLS, which the floor does not.
    const small = MIX[s.name as MixName].query.limit !== '10000';
    lines.push(
      `| ${s.name} | ${fmt(s.service.p50, 1)} | ${fmt(s.floor.p50, 1)} | ${fmt(ratio, 2)} | ${small ? verdict(ratio <= 1.25) : '- (a pull)'} | ${fmt(s.service.rps)} | ${fmtCpu(s.service.cpu)} | ${fmt(s.floor.qps)} | ${fmtCpu(s.floor.cpu)} |`,
    );
  }
  lines.push(
    '',
    '### The mix at 1, 16, 64 connections',
    '',
    '| connections | service req/s | CPU ms / request | p50 ms | p99 ms | floor queries/s | CPU ms / query | service / floor | goal >= 0.85 |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const m of r.mix) {
    const ratio = m.service.rps / m.floor.qps;
    lines.push(
      `| ${m.connections} | ${fmt(m.service.rps)} | ${fmtCpu(m.service.cpu)} | ${fmt(m.service.p50, 1)} | ${fmt(m.service.p99, 1)} | ${fmt(m.floor.qps)} | ${fmtCpu(m.floor.cpu)} | ${fmt(ratio, 2)} | ${m.connections === 1 ? '-' : verdict(ratio >= 0.85)} |`,
    );
  }
  const open = r.openLoop.run;
  const openRatio = open.p99 / open.p50;
  const worstLoop = [...r.loop].reduce((a, b) => (b[1].maxMs > a[1].maxMs ? b : a));
  lines.push(
    '',
    `### Open loop at half of saturation: ${r.openLoop.rate} requests/s, constant rate (bench/open-loop-child.ts, up to ${open.connections} connections)`,
    '',
    '| request | req/s | CPU ms / request | p50 ms | p99 ms | p99 / p50 |',
    '|---|---:|---:|---:|---:|---:|',
    `| the mix | ${fmt(open.rps)} | ${fmtCpu(open.cpu)} | ${fmt(open.p50, 1)} | ${fmt(open.p99, 1)} | ${fmt(openRatio, 2)} |`,
    ...Object.entries(open.byName).map(
      ([name, x]) =>
        `| ${name} | | | ${fmt(x.p50, 1)} | ${fmt(x.p99, 1)} | ${fmt(x.p99 / x.p50, 2)} (goal <= 4: ${verdict(x.p99 / x.p50 <= 4)}) |`,
    ),
    '',
    `The mix's own spread, one request at a time: p99 / p50 ${fmt(r.mix[0]!.service.p99 / r.mix[0]!.service.p50, 2)} (${fmt(r.mix[0]!.service.p50, 1)} / ${fmt(r.mix[0]!.service.p99, 1)} ms at 1 connection).`,
    '',
    `### Event loop (max delay over each load measurement; goal: never blocked over 50 ms: ${verdict(worstLoop[1].maxMs <= 50)}, worst: ${worstLoop[0]})`,
    '',
    "Timer lateness (max, p99); the longest gap between two 5 ms ticks and how the event loop's thread spent it: running (JavaScript, GC, native calls), waiting for a core (runnable while the machine was busy: no code held the loop), or neither (asleep: up to 5 ms of it the loop's own wait for the next tick, the rest blocked in the kernel); the longest GC pause; the share of the run spent waiting for a core. Each the worst of the runs.",
    '',
    '| load | max ms | p99 ms | longest gap ms: ran / waited / blocked | longest GC ms | waiting for a core |',
    '|---|---:|---:|---|---:|---:|',
    ...[...r.loop].map(
      ([label, l]) =>
        `| ${label} | ${fmt(l.maxMs, 1)} | ${fmt(l.p99Ms, 1)} | ${fmt(l.longest.ms)}: ${fmt(l.longest.ranMs)} / ${fmt(l.longest.waitedMs)} / ${fmt(l.longest.ms - l.longest.ranMs - l.longest.waitedMs)} | ${fmt(l.gcMaxMs, 1)} | ${fmt(100 * l.waitShare)}% |`,
    ),
    '',
    '### Token and account endpoints (16 connections)',
    '',
    '| request | req/s | CPU ms / request | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    ...r.other.map(
      (o) => `| ${o.name} | ${fmt(o.run.rps)} | ${fmtCpu(o.run.cpu)} | ${fmt(o.run.p50, 1)} | ${fmt(o.run.p99, 1)} |`,
    ),
    '',
    ...fairnessSection(r),
    ...conditionalSection(r),
  );
  if ('skipped' in r.peer) {
    lines.push(`### PostgreSQL peer: skipped (${r.peer.skipped})`, '');
    return lines;
  }
  lines.push(
    `### PostgreSQL peer (${r.peer.version}, facts loaded in ${fmt(r.peer.loadSeconds)} s)`,
    '',
    '| request | PostgreSQL p50 ms | service p50 ms | PostgreSQL / service (latency) | PostgreSQL CPU ms / request x1 | service CPU ms / request x1 | PostgreSQL / service (CPU) | PostgreSQL req/s x16 | PostgreSQL CPU ms / request x16 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const p of r.peer.single) {
    const s = r.single.find((x) => x.name === p.name)!;
    const cpuRatio = (p.cpu1?.msPerRequest ?? NaN) / (s.service.cpu?.msPerRequest ?? NaN);
    lines.push(
      `| ${p.name} | ${fmt(p.p50, 1)} | ${fmt(s.service.p50, 1)} | ${fmt(p.p50 / s.service.p50, 1)} | ${fmtCpu(p.cpu1)} | ${fmtCpu(s.service.cpu)} | ${fmt(cpuRatio, 1)} | ${fmt(p.tps16)} | ${fmtCpu(p.cpu16)} |`,
    );
  }
  // The mix: one request of each type, in sequence; at 16 connections the throughput of each alone, harmonically combined.
  const pgMix = sum(r.peer.single, (p) => p.p50);
  const serviceMix = sum(r.single, (s) => s.service.p50);
  const pgMixTps = r.peer.single.length / sum(r.peer.single, (p) => 1 / p.tps16);
  const serviceMix16 = r.mix.find((m) => m.connections === 16)!.service.rps;
  // CPU per request of the mix: PostgreSQL's, the mean over the four (each run alone); the service's, of the mix run.
  const peerSingle = r.peer.single;
  const pgMixCpu = (pick: (p: (typeof peerSingle)[number]) => CpuCost | undefined) =>
    sum(peerSingle, (p) => pick(p)?.msPerRequest ?? NaN) / peerSingle.length;
  const serviceMixCpu = (connections: number) =>
    r.mix.find((m) => m.connections === connections)?.service.cpu?.msPerRequest ?? NaN;
  const capacity = (connections: 1 | 16) => {
    const pg = pgMixCpu((p) => (connections === 1 ? p.cpu1 : p.cpu16));
    const service = serviceMixCpu(connections);
    return `**${fmt(pg / service, 1)}x** ${connections === 1 ? 'one at a time' : 'at 16 connections'} (${fmt(pg, 2)} / ${fmt(service, 2)} ms)`;
  };
  const ahead = r.peer.single.every((p) => p.p50 > r.single.find((x) => x.name === p.name)!.service.p50);
  // Issue 21's goals: >= 1.5x at scale 1, >= 5x at scale 100 (none stated between).
  const mixGoal = r.scale <= 1 ? 1.5 : r.scale >= 100 ? 5 : undefined;
  const campaigns = r.peer.single.find((p) => p.name === 'campaigns30d');
  const campaignsRatio = campaigns ? campaigns.p50 / r.single.find((x) => x.name === 'campaigns30d')!.service.p50 : NaN;
  lines.push(
    '',
    `Each request of the mix ahead of PostgreSQL, one at a time: ${verdict(ahead)}.`,
    `Mix, one at a time: PostgreSQL ${fmt(pgMix, 1)} ms vs service ${fmt(serviceMix, 1)} ms per round of four: **${fmt(pgMix / serviceMix, 1)}x**${mixGoal ? ` (goal >= ${mixGoal}: ${verdict(pgMix / serviceMix >= mixGoal)})` : ''}.`,
    ...(r.scale >= 100
      ? [`campaigns30d: **${fmt(campaignsRatio, 1)}x** PostgreSQL (goal >= 10: ${verdict(campaignsRatio >= 10)}).`]
      : []),
    `Mix at 16 connections: PostgreSQL ${fmt(pgMixTps)} vs service ${fmt(serviceMix16)} requests/s: **${fmt(serviceMix16 / pgMixTps, 1)}x**.`,
    `Capacity, CPU per request of the mix, PostgreSQL / service: ${capacity(16)}, ${capacity(1)}. PostgreSQL's is its server's processes' (the postmaster and its backends, not pgbench), running the query and its protocol; the service's is its whole process's (TLS, HTTP, authentication, the query, the JSON page), not the load generator's.`,
    '',
  );
  return lines;
}

function fairnessSection(r: ScaleResult): string[] {
  const { idle, flooded, floodRps, floodRefused } = r.fairness;
  const ratio = flooded.p99 / idle.p99;
  return [
    '### Fairness: one organization floods, another reads its dashboard',
    '',
    `Request rate limit lifted, database-time budget at its default, page cache off. The first organization runs the mix at 64 connections (${fmt(floodRps)} answers/s, ${fmt(100 * (floodRefused ?? NaN))}% of them 429); meanwhile the second organization asks its campaigns30d at ${DASHBOARD_RATE} per second (open loop).`,
    '',
    `| second organization, campaigns30d at ${DASHBOARD_RATE}/s | req/s | CPU ms / request | p50 ms | p99 ms |`,
    '|---|---:|---:|---:|---:|',
    `| idle | ${fmt(idle.rps)} | ${fmtCpu(idle.cpu)} | ${fmt(idle.p50, 1)} | ${fmt(idle.p99, 1)} |`,
    `| during the flood | ${fmt(flooded.rps)} | ${fmtCpu(flooded.cpu)} | ${fmt(flooded.p50, 1)} | ${fmt(flooded.p99, 1)} |`,
    '',
    `CPU ms / request: idle, the service's CPU over the dashboard's run per its answers (its idle work included: at ${DASHBOARD_RATE} requests/s that is most of it); during the flood, over the flood's run per answer of either organization, 429s included.`,
    '',
    `p99 during the flood / idle p99: **${fmt(ratio, 2)}** (goal <= 3: ${verdict(ratio <= 3)}).`,
    '',
  ];
}

function conditionalSection(r: ScaleResult): string[] {
  const { health, notModified, cacheHit } = r.conditional;
  const row = (name: string, run: LoadRun | null) =>
    run === null
      ? `| ${name} | n/a (no ETag) | | | |`
      : `| ${name} | ${fmt(run.rps)} | ${fmtCpu(run.cpu)} | ${fmt(run.p50, 2)} | ${fmt(run.p50 / health.p50, 2)} (goal <= 1.5: ${verdict(run.p50 / health.p50 <= 1.5)}) |`;
  return [
    '### Conditional requests and the page cache (one at a time, cache on)',
    '',
    '| request | req/s | CPU ms / request | p50 ms | p50 / health p50 |',
    '|---|---:|---:|---:|---|',
    `| GET /health | ${fmt(health.rps)} | ${fmtCpu(health.cpu)} | ${fmt(health.p50, 2)} | 1 |`,
    row('campaigns30d with a matching If-None-Match (304)', notModified),
    row('campaigns30d repeated (cache hit)', cacheHit),
    '',
  ];
}

/** The same measures of the code before (a `--label` run on the same databases), side by side. */
function baselineSection(r: ScaleResult, before: ScaleResult | undefined): string[] {
  if (!before) return [];
  const ratio = (a: number, b: number) => fmt(a / b, 2);
  // CPU per request: a baseline written before it was measured has none ('-').
  const cpuRow = (measure: string, b: LoadRun, a: LoadRun) =>
    `| ${measure}, CPU ms / request | ${fmtCpu(b.cpu)} | ${fmtCpu(a.cpu)} | ${b.cpu && a.cpu ? ratio(a.cpu.msPerRequest, b.cpu.msPerRequest) : '-'} |`;
  const lines = [
    `### Scale ${r.scale}: this code against the code before (${BASELINE}, same databases, same session)`,
    '',
    '| measure | before | after | after / before |',
    '|---|---:|---:|---:|',
  ];
  for (const s of r.single) {
    const b = before.single.find((x) => x.name === s.name);
    if (b)
      lines.push(
        `| ${s.name} x1, p50 ms | ${fmt(b.service.p50, 1)} | ${fmt(s.service.p50, 1)} | ${ratio(s.service.p50, b.service.p50)} |`,
        cpuRow(`${s.name} x1`, b.service, s.service),
      );
  }
  for (const m of r.mix) {
    const b = before.mix.find((x) => x.connections === m.connections);
    if (!b) continue;
    const goal =
      m.connections === 16 && r.scale >= 10 ? ` (goal >= 2: ${verdict(m.service.rps / b.service.rps >= 2)})` : '';
    lines.push(
      `| mix x${m.connections}, req/s | ${fmt(b.service.rps)} | ${fmt(m.service.rps)} | ${ratio(m.service.rps, b.service.rps)}${goal} |`,
    );
    lines.push(
      `| mix x${m.connections}, p99 ms | ${fmt(b.service.p99)} | ${fmt(m.service.p99)} | ${ratio(m.service.p99, b.service.p99)} |`,
      cpuRow(`mix x${m.connections}`, b.service, m.service),
    );
  }
  for (const [name, x] of Object.entries(r.openLoop.run.byName)) {
    const b = before.openLoop.run.byName[name];
    if (b) lines.push(`| open loop ${name}, p99 / p50 | ${fmt(b.p99 / b.p50, 2)} | ${fmt(x.p99 / x.p50, 2)} | |`);
  }
  lines.push(cpuRow('open loop', before.openLoop.run, r.openLoop.run));
  for (const o of r.other) {
    const b = before.other.find((x) => x.name === o.name);
    if (b)
      lines.push(
        `| ${o.name} x16, req/s | ${fmt(b.run.rps)} | ${fmt(o.run.rps)} | ${ratio(o.run.rps, b.run.rps)} |`,
        cpuRow(`${o.name} x16`, b.run, o.run),
      );
  }
  for (const [label, l] of r.loop) {
    const b = before.loop.get(label);
    if (b) lines.push(`| event loop max ms, ${label} | ${fmt(b.maxMs, 1)} | ${fmt(l.maxMs, 1)} | |`);
  }
  const fair = (x: ScaleResult) => x.fairness.flooded.p99 / x.fairness.idle.p99;
  lines.push(`| fairness: flooded p99 / idle p99 | ${fmt(fair(before), 2)} | ${fmt(fair(r), 2)} | |`);
  lines.push(cpuRow('fairness, during the flood', before.fairness.flooded, r.fairness.flooded));
  for (const [name, pick] of [
    ['GET /health x1', (x: ScaleResult) => x.conditional.health],
    ['campaigns30d repeated (cache hit) x1', (x: ScaleResult) => x.conditional.cacheHit],
  ] as const)
    lines.push(cpuRow(name, pick(before), pick(r)));
  lines.push('');
  return lines;
}

/** CPU time counters of /proc/stat (USER_HZ ticks): all, and stolen by the hypervisor for other guests. */
function cpuTicks(): { total: number; steal: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7]! };
  } catch {
    return undefined;
  }
}

/** The share of CPU time the hypervisor gave other guests since `from`: a virtual machine's cores are shared. */
function stolenSince(from: ReturnType<typeof cpuTicks>): string {
  const to = cpuTicks();
  return from && to
    ? `${((100 * (to.steal - from.steal)) / (to.total - from.total)).toFixed(1)}%`
    : 'unknown (no /proc/stat)';
}

/**
 * The event-loop watch's own CPU, ms per second: it runs in this process during every load run,
 * so it is in the service's CPU of each (a 5 ms timer reading /proc). Measured with no service
 * running, after the micro benchmarks: three half seconds with the watch and three without, the
 * least of each (the process's own leftovers, e.g. a GC, only add).
 */
async function watchCpuMsPerSecond(): Promise<number> {
  const halfSecond = async (watched: boolean) => {
    const cpu = processCpuClock();
    const stop = watched ? watchEventLoop() : () => undefined;
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop();
    return cpu();
  };
  const idle: number[] = [];
  const watched: number[] = [];
  for (let i = 0; i < 3; i++) {
    idle.push(await halfSecond(false));
    watched.push(await halfSecond(true));
  }
  return Math.max(0, 2 * (Math.min(...watched) - Math.min(...idle)));
}

function machineFacts(startTicks: ReturnType<typeof cpuTicks>, watchCpu: number): string[] {
  const cpus = os.cpus();
  return [
    `- date: ${new Date().toISOString()}`,
    `- CPU time stolen by the hypervisor during the run: ${stolenSince(startTicks)}`,
    `- machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, node ${process.version}`,
    `- command: \`npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\` (${RUNS} run(s) x ${SECONDS} s per measurement, medians; closed-loop load by autocannon, open-loop load by bench/open-loop-child.ts, each in a child process over HTTPS; the service in the bench process, DuckDB threads = cores)`,
    '- on one machine the load generator, the service and DuckDB share the cores: read ratios, not absolute claims',
    `- CPU ms / request: the CPU time of what answered, over the measurement's own window, per request answered (medians of the runs); less bound to how the machine's cores were shared than req/s, so ratios of it read as capacity. The service: this process (all its threads: event loop, libuv pool, DuckDB), from a load child's go to its answer; the load generator runs in its own process and is not in it; besides the service it holds the event-loop watch (${fmt(watchCpu, 1)} ms of CPU per second, measured alone) and the service's idle work (at a low rate, such as the fairness dashboard's, much of it). The floor: this process over the floor's own run (no load then). PostgreSQL: its server's process tree (postmaster and backends, /proc in 10 ms ticks), not pgbench`,
  ];
}

/** Results as JSON (`--label`): the event loop's map as its entries. */
type SavedScale = Omit<ScaleResult, 'loop'> & { loop: Array<[string, LoopWatched]> };

function loadBaseline(file: string | undefined): Map<number, ScaleResult> {
  if (file === undefined) return new Map();
  const saved = JSON.parse(readFileSync(file, 'utf8')) as SavedScale[];
  return new Map(saved.map((x) => [x.scale, { ...x, loop: new Map(x.loop) }]));
}

/** The report engines side by side at each scale (bench/engines.ts). */
async function engineResults(): Promise<EnginesResult[]> {
  const results: EnginesResult[] = [];
  for (const scale of SCALES) {
    const generated = generatedDatabase(scale, undefined, REUSE);
    const mix = mixOf(generated.organizations[0]!.id, generated.lastDay);
    const start = (env: NodeJS.ProcessEnv) => startBenchService(generated, env);
    results.push(await benchEngines(generated, mix, start, (label, options) => measureLoad(label, options, new Map())));
  }
  return results;
}

/** Only the engines: RESULTS.md keeps everything else and gets this section. */
async function mainEngines(): Promise<number> {
  const results = await engineResults();
  const section = enginesSection(results);
  console.log(section.join('\n'));
  const file = quick ? path.join(root, 'bench', 'out', 'RESULTS.quick.md') : resultsFile(root);
  writeFileSync(file, withEnginesSection(file, section));
  console.error(`wrote ${path.relative(root, file)}`);
  const runs = results.flatMap((r) => r.engines.flatMap((e) => [...e.single.map((x) => x.run), e.mix16]));
  return runs.some((x) => x.non2xx + x.errors > 0) ? 1 : 0;
}

/** The profile as is, and with a write committed before each request (what steady syncs meet). */
async function profileSections(generated: Generated): Promise<string[]> {
  const plain = await profileReports(generated, PROFILE_COUNT);
  const writes = await profileReports(generated, PROFILE_COUNT, { writeBefore: true });
  return [
    profileSection(plain),
    '',
    profileSection(writes, "Where a report's time goes, another organization's write committed before each request"),
    '',
  ];
}

/** Only the profile of each scale, printed (RESULTS.md is left as it is). */
async function mainProfile(): Promise<number> {
  for (const scale of SCALES) {
    console.log(
      `## Scale ${scale}\n\n${(await profileSections(generatedDatabase(scale, undefined, REUSE))).join('\n')}`,
    );
  }
  return 0;
}

async function main(): Promise<number> {
  if (ENGINE !== undefined && ENGINE !== 'clickhouse' && ENGINE !== 'duckdb')
    throw new Error('--engine is duckdb or clickhouse');
  if (ENGINE === 'clickhouse' && ENGINES_ONLY) return mainEngines();
  if (PROFILE_ONLY) return mainProfile();
  const startTicks = cpuTicks();
  const baseline = loadBaseline(BASELINE);
  const micro = await runMicro(quick);
  const watchCpu = await watchCpuMsPerSecond();
  const scales: Array<ScaleResult & { stolen: string }> = [];
  const profiles = new Map<number, string[]>();
  for (const scale of SCALES) {
    const generated = generatedDatabase(scale, undefined, REUSE);
    const ticks = cpuTicks();
    scales.push({ ...(await benchScale(generated)), stolen: stolenSince(ticks) });
    // The served bin opens the file: after benchScale has closed it.
    if (PROFILE) profiles.set(scale, await profileSections(generated));
  }
  if (LABEL !== undefined) {
    const saved: SavedScale[] = scales.map((x) => ({ ...x, loop: [...x.loop] }));
    const file = path.join(root, 'bench', 'out', `results-${LABEL}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(saved));
    console.error(`wrote ${path.relative(root, file)}`);
  }
  const lines = [
    `# Benchmarks${quick ? ' (quick smoke run)' : ''}`,
    '',
    ...machineFacts(startTicks, watchCpu),
    '',
    '## Micro: parse + plan + compile (tinybench)',
    '',
    ...microTable(micro),
    '',
    ...scales.flatMap((x) => {
      const profile = profiles.get(x.scale);
      return [...scaleSection(x), ...(profile ? ['', ...profile] : []), ...baselineSection(x, baseline.get(x.scale))];
    }),
  ];
  const engines = ENGINE === 'clickhouse' ? await engineResults() : [];
  if (engines.length > 0) lines.push('', ...enginesSection(engines));
  const text = lines.join('\n');
  console.log(text);
  const file = quick ? path.join(root, 'bench', 'out', 'RESULTS.quick.md') : path.join(root, 'bench', 'RESULTS.md');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${text}\n`);
  console.error(`wrote ${path.relative(root, file)}`);
  const runs = scales.flatMap((s) => [
    ...s.single.map((x) => x.service),
    ...s.mix.map((m) => m.service),
    s.openLoop.run,
    ...s.other.map((o) => o.run),
    s.fairness.idle,
    s.fairness.flooded,
    s.conditional.health,
    s.conditional.cacheHit,
    ...(s.conditional.notModified ? [s.conditional.notModified] : []),
  ]);
  const engineRuns = engines.flatMap((r) => r.engines.flatMap((e) => [...e.single.map((x) => x.run), e.mix16]));
  const bad =
    runs.some((r) => r.non2xx > 0 || r.errors > 0 || r.rps === 0) || engineRuns.some((r) => r.non2xx + r.errors > 0);
  if (bad) console.error('FAIL: some runs had non-2xx responses or errors');
  return bad ? 1 : 0;
}

process.exitCode = await main();
