/**
 * Replicas on PostgreSQL (issue 37) against the embedded DuckDB store, one table:
 *
 * 1. `POST /token` (client credentials, 8 clients made with the admin CLI in 4 organizations,
 *    connection w as client w mod 8) and a provisioning mix (3 of 4 requests
 *    `GET /provisioning/v0/accounts/id/N`, 1 of 4 `POST /provisioning/v0/accounts`, one token per
 *    client) at 32 connections, for (a) `serve --db FILE --demo` (one process,
 *    DuckDB), (b) one replica on `--store postgres://...`, (c) three replicas on that store with
 *    the requests spread round-robin over them (request n to replica n mod 3, as a proxy would).
 *    Rate limits are lifted on every server (the buckets are still taken: on PostgreSQL each take
 *    is a statement), the page cache and the database-time budget are off.
 * 2. A small report (`GET /reporting/v0/campaigns`, 30 days, demo data, the demo client) on
 *    DuckDB; on PostgreSQL the same request (with the 8 clients' tokens), which answers 503
 *    `reports_unavailable` (no facts there yet).
 * 3. Per call, directly against the database (tinybench, one call at a time): the shared rate
 *    bucket's take (SharedBuckets, one INSERT ... ON CONFLICT) against the in-memory
 *    TokenBuckets.take, and a write of report data (advisory lock + data_versions upsert) against
 *    a write of no report data, with raw `pg` transactions that split the difference.
 *
 * The load generator is this process (undici, exact latencies of every request); CPU time per
 * request is read from /proc for the service processes, PostgreSQL (postmaster and backends)
 * and this process, so on a shared 2-core machine it says where the time went.
 *
 *   npm run build && node --import tsx bench/replicas.ts [--seconds N] [--quick]
 *
 * --seconds N per measurement (default 10; --quick 3), plus a 1 s warm-up each. PostgreSQL is
 * a private cluster (test/helpers/postgres-server.ts: Debian's 15, fsync and synchronous_commit
 * off); every process and temp directory it starts is gone at the end.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Bench } from 'tinybench';
import { Pool } from 'undici';
import { TokenBuckets } from '../src/shared/token-bucket.js';
import { migratePostgres } from '../src/store/postgres/postgres-migrate.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { SharedBuckets } from '../src/store/postgres/shared-buckets.js';
import { CLI, runCli, startServe, type CliResult } from '../test/helpers/cli.js';
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres-server.js';
import { startReplicas, type ReplicaSet } from '../test/helpers/replicas.js';
import { treeCpuMs } from './process-cpu.js';
import { Cleanups } from './cleanups.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const secondsFlag = args.indexOf('--seconds');
const SECONDS = secondsFlag >= 0 ? Number(args[secondsFlag + 1]) : quick ? 3 : 10;
if (!(SECONDS > 0)) throw new Error('--seconds N: a positive number');
const WARMUP_SECONDS = 1;
const CONNECTIONS = 32;
const ORGANIZATIONS = 4;
const CLIENTS_PER_ORGANIZATION = 2;
const ACCOUNTS_PER_ORGANIZATION = 8;
/** Per micro task in all, over MICRO_ROUNDS rounds. */
const MICRO_MS = quick ? 300 : 1200;
const MICRO_ROUNDS = 3;

const BIG = '1000000';
/** The same for every server: limits lifted (still taken), no page cache, no database-time budget. */
const SERVER_ENV: Record<string, string> = {
  ADREPORT_RATE_LIMIT_PER_SECOND: BIG,
  ADREPORT_RATE_LIMIT_BURST: BIG,
  ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: BIG,
  ADREPORT_TOKEN_RATE_LIMIT_BURST: BIG,
  ADREPORT_CACHE_MB: '0',
  ADREPORT_DB_TIME_MS_PER_SECOND: '0',
};
/** The demo's statistics backfill, shortened from 400 days so it is done within seconds, before any load. */
const DEMO_BACKFILL_DAYS = '30';

const ACCOUNT_BODY = JSON.stringify({ account: { name: 'x', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } });
const REPORT_PATH = '/reporting/v0/campaigns?dateRange=LAST_30_DAYS&statistics=impressions,clicks,cost,conversions';
const FORM = 'application/x-www-form-urlencoded';

const T0 = performance.now();
const log = (line: string) => console.error(`replicas +${((performance.now() - T0) / 1000).toFixed(0)} s: ${line}`);

// ---------------------------------------------------------------------------------------------
// Cleanup: every process and directory this run starts, undone in reverse order, also on Ctrl-C.

const cleanups = new Cleanups(log);

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------------------------------------
// CPU time from /proc (Linux): a process tree's user + system time, reaped children included.

const selfCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

// ---------------------------------------------------------------------------------------------
// Load: CONNECTIONS workers, each one request at a time, request n of the run to target n mod k.

interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Workload {
  name: string;
  /** The request worker `w` sends as its `i`th. */
  next(worker: number, i: number): Request;
}

interface Measured {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: Map<number, number>;
  errors: number;
  /** CPU ms per request: the service processes, PostgreSQL, the load generator (this process). */
  cpu: { service: number; postgres: number | null; generator: number };
}

interface Target {
  label: string;
  pools: Pool[];
  /** Processes whose CPU is the service's. */
  servicePids: number[];
  /** The postmaster, when the service stores in PostgreSQL. */
  postgresPid: number | null;
}

function pools(urls: readonly string[], ca: string): Pool[] {
  return urls.map((url) => {
    const { port } = new URL(url);
    // 127.0.0.1 (where the servers listen); the self-signed certificate names it.
    return new Pool(`https://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1, connect: { ca } });
  });
}

const percentile = (sorted: Float64Array, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;

async function drive(target: Target, workload: Workload, seconds: number): Promise<Measured> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let sent = 0;
  const roots = [...target.servicePids, ...(target.postgresPid ? [target.postgresPid] : [])];
  const cpuBefore = treeCpuMs(roots);
  const selfBefore = selfCpuMs();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const request = workload.next(w, i);
      const pool = target.pools[sent++ % target.pools.length]!;
      const began = performance.now();
      try {
        const response = await pool.request(request);
        await response.body.arrayBuffer();
        latencies.push(performance.now() - began);
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      } catch (error) {
        if (errors++ === 0) log(`${target.label} ${workload.name}: ${(error as Error).message}`);
        await sleep(10);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  const elapsed = (performance.now() - start) / 1000;
  const cpuAfter = treeCpuMs(roots);
  const generator = selfCpuMs() - selfBefore;
  const sorted = Float64Array.from(latencies).sort();
  const n = Math.max(1, latencies.length);
  const spent = cpuAfter.map((after, i) => after - cpuBefore[i]!);
  const serviceMs = spent.slice(0, target.servicePids.length).reduce((a, b) => a + b, 0);
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    statuses,
    errors,
    cpu: {
      service: serviceMs / n,
      postgres: target.postgresPid ? spent[spent.length - 1]! / n : null,
      generator: generator / n,
    },
  };
}

/** One request outside the load (setup and checks): its status and parsed body. */
async function call(pool: Pool, request: Request): Promise<{ status: number; json: unknown }> {
  const response = await pool.request(request);
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.statusCode, json };
}

const basic = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${clientId}:${secret}`, 'utf8').toString('base64')}`;

async function token(pool: Pool, client: Client): Promise<string> {
  const answer = await call(pool, {
    method: 'POST',
    path: '/token',
    headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  if (answer.status !== 200) throw new Error(`POST /token: ${answer.status} ${JSON.stringify(answer.json)}`);
  return (answer.json as { access_token: string }).access_token;
}

// ---------------------------------------------------------------------------------------------
// Tenants: organizations and clients made with the admin CLI, accounts through the API.

interface Client {
  organizationId: number;
  clientId: string;
  clientSecret: string;
}

interface Tenants {
  clients: Client[];
  /** Per organization: the accounts GETs read. */
  accounts: Map<number, number[]>;
  /** Per client (same order): a bearer token. */
  tokens: string[];
}

function parsed<T>(result: CliResult, what: string): T {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}: ${result.stderr.trim()}`);
  return JSON.parse(result.stdout) as T;
}

/** Runs tasks at most `limit` at a time (each admin command is a node process). */
async function inParallel<T>(tasks: ReadonlyArray<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < tasks.length; i = next++) results[i] = await tasks[i]!();
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}

async function makeTenants(admin: (args: string[]) => Promise<CliResult>, pool: Pool): Promise<Tenants> {
  const organizations = await inParallel(
    Array.from({ length: ORGANIZATIONS }, (_, o) => async () => {
      const org = parsed<{ organization: { id: number } }>(
        await admin(['orgs', 'create', '--name', `Bench ${o + 1}`]),
        'orgs create',
      );
      return org.organization.id;
    }),
    4,
  );
  const clients = await inParallel(
    organizations.flatMap((organizationId) =>
      Array.from({ length: CLIENTS_PER_ORGANIZATION }, () => async (): Promise<Client> => {
        const client = parsed<{ clientId: string; clientSecret: string }>(
          await admin(['clients', 'create', '--org', String(organizationId)]),
          'clients create',
        );
        return { organizationId, clientId: client.clientId, clientSecret: client.clientSecret };
      }),
    ),
    4,
  );
  const tokens = await Promise.all(clients.map((client) => token(pool, client)));
  const accounts = new Map<number, number[]>();
  for (const organizationId of organizations) {
    const bearer = tokens[clients.findIndex((c) => c.organizationId === organizationId)]!;
    const ids: number[] = [];
    for (let a = 0; a < ACCOUNTS_PER_ORGANIZATION; a++) {
      const created = await call(pool, {
        method: 'POST',
        path: '/provisioning/v0/accounts',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: ACCOUNT_BODY,
      });
      if (created.status !== 201) throw new Error(`POST accounts: ${created.status} ${JSON.stringify(created.json)}`);
      ids.push((created.json as { account: { id: number } }).account.id);
    }
    accounts.set(organizationId, ids);
  }
  return { clients, accounts, tokens };
}

/**
 * One token per client from every server of the target: a replica verifies a client's secret
 * with scrypt (~80 ms of CPU) once and then remembers it, so a replica that has not seen the
 * clients yet would spend the measurement on scrypt (steady state is what is measured).
 */
async function warmSecrets(target: Target, tenants: Tenants): Promise<void> {
  await Promise.all(
    target.pools.map((pool) =>
      inParallel(
        tenants.clients.map((client) => () => token(pool, client)),
        4,
      ),
    ),
  );
}

function tokenWorkload(tenants: Tenants): Workload {
  const headers = tenants.clients.map((c) => ({
    authorization: basic(c.clientId, c.clientSecret),
    'content-type': FORM,
  }));
  return {
    name: 'POST /token',
    next: (w) => ({
      method: 'POST',
      path: '/token',
      headers: headers[w % headers.length]!,
      body: 'grant_type=client_credentials',
    }),
  };
}

function provisioningWorkload(tenants: Tenants): Workload {
  const gets = tenants.tokens.map((t) => ({ authorization: `Bearer ${t}` }));
  const posts = tenants.tokens.map((t) => ({ authorization: `Bearer ${t}`, 'content-type': 'application/json' }));
  return {
    name: 'provisioning mix (3 GET account : 1 POST account)',
    next: (w, i): Request => {
      const c = w % tenants.clients.length;
      if (i % 4 === 3)
        return { method: 'POST', path: '/provisioning/v0/accounts', headers: posts[c]!, body: ACCOUNT_BODY };
      const ids = tenants.accounts.get(tenants.clients[c]!.organizationId)!;
      return { method: 'GET', path: `/provisioning/v0/accounts/id/${ids[(w + i) % ids.length]!}`, headers: gets[c]! };
    },
  };
}

/** Connection w sends client w's token (mod the tokens given): on PostgreSQL each client's bucket is a row. */
function reportWorkload(tokens: readonly string[], name: string): Workload {
  const headers = tokens.map((t) => ({ authorization: `Bearer ${t}` }));
  return { name, next: (w) => ({ method: 'GET', path: REPORT_PATH, headers: headers[w % headers.length]! }) };
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface Row {
  store: string;
  workload: string;
  result: Measured;
}
const rows: Row[] = [];

async function measure(store: string, target: Target, workload: Workload): Promise<void> {
  await drive(target, workload, WARMUP_SECONDS);
  const result = await drive(target, workload, SECONDS);
  const answers = [...result.statuses].map(([s, n]) => `${s}: ${n}`).join(', ');
  log(
    `${store} ${workload.name}: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms (${answers}${result.errors ? `, ${result.errors} errors` : ''})`,
  );
  rows.push({ store, workload: workload.name, result });
}

/** Waits until the demo's imports and backfills have all finished (none QUEUED or RUNNING twice in a row). */
async function demoJobsDone(pool: Pool, bearer: string): Promise<number> {
  const deadline = Date.now() + 180_000;
  let quiet = 0;
  for (;;) {
    const answer = await call(pool, {
      method: 'GET',
      path: '/provisioning/v0/jobs?limit=100',
      headers: { authorization: `Bearer ${bearer}` },
    });
    const jobs = (answer.json as { jobs?: Array<{ status: string }> }).jobs ?? [];
    const open = jobs.filter((j) => j.status === 'QUEUED' || j.status === 'RUNNING').length;
    quiet = jobs.length > 0 && open === 0 ? quiet + 1 : 0;
    if (quiet >= 2) return jobs.length;
    if (Date.now() > deadline) throw new Error(`the demo's jobs did not finish within 180 s (${open} open)`);
    await sleep(500);
  }
}

async function embedded(): Promise<void> {
  const mark = cleanups.length;
  const dir = tempDir('adreport-replicas-duckdb-');
  const dbPath = path.join(dir, 'bench.duckdb');
  const serve = await startServe(['--db', dbPath, '--demo'], {
    ...SERVER_ENV,
    ADREPORT_DEMO_DATA: 'true',
    ADREPORT_STATISTICS_BACKFILL_DAYS: DEMO_BACKFILL_DAYS,
  });
  cleanups.push(async () => {
    if (serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
  const ca = readFileSync(`${dbPath}.tls/cert.pem`, 'utf8');
  const target: Target = {
    label: 'DuckDB',
    pools: pools([serve.listening.url], ca),
    servicePids: [serve.child.pid!],
    postgresPid: null,
  };
  cleanups.push(() => Promise.all(target.pools.map((p) => p.destroy())).then(() => undefined));
  const demo = serve.listening.demo!;
  const demoToken = await token(target.pools[0]!, { ...demo });
  const started = performance.now();
  const jobs = await demoJobsDone(target.pools[0]!, demoToken);
  log(
    `DuckDB: the demo's ${jobs} jobs (imports, ${DEMO_BACKFILL_DAYS}-day backfills) done in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const tenants = await makeTenants((a) => runCli([...a, '--db', dbPath, '--json']), target.pools[0]!);
  log('DuckDB: tenants made');
  const check = await call(target.pools[0]!, {
    method: 'GET',
    path: REPORT_PATH,
    headers: { authorization: `Bearer ${demoToken}` },
  });
  const campaigns = (check.json as { campaigns?: unknown[] }).campaigns?.length ?? 0;
  if (check.status !== 200 || campaigns === 0)
    throw new Error(
      `DuckDB report: ${check.status}, ${campaigns} campaigns: ${JSON.stringify(check.json).slice(0, 300)}`,
    );
  await pgStarting;
  await warmSecrets(target, tenants);
  const store = '(a) DuckDB, 1 process';
  await measure(store, target, tokenWorkload(tenants));
  await measure(store, target, provisioningWorkload(tenants));
  await measure(store, target, reportWorkload([demoToken], `report: campaigns, 30 days (200, ${campaigns} rows)`));
  await cleanups.undo(mark);
}

/** PostgreSQL's cluster is made while DuckDB's demo backfills, and is idle before any load. */
let pgStarting: Promise<TestPostgres>;

async function replicated(): Promise<string> {
  const server = await pgStarting;
  const storeUrl = await server.createDatabase('adreport_replicas');
  const postgresPid = Number(readFileSync(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const filesDir = tempDir('adreport-replicas-files-');
  const set: ReplicaSet = await startReplicas({ storeUrl, filesDir, count: 1, env: SERVER_ENV });
  cleanups.push(() => set.close());
  const targetOf = (label: string): Target => {
    const running = set.running();
    const target: Target = {
      label,
      pools: pools(
        running.map((r) => r.url),
        set.ca,
      ),
      servicePids: running.map((r) => r.serve.child.pid!),
      postgresPid,
    };
    cleanups.push(() => Promise.all(target.pools.map((p) => p.destroy())).then(() => undefined));
    return target;
  };
  const one = targetOf('PostgreSQL x1');
  log('PostgreSQL: replica A up');
  const tenants = await makeTenants(set.admin, one.pools[0]!);
  log('PostgreSQL: tenants made');
  const check = await call(one.pools[0]!, {
    method: 'GET',
    path: REPORT_PATH,
    headers: { authorization: `Bearer ${tenants.tokens[0]!}` },
  });
  const code = (check.json as { error?: { code?: string } }).error?.code ?? JSON.stringify(check.json).slice(0, 200);
  if (check.status !== 503) throw new Error(`report on PostgreSQL: ${check.status} ${code}, not 503`);
  const report = reportWorkload(tenants.tokens, `report: campaigns, 30 days (503 ${code})`);

  await warmSecrets(one, tenants);
  const single = '(b) PostgreSQL, 1 replica';
  await measure(single, one, tokenWorkload(tenants));
  await measure(single, one, provisioningWorkload(tenants));
  await measure(single, one, report);

  await Promise.all([set.start('B'), set.start('C')]);
  const three = targetOf('PostgreSQL x3');
  await warmSecrets(three, tenants);
  log('PostgreSQL: replicas B and C up, secrets verified on each');
  const spread = '(c) PostgreSQL, 3 replicas, round-robin';
  await measure(spread, three, tokenWorkload(tenants));
  await measure(spread, three, provisioningWorkload(tenants));
  await measure(spread, three, report);
  await set.close();
  for (const replica of set.all) {
    const stderr = replica.stderr().trim();
    if (stderr) log(`replica ${replica.name} stderr: ${stderr.slice(-500)}`);
  }
  return storeUrl;
}

// ---------------------------------------------------------------------------------------------
// Shared state per request, directly against PostgreSQL (replicas stopped).

interface MicroRow {
  name: string;
  meanUs: number;
  p50Us: number;
  /** Calls per second, one at a time: 1 / mean. */
  opsPerSecond: number;
}

const ORG_LOCKS = 'SELECT pg_advisory_xact_lock_shared($1, 0), pg_advisory_xact_lock($2, $3)';
const ALL_ORGANIZATIONS_LOCK = 0x616c6c; // as in postgres-store.ts
const ORGANIZATION_LOCK = 0x6f7267;
const UPSERT = `INSERT INTO data_versions (organization_id, version) VALUES ($1, 1)
  ON CONFLICT (organization_id) DO UPDATE SET version = data_versions.version + 1`;

const MICRO = {
  memory: 'rate bucket: TokenBuckets.take, in memory (the embedded store)',
  shared: 'rate bucket: SharedBuckets.take through PostgresStore.statement (the PostgreSQL store)',
  rawRoundTrip: 'raw pg: SELECT 1 (a round trip, simple protocol)',
  rawTake: "raw pg: SharedBuckets' INSERT ... ON CONFLICT, unnamed (parsed and planned each call, as sent)",
  rawTakePrepared: 'raw pg: the same INSERT as a named prepared statement',
  noReport: "store.write('no-report-data', SELECT 1): BEGIN SERIALIZABLE, SELECT 1, COMMIT",
  org: 'store.write({organizationId: 1}, SELECT 1): BEGIN READ COMMITTED, advisory locks, SELECT 1, data_versions upsert, COMMIT',
  rawSerializable: 'raw pg: BEGIN SERIALIZABLE, SELECT 1, COMMIT',
  rawLock: 'raw pg: BEGIN READ COMMITTED, advisory locks, SELECT 1, COMMIT',
  rawUpsert: 'raw pg: BEGIN READ COMMITTED, advisory locks, SELECT 1, data_versions upsert, COMMIT',
} as const;

async function micro(storeUrl: string): Promise<MicroRow[]> {
  const store = await PostgresStore.open(storeUrl, { connections: 2, maxQueued: 64 });
  cleanups.push(() => store.close());
  await migratePostgres(store); // a no-op: the replicas migrated it
  const raw = new pg.Client({ connectionString: storeUrl });
  await raw.connect();
  cleanups.push(() => raw.end());

  const keys = Array.from({ length: 16 }, (_, i) => `bench-client-${i}`);
  let k = 0;
  const memory = new TokenBuckets(1e6, 1e6);
  const shared = new SharedBuckets(store, 'bench', 1e6, 1e6);
  // The statement SharedBuckets sends, word for word (a store that only records it), for the raw rows.
  let take: { sql: string; params: unknown[] } | undefined;
  const recorder = {
    statement: async (sql: string, params: unknown[]) => {
      take = { sql, params };
      return [{ level: 1, allowed: true }];
    },
  } as unknown as PostgresStore;
  await new SharedBuckets(recorder, 'bench-raw', 1e6, 1e6).take('k');
  const takeSql = take!.sql;
  const takeParams = (key: string) => ['bench-raw', key, ...take!.params.slice(2)];
  const rawWrite = async (lock: boolean, upsert: boolean) => {
    await raw.query(lock ? 'BEGIN ISOLATION LEVEL READ COMMITTED' : 'BEGIN ISOLATION LEVEL SERIALIZABLE');
    if (lock) await raw.query(ORG_LOCKS, [ALL_ORGANIZATIONS_LOCK, ORGANIZATION_LOCK, 1]);
    await raw.query('SELECT 1');
    if (upsert) await raw.query(UPSERT, [1]);
    await raw.query('COMMIT');
  };

  const tasks: Array<[string, () => unknown]> = [];
  const add = (name: string, fn: () => unknown) => tasks.push([name, fn]);
  add(MICRO.memory, () => {
    memory.take(keys[k++ % keys.length]!, Date.now());
  });
  add(MICRO.shared, async () => {
    await shared.take(keys[k++ % keys.length]!);
  });
  add(MICRO.rawRoundTrip, async () => {
    await raw.query('SELECT 1');
  });
  add(MICRO.rawTake, async () => {
    await raw.query(takeSql, takeParams(keys[k++ % keys.length]!));
  });
  add(MICRO.rawTakePrepared, async () => {
    await raw.query({ name: 'bench-take', text: takeSql, values: takeParams(keys[k++ % keys.length]!) });
  });
  // Async functions: tinybench calls any other function once when it is added, to see whether it returns a promise.
  add(MICRO.noReport, async () => {
    await store.write('no-report-data', (tx) => tx.run('SELECT 1'));
  });
  add(MICRO.org, async () => {
    await store.write({ organizationId: 1 }, (tx) => tx.run('SELECT 1'));
  });
  add(MICRO.rawSerializable, async () => {
    await rawWrite(false, false);
  });
  add(MICRO.rawLock, async () => {
    await rawWrite(true, false);
  });
  add(MICRO.rawUpsert, async () => {
    await rawWrite(true, true);
  });

  // Rounds of every task in turn rather than each task's time in one block: a burst of the
  // machine's other work then lands on all rows alike instead of on one.
  const rounds: Array<Map<string, { ms: number; runs: number; p50: number }>> = [];
  for (let round = 0; round < MICRO_ROUNDS; round++) {
    const bench = new Bench({ time: MICRO_MS / MICRO_ROUNDS, warmupTime: round === 0 ? 200 : 50 });
    for (const [name, fn] of tasks) bench.add(name, fn);
    await bench.run();
    const results = new Map<string, { ms: number; runs: number; p50: number }>();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== 'completed') throw new Error(`micro benchmark ${task.name}: ${result.state}`);
      results.set(task.name, {
        ms: result.totalTime,
        runs: result.period > 0 ? result.totalTime / result.period : 0,
        p50: result.latency.p50,
      });
    }
    rounds.push(results);
  }
  return tasks.map(([name]) => {
    const all = rounds.map((r) => r.get(name)!);
    const meanMs = all.reduce((a, r) => a + r.ms, 0) / all.reduce((a, r) => a + r.runs, 0);
    const p50s = all.map((r) => r.p50).sort((a, b) => a - b);
    return {
      name,
      meanUs: meanMs * 1000,
      p50Us: p50s[Math.floor(p50s.length / 2)]! * 1000,
      opsPerSecond: 1000 / meanMs,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The table

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const us = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(1) : x.toFixed(2));

function answers(r: Measured): string {
  const parts = [...r.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  if (r.errors > 0) parts.push(`errors: ${r.errors}`);
  return parts.join(', ');
}

function loadTable(): string {
  const lines = [
    '| store | request | req/s | p50 ms | p99 ms | answers | CPU ms/request: service / PostgreSQL / load generator | cores these used |',
    '|---|---|---:|---:|---:|---|---|---:|',
  ];
  for (const { store, workload, result: r } of rows) {
    const cores = (r.rps * (r.cpu.service + (r.cpu.postgres ?? 0) + r.cpu.generator)) / 1000;
    lines.push(
      `| ${store} | ${workload} | ${Math.round(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${answers(r)} | ${r.cpu.service.toFixed(2)} / ${r.cpu.postgres === null ? '-' : r.cpu.postgres.toFixed(2)} / ${r.cpu.generator.toFixed(2)} | ${cores.toFixed(2)} of ${os.cpus().length} |`,
    );
  }
  return lines.join('\n');
}

function ratioLines(): string[] {
  const find = (store: string, workload: string) =>
    rows.find((r) => r.store.startsWith(store) && r.workload.startsWith(workload))?.result.rps;
  const out: string[] = [];
  for (const workload of ['POST /token', 'provisioning mix']) {
    const a = find('(a)', workload);
    const b = find('(b)', workload);
    const c = find('(c)', workload);
    if (a && b && c)
      out.push(
        `- ${workload}: 1 replica / DuckDB **${(b / a).toFixed(2)}**, 3 replicas / 1 replica **${(c / b).toFixed(2)}**, 3 replicas / DuckDB **${(c / a).toFixed(2)}** (req/s)`,
      );
  }
  return out;
}

function microTable(results: MicroRow[]): string {
  const lines = [
    `| per call, one at a time (${MICRO_ROUNDS} rounds of every row in turn, ${MICRO_MS} ms per row in all) | mean µs | p50 µs (median of the rounds') | ops/s (1 / mean) |`,
    '|---|---:|---:|---:|',
  ];
  for (const r of results)
    lines.push(`| ${r.name} | ${us(r.meanUs)} | ${us(r.p50Us)} | ${Math.round(r.opsPerSecond)} |`);
  // Differences of medians: a mean carries whatever stalls the shared machine had during that row.
  const median = (name: string) => results.find((r) => r.name === name)!.p50Us;
  const shared = median(MICRO.shared);
  const org = median(MICRO.org);
  const none = median(MICRO.noReport);
  const rawSerializable = median(MICRO.rawSerializable);
  const rawLock = median(MICRO.rawLock);
  const rawUpsert = median(MICRO.rawUpsert);
  lines.push(
    '',
    'Differences below are of the medians (p50): a mean carries whatever stalls the shared machine had during its row.',
    '',
    `- shared bucket take - in-memory take: **${us(shared - median(MICRO.memory))} µs** per request; the same statement ` +
      `as a named prepared statement: ${us(median(MICRO.rawTakePrepared))} µs against ${us(median(MICRO.rawTake))} µs unnamed ` +
      `(raw pg, a bare round trip ${us(median(MICRO.rawRoundTrip))} µs).`,
    `- write of report data - write of no report data (store): **${us(org - none)} µs** per write. It includes the advisory-lock statement ` +
      `and the data_versions upsert (one round trip each), READ COMMITTED instead of SERIALIZABLE, and a COMMIT that writes WAL ` +
      `(the no-report-data write here changes no row; fsync and synchronous_commit are off in this cluster). Raw pg splits it: ` +
      `advisory locks + isolation ${us(rawLock - rawSerializable)} µs, the upsert with its WAL ${us(rawUpsert - rawLock)} µs; ` +
      `the store's own overhead (pool, limiter, executor) over raw pg: ${us(none - rawSerializable)} µs.`,
  );
  return lines.join('\n');
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: run from the repository root after npm run build`);
  const began = performance.now();
  const loadAtStart = loadavg();
  log(`load average (1/5/15 min) at start: ${loadAtStart}; ${SECONDS} s per measurement`);
  pgStarting = startTestPostgres('adreport-replicas-pg-');
  pgStarting.catch(() => undefined); // a failed start is reported where it is awaited
  cleanups.push(async () => (await pgStarting.catch(() => undefined))?.close());
  await embedded();
  const storeUrl = await replicated();
  log('shared state per call (tinybench) ...');
  const microResults = await micro(storeUrl);
  const postgresVersion = (await pgStarting).peer.version;
  await cleanups.undo();
  const loadAtEnd = loadavg();
  const cpus = os.cpus();
  const command = `node --import tsx bench/replicas.ts${args.length ? ` ${args.join(' ')}` : ''}`;
  console.log(
    [
      `- command: \`${command}\``,
      `- date: ${new Date().toISOString()}; whole run ${((performance.now() - began) / 1000).toFixed(0)} s`,
      `- machine: ${cpus[0]?.model.trim() ?? 'unknown'}, ${cpus.length} cores, ${os.platform()} ${os.release()}, node ${process.version}, ${postgresVersion} (fsync, synchronous_commit off)`,
      `- load average (1 / 5 / 15 min): ${loadAtStart} at start, ${loadAtEnd} at end`,
      `- ${CONNECTIONS} connections, one request at a time each, ${SECONDS} s per row after a ${WARMUP_SECONDS} s warm-up; ` +
        `${ORGANIZATIONS} organizations x ${CLIENTS_PER_ORGANIZATION} clients (connection w uses client w mod ${ORGANIZATIONS * CLIENTS_PER_ORGANIZATION}); ` +
        'rate limits lifted (the buckets are still taken), page cache and database-time budget off',
      '',
      loadTable(),
      '',
      ...ratioLines(),
      '',
      microTable(microResults),
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    console.error(error);
    await cleanups.undo();
    process.exit(1);
  },
);
