/**
 * `npm run bench [-- --quick]`: the service against the engine floor and a PostgreSQL peer, side
 * by side, in one run (issue 10).
 *
 * - micro: parse + plan + compile of representative requests (tinybench);
 * - load: a fixed mix of report requests over HTTPS (autocannon in a child process) at 1, 16 and
 *   64 connections, each request type alone at 1 connection, an open-loop run at half of
 *   saturation, and the token and account endpoints; the service runs in this process so its
 *   event loop can be watched (perf_hooks' delay histogram);
 * - engine floor: the SQL the planner emits, run on the same DuckDB instance in-process;
 * - peer: PostgreSQL from Debian's packages on loopback with the same facts (bench/peer/).
 *
 * Full: scale 10 and 100, 3 runs x 10 s, medians; writes bench/RESULTS.md. --quick: scale 1,
 * 1 run x 3 s, for CI; writes bench/out/RESULTS.quick.md. Exit 1 when a run had errors or non-2xx
 * answers, or the peer's answers differ from the service's; goals are reported, not enforced.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type autocannon from 'autocannon';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { serviceConfigSchema } from '../src/config/config.js';
import { startService, type RunningService } from '../src/main.js';
import { buildPlan } from '../src/planner/build-plan.js';
import { parseReportQuery, reportRequest } from '../src/reporting/report-request.js';
import { compileJsonPage } from '../src/sql/compile-report.js';
import type { SqlValue } from '../src/store/sql-values.js';
import { generatedDatabase, type Generated } from './generated.js';
import { median, post, root } from './lib.js';
import { runMicro, type MicroResult } from './micro.js';
import { loadFacts, pgbench, startPostgres } from './peer/postgres.js';
import { MIX, MIX_NAMES, mixParams, PEER_QUERIES, serviceUrlPath, verifyPeerQueries } from './peer/report-queries.js';

const quick = process.argv.includes('--quick');
const scaleArg = process.argv.indexOf('--scale');
/** `--scale N` runs one scale (e.g. 10 alone when scale 100's ~40 extra minutes do not fit). */
const SCALES = scaleArg > 0 ? [Number(process.argv[scaleArg + 1])] : quick ? [1] : [10, 100];
const RUNS = quick ? 1 : 3;
const SECONDS = quick ? 3 : 10;
const CONCURRENCY = [1, 16, 64] as const;
const BIG = 1_000_000;

/** The worst event-loop delay seen over the load runs (max, and the worst run's p99). */
interface LoopWatch {
  maxMs: number;
  p99Ms: number;
}

interface LoadRun {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
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
function floorQuery(endpoint: string, query: string, organizationId: number, now: Date): { sql: string; params: readonly SqlValue[] } {
  const found = ENDPOINT_BY_PATH.get(endpoint)!;
  const request = reportRequest(parseReportQuery(`?${query}`, found.level), found.level, organizationId, 'json');
  // The service's page is one JSON text rendered by DuckDB: the floor runs that SQL.
  return compileJsonPage(buildPlan(found, request, now));
}

function loadChild(options: autocannon.Options): Promise<LoadRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'load-child.ts'), JSON.stringify(options)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadRun) : reject(new Error(`autocannon child exited ${code}`))));
  });
}

/** Medians of RUNS runs after a 1 s warm-up. */
async function measureLoad(label: string, requested: autocannon.Options, loop?: LoopWatch): Promise<LoadRun> {
  // 64 connections of keyword pulls queue for longer than autocannon's default 10 s timeout: count those as latency, not errors.
  const options = { timeout: 60, ...requested };
  await loadChild({ ...options, duration: 1 });
  // The event loop is watched while the service is under load only, not while the floor runs in
  // this process; a histogram per run, since one re-enabled after a pause counts the pause as a delay.
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const runs: LoadRun[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await loadChild({ ...options, duration: SECONDS }));
  histogram.disable();
  if (loop) {
    loop.maxMs = Math.max(loop.maxMs, histogram.max / 1e6);
    loop.p99Ms = Math.max(loop.p99Ms, histogram.percentile(99) / 1e6);
  }
  const m = (pick: (r: LoadRun) => number) => median(runs.map(pick));
  const result = { rps: m((r) => r.rps), p50: m((r) => r.p50), p99: m((r) => r.p99), requests: m((r) => r.requests), non2xx: sum(runs, (r) => r.non2xx), errors: sum(runs, (r) => r.errors) };
  console.error(`${label}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms${result.non2xx + result.errors > 0 ? `, ${result.non2xx} non-2xx, ${result.errors} errors` : ''}`);
  return result;
}

const sum = <T>(xs: readonly T[], pick: (x: T) => number) => xs.reduce((a, x) => a + pick(x), 0);

/** The engine floor: `workers` loops running the queries on the service's own DuckDB connections for SECONDS. */
async function floorRun(service: RunningService, queries: ReadonlyArray<{ sql: string; params: readonly SqlValue[] }>, workers: number): Promise<{ qps: number; p50: number; p99: number }> {
  for (const q of queries) await service.db.read((r) => r.all(q.sql, q.params));
  const samples: number[][] = [];
  for (let run = 0; run < RUNS; run++) {
    const latencies: number[] = [];
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
    samples.push(latencies);
  }
  const qps = median(samples.map((l) => l.length / SECONDS));
  const pct = (l: number[], p: number) => [...l].sort((a, b) => a - b)[Math.min(l.length - 1, Math.floor(p * l.length))]!;
  return { qps, p50: median(samples.map((l) => pct(l, 0.5))), p99: median(samples.map((l) => pct(l, 0.99))) };
}

interface ScaleResult {
  scale: number;
  factRows: number;
  single: Array<{ name: string; service: LoadRun; floor: { qps: number; p50: number; p99: number } }>;
  mix: Array<{ connections: number; service: LoadRun; floor: { qps: number; p50: number; p99: number } }>;
  openLoop: { rate: number; run: LoadRun };
  other: Array<{ name: string; run: LoadRun }>;
  loop: { maxMs: number; p99Ms: number };
  peer: { version: string; loadSeconds: number; single: Array<{ name: string; p50: number; tps16: number }> } | { skipped: string };
}

async function benchScale(generated: Generated): Promise<ScaleResult> {
  const org = generated.organizations[0]!;
  const config = serviceConfigSchema.parse({
    dbPath: generated.dbPath,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { ratePerSecond: BIG, burst: BIG, tokenRatePerSecond: BIG, tokenBurst: BIG },
  });
  const service = await startService(config, { logError: (entry) => console.error('server error:', entry.error) });
  const loop: LoopWatch = { maxMs: 0, p99Ms: 0 };
  let result: Omit<ScaleResult, 'peer'>;
  try {
    const base = `https://127.0.0.1:${service.port}`;
    const basic = `Basic ${Buffer.from(`${org.clientId}:${org.clientSecret}`).toString('base64')}`;
    const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    const token = ((await post(`${base}/token`, form, 'grant_type=client_credentials', service.tls!.cert)) as { access_token: string }).access_token;
    const bearer = { authorization: `Bearer ${token}` };
    const now = new Date(Date.parse(`${generated.lastDay}T12:00:00Z`) + 86_400_000);
    const mix = mixOf(org.id, generated.lastDay);
    const floors = mix.map((m) => floorQuery(m.endpoint, m.query, org.id, now));
    const url = (m: (typeof mix)[number]) => `${base}${m.urlPath}`;

    // Each request type alone, one at a time: the service's latency over the engine's.
    const single = [];
    for (const [i, m] of mix.entries()) {
      const serviceRun = await measureLoad(`${m.name} x1`, { url: url(m), headers: bearer, connections: 1 }, loop);
      single.push({ name: m.name, service: serviceRun, floor: await floorRun(service, [floors[i]!], 1) });
    }
    // The mix at 1, 16 and 64 connections, against the engine at the same concurrency.
    const requests = mix.map((m) => ({ method: 'GET', path: m.urlPath, headers: bearer }));
    const mixRuns = [];
    for (const connections of CONCURRENCY) {
      const serviceRun = await measureLoad(`mix x${connections}`, { url: base, requests, connections }, loop);
      mixRuns.push({ connections, service: serviceRun, floor: await floorRun(service, floors, connections) });
    }
    // Open loop at half of the saturated rate: p99 / p50 without coordinated omission.
    const saturated = Math.max(...mixRuns.map((r) => r.service.rps));
    const rate = Math.max(1, Math.round(saturated / 2));
    const openLoop = { rate, run: await measureLoad(`mix open loop ${rate}/s`, { url: base, requests, connections: 16, overallRate: rate }, loop) };
    // Token endpoint and accounts.
    const other = [
      { name: 'POST /token', run: await measureLoad('token x16', { url: `${base}/token`, method: 'POST', headers: form, body: 'grant_type=client_credentials', connections: 16 }, loop) },
      { name: 'GET /provisioning/v0/accounts (100)', run: await measureLoad('accounts list x16', { url: `${base}/provisioning/v0/accounts?limit=100`, headers: bearer, connections: 16 }, loop) },
      {
        name: 'POST /provisioning/v0/accounts',
        run: await measureLoad('account create x16', {
          url: `${base}/provisioning/v0/accounts`,
          method: 'POST',
          headers: { ...bearer, 'content-type': 'application/json' },
          body: JSON.stringify({ account: { name: 'Bench GmbH', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } }),
          connections: 16,
        }, loop),
      },
    ];
    result = { scale: generated.scale, factRows: generated.factRows, single, mix: mixRuns, openLoop, other, loop };
  } finally {
    await service.close();
  }
  return { ...result, peer: await benchPeer(generated) };
}

/** PostgreSQL with the same facts and the same four queries (pgbench); the service must be stopped (one process per DuckDB file). */
async function benchPeer(generated: Generated): Promise<ScaleResult['peer']> {
  let peer;
  try {
    peer = await startPostgres({ dir: path.join(root, 'bench', 'out', `postgres-scale-${generated.scale}`), log: (line) => console.error(line) });
  } catch (error) {
    // Only a machine that cannot install PostgreSQL at all skips it; a broken peer fails below.
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`PostgreSQL peer skipped: ${reason}`);
    return { skipped: reason.split('\n')[0]! };
  }
  try {
    const loaded = await loadFacts(peer, generated.dbPath, (line) => console.error(line));
    const mix = mixOf(generated.organizations[0]!.id, generated.lastDay);
    await verifyPeerQueries(peer, generated.dbPath, { organizationId: generated.organizations[0]!.id, lastDay: generated.lastDay });
    const single = [];
    for (const m of mix) {
      const sql = PEER_QUERIES[m.name](m.params);
      const one = await pgbench(peer, sql, 1, SECONDS);
      const sixteen = await pgbench(peer, sql, 16, SECONDS);
      console.error(`postgres ${m.name}: p50 ${one.p50Ms.toFixed(1)} ms x1, ${Math.round(sixteen.tps)} tps x16`);
      single.push({ name: m.name, p50: one.p50Ms, tps16: sixteen.tps });
    }
    return { version: peer.version, loadSeconds: loaded.seconds, single };
  } finally {
    await peer.stop();
  }
}

// ---- report --------------------------------------------------------------------------------

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

function microTable(results: readonly MicroResult[]): string[] {
  return ['| request | ops/s | p50 us | p99 us |', '|---|---:|---:|---:|', ...results.map((r) => `| ${r.name} | ${fmt(r.opsPerSecond)} | ${fmt(r.p50Us, 1)} | ${fmt(r.p99Us, 1)} |`)];
}

function scaleSection(r: ScaleResult): string[] {
  const lines = [`## Scale ${r.scale} (${r.factRows.toLocaleString('en-US')} fact rows)`, ''];
  lines.push('### One request at a time: service vs engine floor (p50 ms)', '', '| request | service p50 | floor p50 | service / floor | goal <= 1.25 |', '|---|---:|---:|---:|---|');
  for (const s of r.single) {
    const ratio = s.service.p50 / s.floor.p50;
    lines.push(`| ${s.name} | ${fmt(s.service.p50, 1)} | ${fmt(s.floor.p50, 1)} | ${fmt(ratio, 2)} | ${verdict(ratio <= 1.25)} |`);
  }
  lines.push('', '### The mix at 1, 16, 64 connections', '', '| connections | service req/s | p50 ms | p99 ms | floor queries/s | service / floor | goal >= 0.85 |', '|---:|---:|---:|---:|---:|---:|---|');
  for (const m of r.mix) {
    const ratio = m.service.rps / m.floor.qps;
    lines.push(`| ${m.connections} | ${fmt(m.service.rps)} | ${fmt(m.service.p50, 1)} | ${fmt(m.service.p99, 1)} | ${fmt(m.floor.qps)} | ${fmt(ratio, 2)} | ${m.connections === 1 ? '-' : verdict(ratio >= 0.85)} |`);
  }
  const open = r.openLoop.run;
  lines.push(
    '',
    `Open loop at half of saturation (${r.openLoop.rate} req/s, 16 connections): p50 ${fmt(open.p50, 1)} ms, p99 ${fmt(open.p99, 1)} ms, p99 / p50 ${fmt(open.p99 / open.p50, 2)} (goal <= 3: ${verdict(open.p99 / open.p50 <= 3)}).`,
    '',
    `Event loop during the load runs: max delay ${fmt(r.loop.maxMs, 1)} ms, p99 ${fmt(r.loop.p99Ms, 1)} ms (goal: never blocked over 50 ms: ${verdict(r.loop.maxMs <= 50)}).`,
    '',
    '### Token and account endpoints (16 connections)',
    '',
    '| request | req/s | p50 ms | p99 ms |',
    '|---|---:|---:|---:|',
    ...r.other.map((o) => `| ${o.name} | ${fmt(o.run.rps)} | ${fmt(o.run.p50, 1)} | ${fmt(o.run.p99, 1)} |`),
    '',
  );
  if ('skipped' in r.peer) {
    lines.push(`### PostgreSQL peer: skipped (${r.peer.skipped})`, '');
    return lines;
  }
  lines.push(`### PostgreSQL peer (${r.peer.version}, facts loaded in ${fmt(r.peer.loadSeconds)} s)`, '', '| request | PostgreSQL p50 ms | service p50 ms | PostgreSQL / service (latency) |', '|---|---:|---:|---:|');
  for (const p of r.peer.single) {
    const s = r.single.find((x) => x.name === p.name)!;
    lines.push(`| ${p.name} | ${fmt(p.p50, 1)} | ${fmt(s.service.p50, 1)} | ${fmt(p.p50 / s.service.p50, 1)} |`);
  }
  // The mix: one request of each type, in sequence; at 16 connections the throughput of each alone, harmonically combined.
  const pgMix = sum(r.peer.single, (p) => p.p50);
  const serviceMix = sum(r.single, (s) => s.service.p50);
  const pgMixTps = r.peer.single.length / sum(r.peer.single, (p) => 1 / p.tps16);
  const serviceMix16 = r.mix.find((m) => m.connections === 16)!.service.rps;
  lines.push(
    '',
    `Mix, one at a time: PostgreSQL ${fmt(pgMix, 1)} ms vs service ${fmt(serviceMix, 1)} ms per round of four: **${fmt(pgMix / serviceMix, 1)}x** (goal >= 10: ${verdict(pgMix / serviceMix >= 10)}).`,
    `Mix at 16 connections: PostgreSQL ${fmt(pgMixTps)} vs service ${fmt(serviceMix16)} requests/s: **${fmt(serviceMix16 / pgMixTps, 1)}x**.`,
    '',
  );
  return lines;
}

function machineFacts(): string[] {
  const cpus = os.cpus();
  return [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, node ${process.version}`,
    `- command: \`npm run bench${quick || scaleArg > 0 ? ' --' : ''}${quick ? ' --quick' : ''}${scaleArg > 0 ? ` --scale ${SCALES[0]}` : ''}\` (${RUNS} run(s) x ${SECONDS} s per measurement, medians; load by autocannon in a child process over HTTPS; the service in the bench process, DuckDB threads = cores)`,
    '- on one machine the load generator, the service and DuckDB share the cores: read ratios, not absolute claims',
  ];
}

async function main(): Promise<number> {
  const micro = await runMicro(quick);
  const scales: ScaleResult[] = [];
  for (const scale of SCALES) scales.push(await benchScale(generatedDatabase(scale)));
  const lines = [
    `# Benchmarks${quick ? ' (quick smoke run)' : ''}`,
    '',
    ...machineFacts(),
    '',
    '## Micro: parse + plan + compile (tinybench)',
    '',
    ...microTable(micro),
    '',
    ...scales.flatMap(scaleSection),
  ];
  const text = lines.join('\n');
  console.log(text);
  const file = quick ? path.join(root, 'bench', 'out', 'RESULTS.quick.md') : path.join(root, 'bench', 'RESULTS.md');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${text}\n`);
  console.error(`wrote ${path.relative(root, file)}`);
  const runs = scales.flatMap((s) => [...s.single.map((x) => x.service), ...s.mix.map((m) => m.service), s.openLoop.run, ...s.other.map((o) => o.run)]);
  const bad = runs.some((r) => r.non2xx > 0 || r.errors > 0 || r.rps === 0);
  if (bad) console.error('FAIL: some runs had non-2xx responses or errors');
  return bad ? 1 : 0;
}

process.exitCode = await main();
