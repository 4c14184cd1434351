/**
 * Reports and ingest on three deployments of the same generated world (issue 38 item 5):
 *
 * (a) embedded DuckDB: `data generate --db FILE`, `serve --db FILE`;
 * (b) PostgreSQL + one ClickHouse node: `clickhouse cluster up --shards 1 --replicas 1`, facts on
 *     the node through `ADREPORT_CLICKHOUSE_URL` (plain tables), the rest in PostgreSQL. `cluster
 *     up` makes its tables Distributed, into which plain-table mode cannot load ("Table engine
 *     Distributed doesn't support partitioning", 2026-11-29): the bench tries that first, records
 *     the error, then drops and re-creates the node's database (empty, as on a plain server) and
 *     generates again into a fresh PostgreSQL database;
 * (c) PostgreSQL + a 2 x 2 ClickHouse cluster: `ADREPORT_CLICKHOUSE_SHARD_URLS` (Distributed
 *     tables sharded by organization_id, organization K on shard (K mod 2) + 1).
 *
 * Each is generated with the same `data generate --scale S --days D --seed 1 --orgs K` (on (b) and
 * (c) the figure "N fact and rollup rows loaded into ClickHouse in X s" it prints is the ingest,
 * and the whole command is timed too), then served by one `serve` process each (rate limits
 * lifted, page cache and database-time budget off). Against each, after a check and a warm-up,
 * from this process (undici, HTTPS, wall time until the last byte of the body), one deployment's
 * load at a time but interleaved in blocks (5 mix rounds or 5 pulls or a third of the 8-connection
 * seconds on (a), then on (b), then on (c), again): the machine is shared, and a burst of other
 * work then lands on every deployment alike. The idle servers and nodes wait meanwhile:
 *
 * - the mix of bench/run.ts (bench/peer/report-queries.ts: campaigns 30 days, ad groups by Day x
 *   DeviceType 7 days, keywords filtered + sorted 30 days, the keywords pull of every keyword 30
 *   days), one connection, one request at a time: --requests rounds of the 4 shapes, round r on
 *   organization r mod K; p50 / p99 per shape;
 * - a 10,000-row pull: /reporting/v0/keywords?segments=Day&limit=10000 over the whole generated
 *   range (checked on (a) to answer 10,000 rows; else ads, else Day,DeviceType), --requests runs;
 * - the mix at 8 connections for --seconds: requests/s, p50 / p99 over all shapes.
 *
 * Every answer must be 200 with `X-Report-Engine: duckdb` on (a) and `clickhouse` on (b), (c);
 * anything else is counted and printed. CPU of the service, each ClickHouse node, PostgreSQL (the
 * postmaster and its backends) and this process is read from /proc around each measurement; the
 * PostgreSQL backends are told apart by whose socket they serve (the service's pool or a ClickHouse
 * node's PostgreSQL table engine). On (b), after the load: a second serve whose ClickHouse URL is
 * a recording proxy in front of the node answers 7 requests of each shape (how much of the HTTP
 * wall time the node took), and the statements of the last are replayed on the node against its
 * database (dimensions are PostgreSQL-engine tables: every report reads them from PostgreSQL) and
 * against a copy of it with the dimensions in MergeTree tables: the share of a report's ClickHouse
 * time spent reading dimensions from PostgreSQL.
 *
 *   npm run build && node --import tsx bench/clickhouse-cluster.ts [--scale 1] [--days 90] [--orgs 2] [--requests 60] [--seconds 15]
 *
 * Default scale 1 at 90 days (~224 k fact rows): the smallest scale with two accounts, so that
 * two organizations land on the two shards of (c) (scale 0.2 has one account, one organization,
 * and one shard would hold everything). Writes bench/RESULTS.clickhouse-cluster.md (figures as
 * ratios to (a) of the same run); its "Reading" paragraph is written by hand after the run.
 * Every process and temp directory it starts is gone at the end, also on failure or Ctrl-C.
 */
import { readdirSync, readFileSync, readlinkSync, rmSync, mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { execFileSync } from 'node:child_process';
import { distIsCurrent } from '../scripts/build-inputs.js';
import { CLI, runCli, startServe, type CliResult, type ServeProcess } from '../test/helpers/cli.js';
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres-server.js';
import { MIX_NAMES, mixParams, serviceUrlPath, type MixName } from './peer/report-queries.js';
import { processTable, TICKS_PER_SECOND, treeCpuMs } from './process-cpu.js';
import { Cleanups } from './cleanups.js';

// ---------------------------------------------------------------------------------------------
// Arguments

const args = process.argv.slice(2);
function flag(name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!(value > 0)) throw new Error(`--${name} N: a positive number, not ${args[i + 1]}`);
  return value;
}
const SCALE = flag('scale', 1);
const DAYS = flag('days', 90);
const ACCOUNTS = Math.max(1, Math.round(1.5 * SCALE));
/** Two organizations (one per shard of (c)) when the scale has two accounts, else the generator's default. */
const ORGS = flag('orgs', Math.min(ACCOUNTS, Math.max(2, Math.round(Math.sqrt(SCALE)))));
const REQUESTS = Math.round(flag('requests', 60));
const SECONDS = flag('seconds', 15);
const SEED = 1;
const CONCURRENT = 8;
const PULL_ROWS = 10_000;
/** Replays of each captured statement set per variant (dimensions in PostgreSQL / in MergeTree). */
const REPLAYS = 15;
/** Requests per shape through the recording proxy (medians of their HTTP wall and node time). */
const CAPTURES = 7;

const BIG = '1000000';
const SERVER_ENV: Record<string, string> = {
  ADREPORT_RATE_LIMIT_PER_SECOND: BIG,
  ADREPORT_RATE_LIMIT_BURST: BIG,
  ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: BIG,
  ADREPORT_TOKEN_RATE_LIMIT_BURST: BIG,
  ADREPORT_DB_TIME_MS_PER_SECOND: '0',
  ADREPORT_CACHE_MB: '0',
};
const FORM = 'application/x-www-form-urlencoded';

const T0 = performance.now();
const log = (line: string) =>
  console.error(`clickhouse-cluster +${((performance.now() - T0) / 1000).toFixed(0)} s: ${line}`);

// ---------------------------------------------------------------------------------------------
// Cleanup: every process and directory this run starts, undone newest first, also on Ctrl-C.

const cleanups = new Cleanups(log);
/** Last resort: ClickHouse node pids still alive when this process exits are SIGKILLed. */
const nodePids = new Set<number>();
process.on('exit', () => {
  for (const pid of nodePids)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------------------------------------
// /proc: CPU time (user + system, reaped children included) of process trees, and RSS

/** Resident memory of a tree in MB (VmRSS summed). */
function treeRssMb(root: number): number {
  const table = processTable();
  let kb = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += Number(match?.[1] ?? 0);
    } catch {
      // gone
    }
    for (const [child, { ppid }] of table) if (ppid === pid) stack.push(child);
  }
  return kb / 1024;
}

const selfCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Loopback TCP sockets: inode -> [local port, remote port]. */
function tcpSockets(): Map<string, [number, number]> {
  const sockets = new Map<string, [number, number]>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
      sockets.set(f[9]!, [port(f[1]!), port(f[2]!)]);
    }
  }
  return sockets;
}

/** The local ports of a process's TCP connections to `remotePort`. */
function clientPortsOf(pid: number, remotePort: number, sockets: Map<string, [number, number]>): Set<number> {
  const ports = new Set<number>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return ports;
  }
  for (const fd of fds) {
    let link = '';
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    const socket = inode === undefined ? undefined : sockets.get(inode);
    if (socket && socket[1] === remotePort) ports.add(socket[0]);
  }
  return ports;
}

// ---------------------------------------------------------------------------------------------
// HTTP: one request, its latency, status, engine header and rows

interface Answer {
  ms: number;
  status: number;
  engine: string | undefined;
  bytes: number;
  body: Buffer;
}

async function get(pool: Pool, urlPath: string, bearer: string): Promise<Answer> {
  const began = performance.now();
  const response = await pool.request({ method: 'GET', path: urlPath, headers: { authorization: `Bearer ${bearer}` } });
  const body = Buffer.from(await response.body.arrayBuffer());
  const engine = response.headers['x-report-engine'];
  return {
    ms: performance.now() - began,
    status: response.statusCode,
    engine: Array.isArray(engine) ? engine[0] : engine,
    bytes: body.length,
    body,
  };
}

/** The rows of a report answer: its one top-level array. */
function rowsOf(body: Buffer): number {
  try {
    const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    for (const value of Object.values(json)) if (Array.isArray(value)) return value.length;
  } catch {
    // not JSON
  }
  return -1;
}

const percentile = (values: readonly number[], q: number) => {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
};
const median = (values: readonly number[]) => percentile(values, 0.5);

// ---------------------------------------------------------------------------------------------
// Deployments

interface Organization {
  id: number;
  clientId: string;
  clientSecret: string;
}

interface Generated {
  organizations: Organization[];
  factRows: number;
  lastDay: string;
  firstDay: string;
  /** The whole `data generate` command, wall seconds. */
  commandSeconds: number;
  /** From the "loaded into ClickHouse" line: rows and seconds (deployments with ClickHouse). */
  loaded?: { rows: number; seconds: number; topology: string };
  stderr: string;
}

interface Deployment {
  key: 'duckdb' | 'node' | 'cluster';
  label: string;
  engine: 'duckdb' | 'clickhouse';
  generated: Generated;
  serve: ServeProcess;
  ca: string;
  /** ClickHouse nodes: label and pid. */
  nodes: Array<{ label: string; pid: number; httpPort: number }>;
  postgresPid: number | null;
  postgresPort: number | null;
  storeUrl: string | null;
  /** How `serve` was started (for the capture of (b)). */
  serveArgs: string[];
  env: Record<string, string>;
}

/** `data generate`, timed; its stdout JSON and the figures of its stderr. */
async function generate(target: string[], env: Record<string, string>): Promise<Generated> {
  const began = performance.now();
  const result = await runCli(
    [
      'data',
      'generate',
      '--scale',
      String(SCALE),
      '--days',
      String(DAYS),
      '--seed',
      String(SEED),
      '--orgs',
      String(ORGS),
      ...target,
      '--json',
    ],
    env,
  );
  const commandSeconds = (performance.now() - began) / 1000;
  if (result.code !== 0)
    throw new Error(`data generate ${target.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(-2000)}`);
  const out = JSON.parse(result.stdout) as { organizations: Organization[]; factRows: number };
  const range = /(\d{4}-\d\d-\d\d)\.\.(\d{4}-\d\d-\d\d)/.exec(result.stderr);
  if (!range) throw new Error(`data generate: no date range in its stderr: ${result.stderr.slice(-500)}`);
  const loadedLine = /(\d+) fact and rollup rows loaded into ClickHouse \((.*)\) in ([\d.]+) s/.exec(result.stderr);
  return {
    organizations: out.organizations,
    factRows: out.factRows,
    firstDay: range[1]!,
    lastDay: range[2]!,
    commandSeconds,
    loaded: loadedLine
      ? { rows: Number(loadedLine[1]), topology: loadedLine[2]!, seconds: Number(loadedLine[3]) }
      : undefined,
    stderr: result.stderr,
  };
}

async function serve(serveArgs: string[], env: Record<string, string>, label: string): Promise<ServeProcess> {
  let running: ServeProcess;
  try {
    running = await startServe(serveArgs, { ...SERVER_ENV, ...env });
  } catch (error) {
    throw new Error(`${label}: serve did not start: ${(error as Error).message.slice(-3000)}`);
  }
  cleanups.push(async () => {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });
  return running;
}

async function stopServe(running: ServeProcess): Promise<void> {
  if (running.child.exitCode === null && running.child.signalCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
}

interface ClusterJson {
  nodes: Array<{ shard: number; replica: number; url: string; httpPort: number; tcpPort: number; pid: number }>;
}

async function clusterUp(shards: number, replicas: number): Promise<{ dir: string; cluster: ClusterJson }> {
  const dir = tempDir(`adreport-chbench-${shards}x${replicas}-`);
  const result: CliResult = await runCli([
    'clickhouse',
    'cluster',
    'up',
    '--shards',
    String(shards),
    '--replicas',
    String(replicas),
    '--dir',
    dir,
    '--json',
  ]);
  // Down even when up failed half-way (it stops what it started, but once more is harmless).
  cleanups.push(async () => {
    const down = await runCli(['clickhouse', 'cluster', 'down', '--dir', dir]);
    if (down.code !== 0) log(`cluster down ${dir}: exited ${down.code}: ${down.stderr.trim()}`);
  });
  if (result.code !== 0)
    throw new Error(`clickhouse cluster up ${shards}x${replicas} exited ${result.code}: ${result.stderr.trim()}`);
  const cluster = JSON.parse(result.stdout) as ClusterJson;
  for (const node of cluster.nodes) nodePids.add(node.pid);
  return { dir, cluster };
}

// ---------------------------------------------------------------------------------------------
// The requests

interface Shape {
  name: string;
  /** Per organization id: the request path. */
  path: Map<number, string>;
}

function mixShapes(organizations: readonly Organization[], lastDay: string): Shape[] {
  return MIX_NAMES.map((name: MixName) => ({
    name,
    path: new Map(organizations.map((o) => [o.id, serviceUrlPath(name, mixParams(name, o.id, lastDay))])),
  }));
}

/** The 10,000-row pull: the first candidate that answers 10,000 rows on DuckDB for an organization. */
function pullCandidates(firstDay: string, lastDay: string): string[] {
  const range = `startDate=${firstDay}&endDate=${lastDay}`;
  return [
    `/reporting/v0/keywords?${range}&segments=Day&limit=${PULL_ROWS}`,
    `/reporting/v0/ads?${range}&segments=Day&limit=${PULL_ROWS}`,
    `/reporting/v0/keywords?${range}&segments=Day,DeviceType&limit=${PULL_ROWS}`,
  ];
}

interface Problems {
  /** "status / engine" -> count, for every answer not 200 with the expected engine. */
  bad: Map<string, number>;
  /** The first few bad answers' bodies. */
  samples: string[];
}

function note(problems: Problems, deployment: Deployment, where: string, answer: Answer): void {
  if (answer.status === 200 && answer.engine === deployment.engine) return;
  const key = `${where}: ${answer.status} engine=${answer.engine ?? '-'}`;
  problems.bad.set(key, (problems.bad.get(key) ?? 0) + 1);
  if (problems.samples.length < 5) problems.samples.push(`${key}: ${answer.body.toString('utf8').slice(0, 400)}`);
}

/** CPU ms accumulated over the slices of one phase of one deployment. */
interface CpuAccumulator {
  wallMs: number;
  serviceMs: number;
  nodesMs: number[];
  postgresMs: number;
  generatorMs: number;
  postgresBy: { service: number; clickhouse: number; other: number };
}

interface CpuWindow {
  seconds: number;
  /** Cores used on average: service, each node, PostgreSQL, this process. */
  service: number;
  nodes: number[];
  postgres: number | null;
  generator: number;
  /** PostgreSQL's CPU split by whose connection its backend served (cores). */
  postgresBy: { service: number; clickhouse: number; other: number } | null;
}

function accumulator(deployment: Deployment): CpuAccumulator {
  return {
    wallMs: 0,
    serviceMs: 0,
    nodesMs: deployment.nodes.map(() => 0),
    postgresMs: 0,
    generatorMs: 0,
    postgresBy: { service: 0, clickhouse: 0, other: 0 },
  };
}

function window(deployment: Deployment, acc: CpuAccumulator): CpuWindow {
  const cores = (cpuMs: number) => cpuMs / acc.wallMs;
  return {
    seconds: acc.wallMs / 1000,
    service: cores(acc.serviceMs),
    nodes: acc.nodesMs.map(cores),
    postgres: deployment.postgresPid ? cores(acc.postgresMs) : null,
    generator: cores(acc.generatorMs),
    postgresBy: deployment.postgresPid
      ? {
          service: cores(acc.postgresBy.service),
          clickhouse: cores(acc.postgresBy.clickhouse),
          other: cores(acc.postgresBy.other),
        }
      : null,
  };
}

/** Runs `work` and adds the CPU of the deployment's processes and of this one (without the /proc scans) to `acc`. */
async function withCpu<T>(
  deployment: Deployment,
  postgresClient: pg.Client | null,
  acc: CpuAccumulator,
  work: () => Promise<T>,
): Promise<T> {
  const roots = [
    deployment.serve.child.pid!,
    ...deployment.nodes.map((n) => n.pid),
    ...(deployment.postgresPid ? [deployment.postgresPid] : []),
  ];
  const backendsBefore = deployment.postgresPid ? backendTicks(deployment.postgresPid) : new Map<number, number>();
  const before = treeCpuMs(roots);
  const selfBefore = selfCpuMs();
  const began = performance.now();
  const result = await work();
  const wallMs = performance.now() - began;
  const selfAfter = selfCpuMs();
  const after = treeCpuMs(roots);
  const spent = after.map((a, i) => a - before[i]!);
  const n = deployment.nodes.length;
  acc.wallMs += wallMs;
  acc.generatorMs += selfAfter - selfBefore;
  acc.serviceMs += spent[0]!;
  for (let i = 0; i < n; i++) acc.nodesMs[i]! += spent[1 + i]!;
  if (deployment.postgresPid && postgresClient) {
    acc.postgresMs += spent[1 + n]!;
    const backendsAfter = backendTicks(deployment.postgresPid);
    const owners = await backendOwners(deployment, postgresClient);
    for (const [pid, ticks] of backendsAfter)
      acc.postgresBy[owners.get(pid) ?? 'other'] +=
        ((ticks - (backendsBefore.get(pid) ?? 0)) / TICKS_PER_SECOND) * 1000;
  }
  return result;
}

/** CPU ticks of each live child of the postmaster (backends and background processes). */
function backendTicks(postmaster: number): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const [pid, stat] of processTable()) if (stat.ppid === postmaster) ticks.set(pid, stat.ticks);
  return ticks;
}

/** Backend pid -> whose connection it serves: the service's pool, a ClickHouse node's PostgreSQL engine. */
async function backendOwners(
  deployment: Deployment,
  client: pg.Client,
): Promise<Map<number, 'service' | 'clickhouse' | 'other'>> {
  const rows = (
    await client.query<{ pid: number; client_port: number }>(
      'SELECT pid, client_port FROM pg_stat_activity WHERE client_port IS NOT NULL',
    )
  ).rows;
  const sockets = tcpSockets();
  const servicePorts = clientPortsOf(deployment.serve.child.pid!, deployment.postgresPort!, sockets);
  const nodePorts = new Set(
    deployment.nodes.flatMap((n) => [...clientPortsOf(n.pid, deployment.postgresPort!, sockets)]),
  );
  const owners = new Map<number, 'service' | 'clickhouse' | 'other'>();
  for (const row of rows)
    owners.set(
      row.pid,
      servicePorts.has(row.client_port) ? 'service' : nodePorts.has(row.client_port) ? 'clickhouse' : 'other',
    );
  return owners;
}

interface ShapeResult {
  name: string;
  rows: number;
  bytes: number;
  p50: number;
  p99: number;
}

interface DeploymentResult {
  deployment: Deployment;
  /** Rows of each shape per organization (the first check), for comparing deployments. */
  rows: Map<string, number>;
  mix: ShapeResult[];
  mixCpu: CpuWindow;
  pull: ShapeResult;
  pullCpu: CpuWindow;
  concurrent: { requests: number; rps: number; p50: number; p99: number; cpu: CpuWindow };
  problems: Problems;
  rssMb: { service: number; nodes: number[]; postgres: number | null };
}

async function token(pool: Pool, organization: Organization): Promise<string> {
  const response = await pool.request({
    method: 'POST',
    path: '/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${organization.clientId}:${organization.clientSecret}`).toString('base64')}`,
      'content-type': FORM,
    },
    body: 'grant_type=client_credentials',
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`POST /token: ${response.statusCode} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { access_token: string }).access_token;
}

/** Chosen on (a): the pull's path (organization-independent) and the organizations it answers 10,000 rows for. */
let pullChoice: { path: string; organizations: number[] } | undefined;

/** A served deployment under measurement: its clients, requests and what was measured so far. */
interface Live {
  deployment: Deployment;
  single: Pool;
  eight: Pool;
  tokens: Map<number, string>;
  shapes: Shape[];
  orgIds: number[];
  problems: Problems;
  rows: Map<string, number>;
  mixLatencies: Map<string, number[]>;
  mixBytes: Map<string, number>;
  pullLatencies: number[];
  pullBytes: number;
  concurrentLatencies: number[];
  concurrentWallMs: number;
  cpu: { mix: CpuAccumulator; pull: CpuAccumulator; concurrent: CpuAccumulator };
}

/** Tokens, a check of every request (200, the engine, rows), the pull chosen (on (a)), a warm-up. */
async function prepare(deployment: Deployment): Promise<Live> {
  const { generated } = deployment;
  const origin = `https://127.0.0.1:${deployment.serve.listening.port}`;
  const single = new Pool(origin, { connections: 1, pipelining: 1, connect: { ca: deployment.ca } });
  const eight = new Pool(origin, { connections: CONCURRENT, pipelining: 1, connect: { ca: deployment.ca } });
  cleanups.push(() => Promise.all([single.destroy(), eight.destroy()]).then(() => undefined));
  const tokens = new Map<number, string>();
  for (const o of generated.organizations) tokens.set(o.id, await token(single, o));
  const problems: Problems = { bad: new Map(), samples: [] };
  const shapes = mixShapes(generated.organizations, generated.lastDay);
  const orgIds = generated.organizations.map((o) => o.id);

  const rows = new Map<string, number>();
  for (const shape of shapes)
    for (const id of orgIds) {
      const answer = await get(single, shape.path.get(id)!, tokens.get(id)!);
      note(problems, deployment, `check ${shape.name} org ${id}`, answer);
      rows.set(`${shape.name} org ${id}`, rowsOf(answer.body));
    }
  if (pullChoice === undefined) {
    for (const candidate of pullCandidates(generated.firstDay, generated.lastDay)) {
      const organizations: number[] = [];
      for (const id of orgIds) {
        const answer = await get(single, candidate, tokens.get(id)!);
        if (answer.status === 200 && rowsOf(answer.body) >= PULL_ROWS) organizations.push(id);
      }
      if (organizations.length > 0) {
        pullChoice = { path: candidate, organizations };
        break;
      }
    }
    if (pullChoice === undefined)
      throw new Error(
        `no pull candidate answers ${PULL_ROWS} rows on ${deployment.label}: use a larger --scale or --days`,
      );
    log(`the pull: ${pullChoice.path} (organizations ${pullChoice.organizations.join(', ')})`);
  }
  for (const id of pullChoice.organizations) {
    const answer = await get(single, pullChoice.path, tokens.get(id)!);
    note(problems, deployment, `check pull org ${id}`, answer);
    rows.set(`pull org ${id}`, rowsOf(answer.body));
  }
  // Warm-up: the mix twice for every organization, the pull three times.
  for (let round = 0; round < 2; round++)
    for (const shape of shapes)
      for (const id of orgIds)
        note(problems, deployment, 'warm-up', await get(single, shape.path.get(id)!, tokens.get(id)!));
  for (let i = 0; i < 3; i++) {
    const id = pullChoice.organizations[i % pullChoice.organizations.length]!;
    note(problems, deployment, 'warm-up', await get(single, pullChoice.path, tokens.get(id)!));
  }
  return {
    deployment,
    single,
    eight,
    tokens,
    shapes,
    orgIds,
    problems,
    rows,
    mixLatencies: new Map(shapes.map((s) => [s.name, []])),
    mixBytes: new Map(),
    pullLatencies: [],
    pullBytes: 0,
    concurrentLatencies: [],
    concurrentWallMs: 0,
    cpu: { mix: accumulator(deployment), pull: accumulator(deployment), concurrent: accumulator(deployment) },
  };
}

/** Mix rounds `from` .. `to` - 1 on one connection. */
async function mixRounds(live: Live, from: number, to: number): Promise<void> {
  for (let round = from; round < to; round++) {
    const id = live.orgIds[round % live.orgIds.length]!;
    for (const shape of live.shapes) {
      const answer = await get(live.single, shape.path.get(id)!, live.tokens.get(id)!);
      note(live.problems, live.deployment, `mix ${shape.name}`, answer);
      live.mixLatencies.get(shape.name)!.push(answer.ms);
      live.mixBytes.set(shape.name, answer.bytes);
    }
  }
}

/** Pulls `from` .. `to` - 1 on one connection. */
async function pulls(live: Live, from: number, to: number): Promise<void> {
  const { organizations, path: pullPath } = pullChoice!;
  for (let i = from; i < to; i++) {
    const id = organizations[i % organizations.length]!;
    const answer = await get(live.single, pullPath, live.tokens.get(id)!);
    note(live.problems, live.deployment, 'pull', answer);
    live.pullLatencies.push(answer.ms);
    live.pullBytes = answer.bytes;
  }
}

/** The mix at 8 connections for `seconds`: worker w walks the sequence (shapes x organizations) from its own offset. */
async function concurrentSlice(live: Live, seconds: number, slice: number): Promise<void> {
  const sequence = live.orgIds.flatMap((id) =>
    live.shapes.map((s) => ({ name: s.name, path: s.path.get(id)!, bearer: live.tokens.get(id)! })),
  );
  const began = performance.now();
  const deadline = began + seconds * 1000;
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const request = sequence[(w + i + slice) % sequence.length]!;
      try {
        const answer = await get(live.eight, request.path, request.bearer);
        note(live.problems, live.deployment, `x${CONCURRENT} ${request.name}`, answer);
        live.concurrentLatencies.push(answer.ms);
      } catch (error) {
        const key = `x${CONCURRENT} ${request.name}: ${(error as Error).message}`;
        live.problems.bad.set(key, (live.problems.bad.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, (_, w) => worker(w)));
  live.concurrentWallMs += performance.now() - began;
}

/** Rounds of the mix per block, pulls per block, and slices of the 8-connection load. */
const BLOCK = 5;
const SLICES = 3;

/**
 * The measurements, interleaved: each phase in blocks, every deployment's block in turn (a, b, c,
 * a, b, c, ...), one deployment's load at a time. The machine is shared: a burst of other work then
 * lands on every deployment alike instead of on whichever ran at that moment.
 */
async function measureInterleaved(lives: readonly Live[], postgresClient: pg.Client | null): Promise<void> {
  for (let from = 0; from < REQUESTS; from += BLOCK)
    for (const live of lives)
      await withCpu(live.deployment, live.deployment.postgresPid ? postgresClient : null, live.cpu.mix, () =>
        mixRounds(live, from, Math.min(REQUESTS, from + BLOCK)),
      );
  log(`mix on 1 connection: done (${REQUESTS} rounds per deployment)`);
  for (let from = 0; from < REQUESTS; from += BLOCK)
    for (const live of lives)
      await withCpu(live.deployment, live.deployment.postgresPid ? postgresClient : null, live.cpu.pull, () =>
        pulls(live, from, Math.min(REQUESTS, from + BLOCK)),
      );
  log(`pull on 1 connection: done (${REQUESTS} per deployment)`);
  for (let slice = 0; slice < SLICES; slice++)
    for (const live of lives)
      await withCpu(live.deployment, live.deployment.postgresPid ? postgresClient : null, live.cpu.concurrent, () =>
        concurrentSlice(live, SECONDS / SLICES, slice),
      );
  log(`mix at ${CONCURRENT} connections: done (${SECONDS} s per deployment in ${SLICES} slices)`);
}

function resultOf(live: Live): DeploymentResult {
  const { deployment } = live;
  const mix: ShapeResult[] = live.shapes.map((s) => ({
    name: s.name,
    rows: live.rows.get(`${s.name} org ${live.orgIds[0]}`)!,
    bytes: live.mixBytes.get(s.name)!,
    p50: median(live.mixLatencies.get(s.name)!),
    p99: percentile(live.mixLatencies.get(s.name)!, 0.99),
  }));
  const pull: ShapeResult = {
    name: 'pull',
    rows: live.rows.get(`pull org ${pullChoice!.organizations[0]}`)!,
    bytes: live.pullBytes,
    p50: median(live.pullLatencies),
    p99: percentile(live.pullLatencies, 0.99),
  };
  const concurrent = {
    requests: live.concurrentLatencies.length,
    rps: live.concurrentLatencies.length / (live.concurrentWallMs / 1000),
    p50: median(live.concurrentLatencies),
    p99: percentile(live.concurrentLatencies, 0.99),
    cpu: window(deployment, live.cpu.concurrent),
  };
  const c = concurrent.cpu;
  log(
    `${deployment.label}: mix ${mix.map((m) => `${m.name} ${ms(m.p50)}`).join(', ')} ms p50; pull ${ms(pull.p50)} / ${ms(pull.p99)} ms; ` +
      `x${CONCURRENT} ${concurrent.rps.toFixed(1)} req/s (p50 ${ms(concurrent.p50)}, p99 ${ms(concurrent.p99)} ms), ` +
      `cores: service ${c.service.toFixed(2)}, nodes ${c.nodes.map((x) => x.toFixed(2)).join('/') || '-'}, PostgreSQL ${c.postgres?.toFixed(2) ?? '-'}`,
  );
  if (live.problems.bad.size > 0)
    log(
      `${deployment.label}: answers not 200/${deployment.engine}: ${[...live.problems.bad].map(([k, n]) => `${k} x${n}`).join('; ')}`,
    );
  return {
    deployment,
    rows: live.rows,
    mix,
    mixCpu: window(deployment, live.cpu.mix),
    pull,
    pullCpu: window(deployment, live.cpu.pull),
    concurrent,
    problems: live.problems,
    rssMb: {
      service: treeRssMb(deployment.serve.child.pid!),
      nodes: deployment.nodes.map((n) => treeRssMb(n.pid)),
      postgres: deployment.postgresPid ? treeRssMb(deployment.postgresPid) : null,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Dimensions from PostgreSQL: the statements of one request per shape, captured by a proxy in
// front of the node, replayed on the node's database and on a copy with dimensions in MergeTree.

interface Captured {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** From the proxy's view: request received until the node's answer ended. */
  ms: number;
}

interface DimensionRow {
  name: string;
  statements: number;
  /** Median ms of the statements run in sequence, dimensions read from PostgreSQL / from MergeTree copies. */
  postgresMs: number;
  mergeTreeMs: number;
  /** The HTTP p50 of the same shape on (b), for scale. */
  httpP50: number;
  /** The captured request: its HTTP wall time, and the time the node took for it (through the proxy). */
  capturedHttpMs: number;
  capturedNodeMs: number;
  /** Requests to the node during the captured request that were not replayed (pings, ...). */
  others: string[];
  error?: string;
}

function recordingProxy(
  targetPort: number,
): Promise<{ port: number; captured: Captured[]; close: () => Promise<void> }> {
  const captured: Captured[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const began = performance.now();
      const entry: Captured = {
        path: request.url ?? '/',
        headers: request.headers,
        body: body.toString('utf8'),
        ms: NaN,
      };
      captured.push(entry);
      response.once('finish', () => (entry.ms = performance.now() - began));
      const upstream = http.request(
        { host: '127.0.0.1', port: targetPort, method: request.method, path: request.url, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', (error) => {
        response.writeHead(502);
        response.end(String(error));
      });
      upstream.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        captured,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    ),
  );
}

/** The statement text of a captured request (the body, or the `query` parameter). */
function statementOf(c: Captured): string {
  const query = new URL(c.path, 'http://x').searchParams.get('query');
  return `${query ?? ''}${c.body}`;
}

async function chQuery(httpPort: number, sql: string, database = 'default'): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${httpPort}/?database=${database}`, { method: 'POST', body: sql });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse: ${text.trim().slice(0, 500)} (in: ${sql.slice(0, 200)})`);
  return text;
}

/** A copy of database `from` as `to`: PostgreSQL-engine tables as MergeTree, MergeTree tables copied, Distributed re-pointed. */
async function copyWithMergeTreeDimensions(httpPort: number, from: string, to: string): Promise<string[]> {
  await chQuery(httpPort, `DROP DATABASE IF EXISTS ${to}`);
  await chQuery(httpPort, `CREATE DATABASE ${to}`);
  const tables = (
    await chQuery(
      httpPort,
      `SELECT name, engine, engine_full FROM system.tables WHERE database = '${from}' FORMAT JSONEachRow`,
    )
  )
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { name: string; engine: string; engine_full: string });
  const copiedDimensions: string[] = [];
  const quote = (name: string) => `\`${name.replaceAll('`', '\\`')}\``;
  for (const t of tables.filter((t) => t.engine === 'PostgreSQL')) {
    await chQuery(
      httpPort,
      `CREATE TABLE ${to}.${quote(t.name)} ENGINE = MergeTree ORDER BY tuple() AS SELECT * FROM ${from}.${quote(t.name)}`,
    );
    copiedDimensions.push(t.name);
  }
  for (const t of tables.filter((t) => t.engine.endsWith('MergeTree'))) {
    await chQuery(httpPort, `CREATE TABLE ${to}.${quote(t.name)} AS ${from}.${quote(t.name)}`);
    await chQuery(httpPort, `INSERT INTO ${to}.${quote(t.name)} SELECT * FROM ${from}.${quote(t.name)}`);
  }
  for (const t of tables.filter((t) => t.engine === 'Distributed')) {
    const engine = t.engine_full.replace(/^Distributed\(\s*('[^']*')\s*,\s*'[^']*'/, `Distributed($1, '${to}'`);
    await chQuery(httpPort, `CREATE TABLE ${to}.${quote(t.name)} AS ${from}.${quote(t.name)} ENGINE = ${engine}`);
  }
  const others = tables.filter(
    (t) => !(t.engine === 'PostgreSQL' || t.engine.endsWith('MergeTree') || t.engine === 'Distributed'),
  );
  if (others.length > 0) log(`dimension copy: left out ${others.map((t) => `${t.name} (${t.engine})`).join(', ')}`);
  return copiedDimensions;
}

/** Runs captured statements in order on the node, in `database`; wall ms and the bytes answered. */
async function replay(
  httpPort: number,
  statements: readonly Captured[],
  database: string,
): Promise<{ ms: number; bytes: number }> {
  const began = performance.now();
  let bytes = 0;
  for (const c of statements) {
    const url = new URL(c.path, `http://127.0.0.1:${httpPort}`);
    url.searchParams.set('database', database);
    url.searchParams.delete('query_id');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.headers))
      if (
        typeof v === 'string' &&
        !['host', 'content-length', 'connection', 'accept-encoding', 'transfer-encoding'].includes(k)
      )
        headers[k] = v;
    const response = await fetch(url, { method: 'POST', headers, body: c.body });
    const text = await response.text();
    if (!response.ok) throw new Error(`replay in ${database}: ${response.status} ${text.trim().slice(0, 400)}`);
    bytes += text.length;
  }
  return { ms: performance.now() - began, bytes };
}

async function dimensionShare(
  deployment: Deployment,
  result: DeploymentResult,
  serveArgs: string[],
  env: Record<string, string>,
): Promise<{ rows: DimensionRow[]; copied: string[] }> {
  const node = deployment.nodes[0]!;
  const proxy = await recordingProxy(node.httpPort);
  cleanups.push(() => proxy.close());
  const proxied = await serve(
    serveArgs,
    { ...env, ADREPORT_CLICKHOUSE_URL: `http://127.0.0.1:${proxy.port}/adreport` },
    'capture',
  );
  const { generated } = deployment;
  const ca = readFileSync(
    path.join(serveArgs[serveArgs.indexOf('--files-dir') + 1]!, 'adreport.tls', 'cert.pem'),
    'utf8',
  );
  const pool = new Pool(`https://127.0.0.1:${proxied.listening.port}`, { connections: 1, connect: { ca } });
  const organization =
    generated.organizations.find((o) => o.id === pullChoice!.organizations[0]) ?? generated.organizations[0]!;
  const bearer = await token(pool, organization);
  const shapes = [
    ...mixShapes([organization], generated.lastDay).map((s) => ({ name: s.name, path: s.path.get(organization.id)! })),
    { name: 'pull', path: pullChoice!.path },
  ];
  const captures: Array<{
    name: string;
    statements: Captured[];
    others: string[];
    httpMs: number;
    nodeMs: number;
    error?: string;
  }> = [];
  const replayable = (c: Captured) =>
    /^\s*(SELECT|WITH)\b/i.test(statementOf(c)) && !/^\s*SELECT\s+1\s*$/i.test(statementOf(c));
  for (const shape of shapes) {
    await get(pool, shape.path, bearer); // once, so the statements captured next are the steady ones
    // CAPTURES times through the proxy: the HTTP wall and the node's part, medians; the last one's statements replayed.
    const httpMs: number[] = [];
    const nodeMs: number[] = [];
    let during: Captured[] = [];
    let answer: Answer | undefined;
    for (let i = 0; i < CAPTURES; i++) {
      const first = proxy.captured.length;
      answer = await get(pool, shape.path, bearer);
      during = proxy.captured.slice(first);
      httpMs.push(answer.ms);
      nodeMs.push(during.reduce((sum, c) => sum + c.ms, 0));
    }
    const statements = during.filter(replayable);
    captures.push({
      name: shape.name,
      statements,
      others: during.filter((c) => !replayable(c)).map((c) => `${c.path.split('?')[0]} ${statementOf(c).slice(0, 60)}`),
      httpMs: median(httpMs),
      nodeMs: median(nodeMs),
      error:
        answer!.status !== 200 || answer!.engine !== 'clickhouse'
          ? `${answer!.status} engine=${answer!.engine}: ${answer!.body.toString('utf8').slice(0, 300)}`
          : statements.length === 0
            ? 'no statement captured'
            : undefined,
    });
  }
  await pool.destroy();
  await stopServe(proxied);
  await proxy.close();
  const copied = await copyWithMergeTreeDimensions(node.httpPort, 'adreport', 'dimcopy');
  const rows: DimensionRow[] = [];
  for (const capture of captures) {
    const httpP50 = capture.name === 'pull' ? result.pull.p50 : result.mix.find((m) => m.name === capture.name)!.p50;
    const row = (postgresMs: number, mergeTreeMs: number, error?: string): DimensionRow => ({
      name: capture.name,
      statements: capture.statements.length,
      postgresMs,
      mergeTreeMs,
      httpP50,
      capturedHttpMs: capture.httpMs,
      capturedNodeMs: capture.nodeMs,
      others: capture.others,
      ...(error === undefined ? {} : { error }),
    });
    if (capture.error) {
      rows.push(row(NaN, NaN, capture.error));
      continue;
    }
    try {
      const onPostgres: number[] = [];
      const onMergeTree: number[] = [];
      const a = await replay(node.httpPort, capture.statements, 'adreport');
      const b = await replay(node.httpPort, capture.statements, 'dimcopy');
      // The same answer from both (same rows, same text), or the comparison means nothing.
      if (a.bytes !== b.bytes)
        throw new Error(`the copy answers ${b.bytes} bytes, the original ${a.bytes}: not the same data`);
      for (let i = 0; i < REPLAYS; i++) {
        onPostgres.push((await replay(node.httpPort, capture.statements, 'adreport')).ms);
        onMergeTree.push((await replay(node.httpPort, capture.statements, 'dimcopy')).ms);
      }
      rows.push(row(median(onPostgres), median(onMergeTree)));
    } catch (error) {
      rows.push(row(NaN, NaN, (error as Error).message));
    }
  }
  await chQuery(node.httpPort, 'DROP DATABASE IF EXISTS dimcopy');
  return { rows, copied };
}

// ---------------------------------------------------------------------------------------------
// Tables

const ms = (x: number) => (Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (x: number, base: number) => (Number.isFinite(x / base) ? `${(x / base).toFixed(2)}x` : '-');
const cores = (x: number | null | undefined) => (x === null || x === undefined ? '-' : x.toFixed(2));

function latencyTable(results: readonly DeploymentResult[]): string {
  const base = results[0]!;
  const lines = [
    `| request (rows) | ${results.map((r) => `${r.deployment.label} p50 / p99 ms`).join(' | ')} | ${results
      .slice(1)
      .map((r) => `${r.deployment.key} / DuckDB p50, p99`)
      .join(' | ')} |`,
    `|---|${results.map(() => '---:').join('|')}|${results
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  ];
  const shapes = [...base.mix.map((m) => m.name), 'pull'];
  for (const name of shapes) {
    const of = (r: DeploymentResult) => (name === 'pull' ? r.pull : r.mix.find((m) => m.name === name)!);
    const b = of(base);
    const label =
      name === 'pull'
        ? `10,000-row pull: ${pullChoice!.path.replace(/startDate=[^&]*&endDate=[^&]*&/, '')} (${b.rows})`
        : `mix: ${name} (${b.rows})`;
    lines.push(
      `| ${label} | ${results.map((r) => `${ms(of(r).p50)} / ${ms(of(r).p99)}`).join(' | ')} | ${results
        .slice(1)
        .map((r) => `${ratio(of(r).p50, b.p50)}, ${ratio(of(r).p99, b.p99)}`)
        .join(' | ')} |`,
    );
  }
  const c = (r: DeploymentResult) => r.concurrent;
  lines.push(
    `| mix at ${CONCURRENT} connections: req/s (p50 / p99 ms) | ${results
      .map((r) => `**${c(r).rps.toFixed(1)}** (${ms(c(r).p50)} / ${ms(c(r).p99)})`)
      .join(' | ')} | ${results
      .slice(1)
      .map((r) => `**${ratio(c(r).rps, c(base).rps)}** req/s`)
      .join(' | ')} |`,
  );
  return lines.join('\n');
}

function cpuTable(results: readonly DeploymentResult[]): string {
  const lines = [
    '| deployment | phase | wall s | service | ClickHouse nodes (each) | PostgreSQL (service backends / ClickHouse backends / other) | load generator | sum of 2 |',
    '|---|---|---:|---:|---|---|---:|---:|',
  ];
  for (const r of results)
    for (const [phase, cpu] of [
      ['mix, 1 connection', r.mixCpu],
      ['pull, 1 connection', r.pullCpu],
      [`mix, ${CONCURRENT} connections`, r.concurrent.cpu],
    ] as const) {
      const nodes =
        cpu.nodes.length === 0
          ? '-'
          : `${cpu.nodes.map(cores).join(' / ')}${cpu.nodes.length > 1 ? ` (sum ${cores(cpu.nodes.reduce((a, b) => a + b, 0))})` : ''}`;
      const pgCell =
        cpu.postgres === null
          ? '-'
          : `${cores(cpu.postgres)}${cpu.postgresBy ? ` (${cores(cpu.postgresBy.service)} / ${cores(cpu.postgresBy.clickhouse)} / ${cores(cpu.postgresBy.other)})` : ''}`;
      const sum = cpu.service + cpu.nodes.reduce((a, b) => a + b, 0) + (cpu.postgres ?? 0) + cpu.generator;
      lines.push(
        `| ${r.deployment.label} | ${phase} | ${cpu.seconds.toFixed(1)} | ${cores(cpu.service)} | ${nodes} | ${pgCell} | ${cores(cpu.generator)} | ${cores(sum)} |`,
      );
    }
  return lines.join('\n');
}

/** CPU per request of the mix at 8 connections: where a request's work is done. */
function cpuPerRequestTable(results: readonly DeploymentResult[]): string {
  const lines = [
    `| deployment (mix at ${CONCURRENT} connections) | req/s | CPU ms per request: service | ClickHouse nodes (sum) | PostgreSQL | load generator | total |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const c = r.concurrent.cpu;
    const per = (coresUsed: number) => (coresUsed * 1000) / r.concurrent.rps;
    const nodes = c.nodes.reduce((a, b) => a + b, 0);
    const total = c.service + nodes + (c.postgres ?? 0) + c.generator;
    lines.push(
      `| ${r.deployment.label} | ${r.concurrent.rps.toFixed(1)} | ${per(c.service).toFixed(1)} | ${c.nodes.length ? per(nodes).toFixed(1) : '-'} | ${c.postgres === null ? '-' : per(c.postgres).toFixed(1)} | ${per(c.generator).toFixed(1)} | ${per(total).toFixed(1)} |`,
    );
  }
  return lines.join('\n');
}

function ingestTable(results: readonly DeploymentResult[]): string {
  const lines = [
    '| deployment | fact rows generated | `data generate`, whole command | rows loaded into ClickHouse (facts + rollups) | load into ClickHouse | rows/s into ClickHouse |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const g = r.deployment.generated;
    lines.push(
      `| ${r.deployment.label} | ${g.factRows} | ${g.commandSeconds.toFixed(1)} s | ${g.loaded?.rows ?? '-'} | ${g.loaded ? `${g.loaded.seconds.toFixed(1)} s` : '-'} | ${g.loaded ? Math.round(g.loaded.rows / g.loaded.seconds) : '-'} |`,
    );
  }
  return lines.join('\n');
}

function dimensionTable(dimension: { rows: DimensionRow[]; copied: string[] }): string {
  const lines = [
    `| request | statements | replayed: dimensions from PostgreSQL (ms) | replayed: dimensions in MergeTree (ms) | share of the statement spent on PostgreSQL | through the proxy, median of ${CAPTURES}: HTTP wall (ms) | of which at the node (ms) | the rest: service, its PostgreSQL reads, TLS, proxy (ms) | HTTP p50 in the load above (ms) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of dimension.rows) {
    const captured = `${ms(r.capturedHttpMs)} | ${ms(r.capturedNodeMs)} | ${ms(r.capturedHttpMs - r.capturedNodeMs)} | ${ms(r.httpP50)}`;
    lines.push(
      r.error
        ? `| ${r.name} | ${r.statements} | error: ${r.error.replaceAll('|', '\\|').replaceAll('\n', ' ')} | | | ${captured} |`
        : `| ${r.name} | ${r.statements} | ${ms(r.postgresMs)} | ${ms(r.mergeTreeMs)} | ${((1 - r.mergeTreeMs / r.postgresMs) * 100).toFixed(0)}% | ${captured} |`,
    );
  }
  const others = [...new Set(dimension.rows.flatMap((r) => r.others))];
  lines.push(
    '',
    `Dimension tables copied into MergeTree for the comparison: ${dimension.copied.join(', ') || 'none'}.`,
    `Other requests to the node during the captured ones (not replayed): ${others.length ? others.map((o) => `\`${o.replaceAll('`', "'")}\``).join(', ') : 'none'}.`,
  );
  return lines.join('\n');
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: npm run build first`);
  const began = performance.now();
  const loadAtStart = loadavg();
  const builtCurrent = distIsCurrent();
  log(`scale ${SCALE}, ${DAYS} days, seed ${SEED}, ${ORGS} organization(s); load average ${loadAtStart}`);
  const pgStarting = startTestPostgres('adreport-chbench-pg-');
  pgStarting.catch(() => undefined);
  cleanups.push(async () => (await pgStarting.catch(() => undefined))?.close());
  const failures: string[] = [];
  /** Deviations from the brief that the run worked around in its own setup (never in src/). */
  const notes: string[] = [];
  const deployments: Deployment[] = [];

  // (a) embedded DuckDB
  {
    const dir = tempDir('adreport-chbench-duckdb-');
    const dbPath = path.join(dir, 'bench.duckdb');
    const generated = await generate(['--db', dbPath], {});
    log(`(a) generated ${generated.factRows} fact rows in ${generated.commandSeconds.toFixed(1)} s`);
    const serveArgs = ['--db', dbPath];
    deployments.push({
      key: 'duckdb',
      label: '(a) DuckDB, embedded',
      engine: 'duckdb',
      generated,
      serve: await serve(serveArgs, {}, '(a) DuckDB'),
      ca: readFileSync(`${dbPath}.tls/cert.pem`, 'utf8'),
      nodes: [],
      postgresPid: null,
      postgresPort: null,
      storeUrl: null,
      serveArgs,
      env: {},
    });
  }

  const postgres: TestPostgres = await pgStarting;
  const postgresPid = Number(readFileSync(path.join(postgres.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pgClient = new pg.Client({ connectionString: postgres.url('postgres') });
  await pgClient.connect();
  cleanups.push(() => pgClient.end());

  // (b) and (c): generated one after the other; every server stays up (idle) until all are measured.
  for (const [key, shards, replicas] of [
    ['node', 1, 1],
    ['cluster', 2, 2],
  ] as const) {
    const label =
      key === 'node' ? '(b) PostgreSQL + 1 ClickHouse node (plain tables)' : '(c) PostgreSQL + ClickHouse 2x2';
    try {
      const { cluster } = await clusterUp(shards, replicas);
      let storeUrl = await postgres.createDatabase(`adreport_${key}`);
      let filesDir = tempDir(`adreport-chbench-files-${key}-`);
      const byShard = Array.from({ length: shards }, (_, s) =>
        cluster.nodes.filter((n) => n.shard === s + 1).sort((a, b) => a.replica - b.replica),
      );
      const env: Record<string, string> =
        key === 'node'
          ? { ADREPORT_FACTS: 'clickhouse', ADREPORT_CLICKHOUSE_URL: cluster.nodes[0]!.url }
          : {
              ADREPORT_FACTS: 'clickhouse',
              ADREPORT_CLICKHOUSE_SHARD_URLS: byShard.map((s) => s.map((n) => n.url).join('|')).join(','),
              ADREPORT_CLICKHOUSE_CLUSTER: 'adreport',
            };
      let generated: Generated;
      try {
        generated = await generate(['--store', storeUrl, '--files-dir', filesDir], env);
      } catch (error) {
        if (key !== 'node') throw error;
        // `cluster up` made <table> Distributed over <table>_local on the node; ADREPORT_CLICKHOUSE_URL
        // (plain tables) loads into <table> itself. Recorded, then measured on the same node with its
        // database emptied (what a plain ClickHouse server has), on a fresh PostgreSQL database.
        const message = (error as Error).message;
        notes.push(
          `(b) as first tried, \`ADREPORT_CLICKHOUSE_URL\` = the node of a 1x1 \`clickhouse cluster up\`, failed: ` +
            `\`${(
              message
                .split('\n')
                .filter((l) => l.startsWith('adreport:'))
                .pop() ?? message.slice(-400)
            ).trim()}\` ` +
            "(the node's tables are Distributed, made by cluster up; plain-table mode loads partitions into them). " +
            '(b) below is the same node with its database dropped and made again empty before `data generate`, so the service makes plain MergeTree tables.',
        );
        log(notes.at(-1)!);
        const node = cluster.nodes[0]!;
        await chQuery(node.httpPort, `DROP DATABASE IF EXISTS adreport SYNC`);
        await chQuery(node.httpPort, `CREATE DATABASE adreport`);
        storeUrl = await postgres.createDatabase(`adreport_${key}_plain`);
        filesDir = tempDir(`adreport-chbench-files-${key}-plain-`);
        generated = await generate(['--store', storeUrl, '--files-dir', filesDir], env);
      }
      log(
        `${label}: generated ${generated.factRows} fact rows in ${generated.commandSeconds.toFixed(1)} s; ` +
          `ClickHouse: ${generated.loaded ? `${generated.loaded.rows} rows in ${generated.loaded.seconds} s` : 'no "loaded into ClickHouse" line'}`,
      );
      const serveArgs = ['--store', storeUrl, '--files-dir', filesDir];
      deployments.push({
        key,
        label,
        engine: 'clickhouse',
        generated,
        serve: await serve(serveArgs, env, label),
        ca: readFileSync(path.join(filesDir, 'adreport.tls', 'cert.pem'), 'utf8'),
        nodes: cluster.nodes.map((n) => ({ label: `s${n.shard}r${n.replica}`, pid: n.pid, httpPort: n.httpPort })),
        postgresPid,
        postgresPort: postgres.port,
        storeUrl,
        serveArgs,
        env,
      });
    } catch (error) {
      failures.push(`${label}: ${(error as Error).message}`);
      log(failures.at(-1)!);
    }
  }

  const lives: Live[] = [];
  for (const deployment of deployments)
    try {
      lives.push(await prepare(deployment));
      log(`${deployment.label}: checked and warmed up`);
    } catch (error) {
      if (deployment.key === 'duckdb') throw error;
      failures.push(`${deployment.label}: ${(error as Error).message}`);
      log(failures.at(-1)!);
    }
  await measureInterleaved(lives, pgClient);
  const results = lives.map(resultOf);
  for (const live of lives) {
    await stopServe(live.deployment.serve);
    const stderr = live.deployment.serve.stderr().trim();
    if (/error|fail/i.test(stderr)) log(`${live.deployment.label}: serve stderr (tail): ${stderr.slice(-1500)}`);
  }

  let dimension: { rows: DimensionRow[]; copied: string[] } | undefined;
  const node = results.find((r) => r.deployment.key === 'node');
  if (node) {
    log(
      `${node.deployment.label}: capturing one request per shape, replaying it with dimensions in PostgreSQL and in MergeTree ...`,
    );
    try {
      dimension = await dimensionShare(node.deployment, node, node.deployment.serveArgs, node.deployment.env);
      for (const r of dimension.rows)
        log(
          `  ${r.name}: ${r.error ?? `${ms(r.postgresMs)} ms with PostgreSQL dimensions, ${ms(r.mergeTreeMs)} ms with MergeTree ones`}; ` +
            `captured request: HTTP ${ms(r.capturedHttpMs)} ms, at the node ${ms(r.capturedNodeMs)} ms`,
        );
    } catch (error) {
      failures.push(`${node.deployment.label}, dimension share: ${(error as Error).message}`);
      log(failures.at(-1)!);
    }
  }
  const postgresVersion = postgres.peer.version;
  await cleanups.undo();

  const loadAtEnd = loadavg();
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const cpus = os.cpus();
  const command = `node --import tsx bench/clickhouse-cluster.ts${args.length ? ` ${args.join(' ')}` : ''}`;
  const world = results[0]!.deployment.generated;
  const problems = results.flatMap((r) =>
    r.problems.bad.size === 0
      ? [`- ${r.deployment.label}: every answer 200 with X-Report-Engine: ${r.deployment.engine}`]
      : [
          `- ${r.deployment.label}: answers not 200 with X-Report-Engine: ${r.deployment.engine}: ${[...r.problems.bad].map(([k, n]) => `${k} (x${n})`).join('; ')}`,
          ...r.problems.samples.map((s) => `  - \`${s.replaceAll('`', "'")}\``),
        ],
  );
  const rowChecks = [...results[0]!.rows.keys()].map((k) => {
    const counts = results.map((r) => r.rows.get(k));
    return counts.every((c) => c === counts[0]) ? undefined : `${k}: ${counts.join(' / ')}`;
  });
  const rowMismatches = rowChecks.filter((x) => x !== undefined);
  const busiest = (r: DeploymentResult) => {
    const c = r.concurrent.cpu;
    const parts: Array<[string, number]> = [
      ['the service', c.service],
      ...c.nodes.map((n, i): [string, number] => [`node ${r.deployment.nodes[i]!.label}`, n]),
      ...(c.postgres === null ? [] : [['PostgreSQL', c.postgres] as [string, number]]),
      ['the load generator', c.generator],
    ];
    return parts
      .sort((a, b) => b[1] - a[1])
      .map(([n, v]) => `${n} ${v.toFixed(2)}`)
      .join(', ');
  };
  const text = [
    '# Reports and ingest: embedded DuckDB, one ClickHouse node, a 2 x 2 ClickHouse cluster (issue 38 item 5)',
    '',
    `- command: \`${command}\` (after \`npm run build\`)`,
    `- date: ${new Date().toISOString()}; whole run ${((performance.now() - began) / 1000).toFixed(0)} s`,
    `- machine: ${cpus[0]?.model.trim() ?? 'unknown'}, ${cpus.length} cores (shared with other work), ${Math.round(os.totalmem() / 2 ** 30)} GB, ${os.platform()} ${os.release()}, node ${process.version}, ${postgresVersion} (fsync, synchronous_commit off), ClickHouse nodes from npm's chDB (\`adreport clickhouse cluster up\`)`,
    `- code: git HEAD ${head} at the end of the run; dist/ ${builtCurrent ? 'a build of the current sources' : 'not a build of the current sources (other work in the checkout since the build)'} at the start`,
    `- load average (1 / 5 / 15 min): ${loadAtStart} at start, ${loadAtEnd} at end`,
    `- world: \`data generate --scale ${SCALE} --days ${DAYS} --seed ${SEED} --orgs ${ORGS}\`: ${world.factRows} fact rows, ${world.firstDay}..${world.lastDay}, organizations ${world.organizations.map((o) => o.id).join(', ')} (on (c) organization K is on shard (K mod 2) + 1)`,
    `- every deployment: one \`serve\` process, rate limits lifted, page cache (ADREPORT_CACHE_MB=0) and database-time budget off, other settings default (DuckDB: 3 report slots; ClickHouse engine: 6 statements in flight)`,
    `- requests from this process (undici over HTTPS, wall time to the last body byte), after a warm-up (the mix twice per organization, the pull 3 times), ` +
      `one deployment's load at a time, interleaved in blocks (${BLOCK} mix rounds, ${BLOCK} pulls, ${SECONDS / SLICES} s of the ${CONCURRENT}-connection mix on (a), then (b), then (c), again; the idle servers and nodes wait): ` +
      `the mix (bench/peer/report-queries.ts, as bench/run.ts) ${REQUESTS} rounds of its 4 shapes on 1 connection, round r on organization r mod ${ORGS}; ` +
      `the pull ${REQUESTS} times on 1 connection; the mix at ${CONCURRENT} connections for ${SECONDS} s (each connection walks the ${MIX_NAMES.length * ORGS}-request sequence from its own offset). ` +
      `p99 of ${REQUESTS} samples is their maximum but one at most.`,
    '',
    '## Ingest',
    '',
    ingestTable(results),
    '',
    '## Reports (latency ratios: this deployment / DuckDB of the same run; for req/s higher is better)',
    '',
    latencyTable(results),
    '',
    '## Answers',
    '',
    ...problems,
    rowMismatches.length === 0
      ? `- rows per request and organization equal on every deployment (${[...results[0]!.rows].map(([k, n]) => `${k}: ${n}`).join(', ')})`
      : `- rows differ between deployments (DuckDB / node / cluster): ${rowMismatches.join('; ')}`,
    ...notes.map((n) => `- note: ${n}`),
    ...failures.map((f) => `- **failed**: ${f}`),
    '',
    '## CPU (cores used on average during each phase, from /proc; the machine has 2)',
    '',
    cpuTable(results),
    '',
    cpuPerRequestTable(results),
    '',
    `Resident memory after the ${CONCURRENT}-connection mix: ${results
      .map(
        (r) =>
          `${r.deployment.label}: service ${Math.round(r.rssMb.service)} MB${r.rssMb.nodes.length ? `, nodes ${r.rssMb.nodes.map((m) => Math.round(m)).join(' / ')} MB` : ''}${r.rssMb.postgres === null ? '' : `, PostgreSQL ${Math.round(r.rssMb.postgres)} MB (summed over its processes, shared buffers counted in each)`}`,
      )
      .join('; ')}.`,
    '',
    `Busiest during the mix at ${CONCURRENT} connections (cores): ${results.map((r) => `${r.deployment.key}: ${busiest(r)}`).join('; ')}.`,
    '',
    '## Dimensions read from PostgreSQL (on (b): requests captured at the node, their statements replayed)',
    '',
    dimension
      ? `After the load, (b) served again by a second \`serve\` whose ClickHouse URL is a recording proxy in front of the node: ${CAPTURES} requests per shape (organization ${pullChoice?.organizations[0]}; ` +
        'medians of their HTTP wall time and of the time the node took as the proxy saw it), and the statements of the last one ' +
        `replayed from here ${REPLAYS} times each (medians, alternating) ` +
        "on the node's database, whose dimension tables are ClickHouse PostgreSQL-engine tables over the store, and on a copy of that database with the same dimension rows in MergeTree tables (facts copied as they are).\n\n" +
        dimensionTable(dimension)
      : 'Not measured (see the failures above).',
    '',
  ].join('\n');
  const out = path.resolve('bench/RESULTS.clickhouse-cluster.md');
  // Formatted as the repository's other results files (npm test checks the format of every tracked file).
  const prettier = await import('prettier');
  writeFileSync(out, await prettier.format(text, { ...(await prettier.resolveConfig(out)), filepath: out }));
  console.log(text);
  log(`wrote ${out}`);
  if (failures.length > 0) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  async (error: unknown) => {
    console.error(error);
    await cleanups.undo();
    process.exit(1);
  },
);
