/**
 * The benchmark's peer: the PostgreSQL a team would run instead of this service. Installed from
 * Debian packages when missing, one private cluster under a directory of ours, started on
 * 127.0.0.1 at a free port, loaded with the facts and entities of a generated DuckDB file.
 *
 * Clients (psql, pgbench) run as the current user over TCP loopback with `trust` auth; only the
 * server itself runs as the `postgres` OS user when we are root (postgres refuses to run as root).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import { treeCpuClock } from '../process-cpu.js';

export interface PostgresPeer {
  readonly port: number;
  /** e.g. "PostgreSQL 15.18" */
  readonly version: string;
  /** The directory of the server's binaries (pgbench and psql of the same version live there). */
  readonly binDir: string;
  /** The cluster's directory (`dir` of startPostgres): data/, server.log, the load marker. */
  readonly dir: string;
  /** Runs SQL through psql and returns the rows of its last statement as text; for checks, not for timing. */
  query(sql: string): Promise<Array<Record<string, string | null>>>;
  /** Stops the server; the cluster stays for the next start. */
  stop(): Promise<void>;
}

export interface LoadResult {
  rows: number;
  seconds: number;
  /** True when an earlier load of the same file was kept (rows and seconds are that load's). */
  reused: boolean;
}

export interface PgbenchResult {
  tps: number;
  p50Ms: number;
  p99Ms: number;
  transactions: number;
  /** CPU ms of the server's processes (the postmaster, its backends and workers; not pgbench) over the run. */
  serverCpuMs: number;
  /** serverCpuMs per transaction: what a query costs, whatever else the machine runs. */
  serverCpuMsPerTx: number;
}

type Log = (line: string) => void;
const quiet: Log = () => {};

const SUPERUSER = 'postgres';
const DATABASE = 'postgres';
const isRoot = () => process.getuid?.() === 0;

// ---------------------------------------------------------------------------------------------
// Processes

interface RunOptions {
  /** Run as the postgres OS user when we are root (server-side tools: initdb, pg_ctl). */
  asPostgres?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Runs a command to completion; rejects with its stderr when it fails. */
function run(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  const [cmd, argv] =
    options.asPostgres && isRoot() ? ['runuser', ['-u', SUPERUSER, '--', command, ...args]] : [command, [...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(
            `${command} ${args.join(' ').slice(0, 300)} exited with ${code}: ${(stderr || stdout).trim().slice(-2000)}`,
          ),
        );
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Installation

/** The newest Debian-layout server: /usr/lib/postgresql/<major>/bin with postgres in it. */
function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter(
      (v) =>
        /^\d+$/.test(v) &&
        existsSync(path.join(root, v, 'bin', 'postgres')) &&
        existsSync(path.join(root, v, 'bin', 'pgbench')),
    )
    .map(Number)
    .sort((a, b) => b - a);
  return majors.length > 0 ? path.join(root, String(majors[0]), 'bin') : undefined;
}

/** Installs the distribution's PostgreSQL when none is there (fresh CI machines: Debian 12, root, Debian mirror). */
async function ensureInstalled(log: Log): Promise<string> {
  const found = findBinDir();
  if (found) return found;
  if (!isRoot())
    throw new Error('PostgreSQL is not installed and we are not root: run `apt-get install -y postgresql` first');
  log('installing PostgreSQL from Debian packages (apt-get) ...');
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update'], { env });
  await run('apt-get', ['install', '-y', 'postgresql'], { env });
  const binDir = findBinDir();
  if (!binDir)
    throw new Error('apt-get installed postgresql but no /usr/lib/postgresql/<major>/bin/postgres was found');
  await stopDebianCluster(path.basename(path.dirname(binDir)), log);
  return binDir;
}

/**
 * The package creates and (where services may start) starts a cluster "main" on port 5432. We
 * never use it; stopping it keeps its memory and background work out of the measurement.
 */
async function stopDebianCluster(major: string, log: Log): Promise<void> {
  if (!existsSync(`/etc/postgresql/${major}/main`)) return;
  try {
    await run('pg_ctlcluster', [major, 'main', 'stop']);
    log(`stopped the Debian package's cluster ${major}/main`);
  } catch {
    // Not running (no init system in containers): nothing to stop.
  }
}

// ---------------------------------------------------------------------------------------------
// Cluster

/**
 * Settings for the bench machine (2 cores, 24 GiB) and a read-only workload after the load.
 * fsync, full_page_writes and synchronous_commit are off: durability buys nothing for a peer
 * that is loaded once and then only read (a crash during the load means loading again), and
 * they only affect writes, never the measured reads. wal_level minimal lets COPY into a table
 * created in the same transaction skip WAL. JIT is off: it made each report of the mix 10-15 ms
 * slower (compiling costs more than it saves on 20-150 ms queries), as a tuned server would have it.
 */
function settings(port: number): Record<string, string | number> {
  return {
    listen_addresses: "'127.0.0.1'",
    port,
    unix_socket_directories: "''",
    max_connections: 100,
    shared_buffers: "'4GB'",
    effective_cache_size: "'16GB'",
    work_mem: "'64MB'",
    maintenance_work_mem: "'1GB'",
    max_worker_processes: 4,
    max_parallel_workers: 2,
    max_parallel_workers_per_gather: 2,
    max_parallel_maintenance_workers: 2,
    random_page_cost: 1.1,
    effective_io_concurrency: 200,
    jit: 'off',
    fsync: 'off',
    full_page_writes: 'off',
    synchronous_commit: 'off',
    wal_level: 'minimal',
    max_wal_senders: 0,
    max_wal_size: "'8GB'",
    checkpoint_timeout: "'30min'",
    // Parallel query's shared memory in files of the data directory: container /dev/shm is often 64 MB.
    dynamic_shared_memory_type: 'mmap',
    logging_collector: 'off',
  };
}

const dataDir = (dir: string) => path.join(dir, 'data');

/** Fails early with a clear message when the postgres user cannot work in `dir` (e.g. under /root). */
async function prepareDir(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  if (!isRoot()) return;
  await run('chown', [`${SUPERUSER}:`, dir]);
  try {
    await run('test', ['-w', dir, '-a', '-x', dir], { asPostgres: true });
  } catch {
    throw new Error(
      `the postgres user cannot use ${dir}: every directory above it must be searchable by others (chmod o+x)`,
    );
  }
}

/** initdb unless a cluster of the same major version is there; the cluster of another version is replaced. */
async function ensureCluster(dir: string, binDir: string, log: Log): Promise<void> {
  const major = path.basename(path.dirname(binDir));
  const versionFile = path.join(dataDir(dir), 'PG_VERSION');
  if (existsSync(versionFile) && readFileSync(versionFile, 'utf8').trim() === major) return;
  rmSync(dataDir(dir), { recursive: true, force: true });
  rmSync(markerPath(dir), { force: true });
  log(`initdb ${dataDir(dir)} (PostgreSQL ${major}) ...`);
  // C collation: text sorts by code point as in DuckDB; trust auth: the server listens on loopback only.
  await run(
    path.join(binDir, 'initdb'),
    ['-D', dataDir(dir), '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--locale=C'],
    { asPostgres: true, cwd: dir },
  );
  writeFileSync(
    path.join(dataDir(dir), 'postgresql.conf'),
    `${readFileSync(path.join(dataDir(dir), 'postgresql.conf'), 'utf8')}\ninclude 'bench.conf'\n`,
  );
}

/** A server left running by an interrupted run holds the data directory: stop it. */
async function stopStale(dir: string, binDir: string, log: Log): Promise<void> {
  if (!existsSync(path.join(dataDir(dir), 'postmaster.pid'))) return;
  try {
    await run(path.join(binDir, 'pg_ctl'), ['status', '-D', dataDir(dir)], { asPostgres: true, cwd: dir });
  } catch {
    return; // not running: pg_ctl start removes a stale pid file itself
  }
  log('stopping a server left running in the data directory ...');
  await run(path.join(binDir, 'pg_ctl'), ['stop', '-D', dataDir(dir), '-m', 'fast', '-w'], {
    asPostgres: true,
    cwd: dir,
  });
}

export async function startPostgres(options: {
  dir: string;
  log?: Log;
  /** Settings that replace the bench's (e.g. a smaller shared_buffers for tests); values as in postgresql.conf. */
  settings?: Record<string, string | number>;
}): Promise<PostgresPeer> {
  const log = options.log ?? quiet;
  const dir = path.resolve(options.dir);
  const binDir = await ensureInstalled(log);
  await prepareDir(dir);
  await ensureCluster(dir, binDir, log);
  await stopStale(dir, binDir, log);
  const port = await freePort();
  const conf = Object.entries({ ...settings(port), ...options.settings }).map(([k, v]) => `${k} = ${v}`);
  writeFileSync(
    path.join(dataDir(dir), 'bench.conf'),
    `# written by bench/peer/postgres.ts on every start\n${conf.join('\n')}\n`,
  );
  const logFile = path.join(dir, 'server.log');
  if (isRoot()) await run('chown', ['-R', `${SUPERUSER}:`, dataDir(dir)]);
  log(`starting PostgreSQL on 127.0.0.1:${port} (log: ${logFile}) ...`);
  await run(path.join(binDir, 'pg_ctl'), ['start', '-D', dataDir(dir), '-l', logFile, '-w', '-t', '300'], {
    asPostgres: true,
    cwd: dir,
  });
  const peer = makePeer(dir, binDir, port, '');
  const [row] = await peer.query('SHOW server_version');
  const version = `PostgreSQL ${(row?.server_version ?? '?').split(' ')[0]}`;
  log(`${version} is up`);
  return makePeer(dir, binDir, port, version);
}

/**
 * Starts a peer's cluster again after `stop()`, on the same port and settings (the bench.conf of
 * its last start): clients that knew its address find it there again.
 */
export async function startStopped(peer: PostgresPeer): Promise<void> {
  await run(
    path.join(peer.binDir, 'pg_ctl'),
    ['start', '-D', dataDir(peer.dir), '-l', path.join(peer.dir, 'server.log'), '-w', '-t', '300'],
    { asPostgres: true, cwd: peer.dir },
  );
}

function makePeer(dir: string, binDir: string, port: number, version: string): PostgresPeer {
  return {
    port,
    version,
    binDir,
    dir,
    query: (sql) => psqlQuery(binDir, port, sql),
    stop: async () => {
      await run(path.join(binDir, 'pg_ctl'), ['stop', '-D', dataDir(dir), '-m', 'fast', '-w'], {
        asPostgres: true,
        cwd: dir,
      });
    },
  };
}

const connectArgs = (port: number) => ['-h', '127.0.0.1', '-p', String(port), '-U', SUPERUSER];
const psqlArgs = (port: number) => ['-X', '-q', '-v', 'ON_ERROR_STOP=1', ...connectArgs(port), '-d', DATABASE];

/**
 * psql --csv prints NULL and '' alike, so NULL is printed as \N (as COPY does); only a text
 * value of exactly \N would be mistaken for NULL, which the checks never select.
 */
async function psqlQuery(binDir: string, port: number, sql: string): Promise<Array<Record<string, string | null>>> {
  const { stdout } = await run(path.join(binDir, 'psql'), [...psqlArgs(port), '--csv', '-P', 'null=\\N', '-c', sql]);
  if (stdout.trim() === '') return [];
  return parse(stdout, {
    columns: true,
    cast: (value, context) => (value === '\\N' && !context.quoting ? null : value),
  }) as Array<Record<string, string | null>>;
}

/** Runs a psql script (meta-commands like \copy allowed) in one transaction. */
async function psqlScript(peer: PostgresPeer, script: string): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'peer-sql-'));
  try {
    const file = path.join(dir, 'script.sql');
    writeFileSync(file, script);
    await run(path.join(peer.binDir, 'psql'), [...psqlArgs(peer.port), '--single-transaction', '-f', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Schema and load

/**
 * The tables the report mix reads, as DuckDB has them, except money: ENUMs become PostgreSQL
 * enums (4 bytes, like DuckDB's); DECIMAL(18,6) becomes bigint micros (`cost_micros`, as the
 * Google Ads API reports cost). Exact like numeric(18,6), and summing int8 (128-bit
 * accumulators) instead of numeric cut the server CPU per report by 20-40% on three of the four
 * reports of the mix (scale 10; the fourth within noise), so that is what a tuned schema has.
 * The queries turn the micros sums back into exact decimals. Entity columns the mix never reads
 * (timestamps, time zones) and the ads table are left out.
 */
const TYPES = `
  CREATE TYPE device_type AS ENUM ('DESKTOP', 'MOBILE', 'TABLET', 'CONNECTED_TV', 'OTHER', 'UNKNOWN');
  CREATE TYPE network_type AS ENUM ('SEARCH', 'SEARCH_PARTNERS', 'DISPLAY', 'SOCIAL');`;

interface TableSpec {
  readonly name: string;
  /** Column definitions in the order of the CSV export. */
  readonly columns: string;
  /** SELECT list of the DuckDB export (same order). */
  readonly export: string;
  /** Facts are exported sorted, so the heap is clustered by (organization, day). */
  readonly orderBy?: string;
  readonly indexes: readonly string[];
}

const MONEY = ['cost', 'conversions', 'conversion_value', 'call_conversions_fractional'] as const;
const MEASURES = `impressions integer NOT NULL, clicks integer NOT NULL, ${MONEY.map((m) => `${m}_micros bigint NOT NULL`).join(', ')},
  calls integer NOT NULL, call_conversions integer NOT NULL`;
const MEASURE_EXPORT = `impressions, clicks, ${MONEY.map((m) => `CAST(${m} * 1000000 AS BIGINT)`).join(', ')}, calls, call_conversions`;

/**
 * Every report reads one organization's date range and groups it by an entity (and day and
 * device). A btree on (organization_id, day) finds the range; INCLUDE of what the mix sums and
 * groups by makes it an index-only scan (the table is frozen and all-visible after the load).
 * Measured on scale 10 against a plain btree (heap in (organization, day) order, 68 MB for both
 * tables instead of 800 MB): a month of keyword facts touches 1469 instead of 2706 buffers and
 * the ad-fact reports run up to ~1.8x the throughput; the keyword reports are within noise
 * (their aggregation dominates). BRIN (pages_per_range 16, 448 kB) was never faster than the
 * btree and 20-50% slower on the keyword reports (lossy bitmap heap scan and recheck).
 */
function factTable(name: string, key: string, include: string): TableSpec {
  return {
    name,
    columns: `organization_id bigint NOT NULL, day date NOT NULL, adplatform_account_id bigint NOT NULL, campaign_id bigint NOT NULL,
      ad_group_id bigint NOT NULL, ${key} bigint NOT NULL, device device_type NOT NULL, network network_type NOT NULL, ${MEASURES}`,
    export: `organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ${key}, device::VARCHAR, network::VARCHAR, ${MEASURE_EXPORT}`,
    orderBy: `organization_id, day, ${key}`,
    indexes: [
      `CREATE INDEX ${name}_org_day ON ${name} (organization_id, day) INCLUDE (${include}, impressions, clicks, cost_micros, conversions_micros, conversion_value_micros)`,
    ],
  };
}

export const TABLES: readonly TableSpec[] = [
  {
    name: 'adplatform_accounts',
    columns:
      'id bigint PRIMARY KEY, organization_id bigint NOT NULL, ad_platform_type text NOT NULL, ad_platform_id text NOT NULL, name text NOT NULL, currency text NOT NULL',
    export: 'id, organization_id, ad_platform_type, ad_platform_id, name, currency',
    indexes: [],
  },
  {
    name: 'campaigns',
    columns: `id bigint PRIMARY KEY, organization_id bigint NOT NULL, adplatform_account_id bigint NOT NULL, ad_platform_type text NOT NULL,
      ad_platform_id text NOT NULL, name text NOT NULL, status text NOT NULL`,
    export: 'id, organization_id, adplatform_account_id, ad_platform_type, ad_platform_id, name, status',
    indexes: ['CREATE INDEX campaigns_organization_idx ON campaigns (organization_id)'],
  },
  {
    name: 'ad_groups',
    columns:
      'id bigint PRIMARY KEY, organization_id bigint NOT NULL, campaign_id bigint NOT NULL, ad_platform_id text NOT NULL, name text NOT NULL, status text NOT NULL',
    export: 'id, organization_id, campaign_id, ad_platform_id, name, status',
    indexes: ['CREATE INDEX ad_groups_organization_idx ON ad_groups (organization_id)'],
  },
  {
    name: 'keywords',
    columns: `id bigint PRIMARY KEY, organization_id bigint NOT NULL, ad_group_id bigint NOT NULL, ad_platform_id text NOT NULL, text text NOT NULL,
      match_type text NOT NULL, status text NOT NULL`,
    export: 'id, organization_id, ad_group_id, ad_platform_id, text, match_type, status',
    indexes: ['CREATE INDEX keywords_organization_idx ON keywords (organization_id)'],
  },
  factTable('fact_ad_daily', 'ad_id', 'campaign_id, ad_group_id, device'),
  factTable('fact_keyword_daily', 'keyword_id', 'keyword_id'),
];

interface Marker {
  source: string;
  size: number;
  mtimeMs: number;
  /** Hash of the schema and indexes: changing them here reloads. */
  schema: string;
  rows: number;
  seconds: number;
}

const markerPath = (dir: string) => path.join(dir, 'loaded.json');
const schemaHash = () =>
  createHash('sha256')
    .update(JSON.stringify([TYPES, TABLES]))
    .digest('hex')
    .slice(0, 16);

function sourceIdentity(duckdbPath: string): Pick<Marker, 'source' | 'size' | 'mtimeMs' | 'schema'> {
  const stat = statSync(duckdbPath);
  return { source: path.resolve(duckdbPath), size: stat.size, mtimeMs: stat.mtimeMs, schema: schemaHash() };
}

function readMarker(dir: string): Marker | undefined {
  try {
    return JSON.parse(readFileSync(markerPath(dir), 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

/** Writes each table as CSV from DuckDB, in-process and read-only; returns the files by table. */
async function exportFromDuckDB(duckdbPath: string, outDir: string, log: Log): Promise<Map<string, string>> {
  const instance = await DuckDBInstance.create(duckdbPath, { access_mode: 'READ_ONLY' });
  const files = new Map<string, string>();
  try {
    const connection = await instance.connect();
    for (const table of TABLES) {
      const file = path.join(outDir, `${table.name}.csv`);
      const started = performance.now();
      await connection.run(
        `COPY (SELECT ${table.export} FROM ${table.name}${table.orderBy ? ` ORDER BY ${table.orderBy}` : ''}) TO '${file}' (FORMAT csv, HEADER false)`,
      );
      log(`  exported ${table.name} from DuckDB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      files.set(table.name, file);
    }
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
  return files;
}

/** CREATE and \copy in one transaction: with wal_level minimal the copy writes no WAL. */
async function loadTable(peer: PostgresPeer, table: TableSpec, file: string): Promise<void> {
  await psqlScript(
    peer,
    `DROP TABLE IF EXISTS ${table.name};\nCREATE TABLE ${table.name} (${table.columns});\n\\copy ${table.name} FROM '${file}' WITH (FORMAT csv)\n`,
  );
}

/** Runs tasks with at most `limit` at a time (two cores: two COPYs or index builds). */
async function inParallel<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function loadFacts(peer: PostgresPeer, duckdbPath: string, log: Log = quiet): Promise<LoadResult> {
  const identity = sourceIdentity(duckdbPath);
  const marker = readMarker(peer.dir);
  if (marker && Object.entries(identity).every(([k, v]) => marker[k as keyof Marker] === v)) {
    log(`reusing the load of ${identity.source} (${marker.rows} rows, loaded in ${marker.seconds.toFixed(1)} s)`);
    return { rows: marker.rows, seconds: marker.seconds, reused: true };
  }
  rmSync(markerPath(peer.dir), { force: true });
  const started = performance.now();
  // Beside the cluster, not in /tmp: the CSVs are several times the DuckDB file, and /tmp may be RAM.
  const tmp = await mkdtemp(path.join(peer.dir, 'export-'));
  try {
    log(`exporting ${identity.source} to CSV ...`);
    const files = await exportFromDuckDB(duckdbPath, tmp, log);
    await peer.query(
      `DROP TABLE IF EXISTS ${TABLES.map((t) => t.name).join(', ')}; DROP TYPE IF EXISTS device_type, network_type; ${TYPES}`,
    );
    log('copying into PostgreSQL ...');
    await inParallel(TABLES, 2, async (table) => {
      const t = performance.now();
      await loadTable(peer, table, files.get(table.name)!);
      log(`  loaded ${table.name} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  await buildIndexes(peer, log);
  log('VACUUM (FREEZE, ANALYZE) ...');
  // Freeze and set the visibility map now, so no autovacuum rewrites pages during the measurement.
  await peer.query('VACUUM (FREEZE, ANALYZE)');
  const rows = await countRows(peer);
  const seconds = (performance.now() - started) / 1000;
  writeFileSync(markerPath(peer.dir), JSON.stringify({ ...identity, rows, seconds } satisfies Marker, null, 2));
  log(`loaded ${rows} rows in ${seconds.toFixed(1)} s`);
  return { rows, seconds, reused: false };
}

async function buildIndexes(peer: PostgresPeer, log: Log): Promise<void> {
  for (const statement of TABLES.flatMap((t) => t.indexes)) {
    const t = performance.now();
    await peer.query(statement);
    log(`  ${statement} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
}

async function countRows(peer: PostgresPeer): Promise<number> {
  const [row] = await peer.query(`SELECT ${TABLES.map((t) => `(SELECT count(*) FROM ${t.name})`).join(' + ')} AS n`);
  return Number(row?.n ?? 0);
}

// ---------------------------------------------------------------------------------------------
// pgbench

/**
 * Runs one statement with pgbench for `seconds` at `clients` connections and reads the latency
 * of every transaction from its per-transaction log. Prepared mode: the statement is parsed and
 * planned once per connection, as the service caches its prepared statements too.
 */
export async function pgbench(
  peer: PostgresPeer,
  sql: string,
  clients: number,
  seconds: number,
  options: { mode?: 'prepared' | 'simple' } = {},
): Promise<PgbenchResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'peer-pgbench-'));
  try {
    const script = path.join(dir, 'query.sql');
    // pgbench ends a command at a semicolon and substitutes :names (casts' :: are left alone).
    writeFileSync(script, `${sql.trim().replace(/;\s*$/, '')};\n`);
    const args = [
      '-n',
      '-f',
      script,
      '-c',
      String(clients),
      '-j',
      String(Math.min(clients, 2)),
      '-T',
      String(seconds),
      '-M',
      options.mode ?? 'prepared',
      '--log',
      `--log-prefix=${path.join(dir, 'tx')}`,
      ...connectArgs(peer.port),
      DATABASE,
    ];
    const serverCpu = treeCpuClock(postmasterPid(peer.dir));
    const { stdout } = await run(path.join(peer.binDir, 'pgbench'), args, { cwd: dir });
    // The backends exit with pgbench; give the postmaster a moment to reap them into its children's times.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const serverCpuMs = serverCpu();
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    if (failed > 0) throw new Error(`pgbench: ${failed} failed transactions:\n${stdout}`);
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1] ?? NaN);
    const latencies = await readLatencies(dir);
    if (latencies.length === 0 || !Number.isFinite(tps))
      throw new Error(`pgbench: no transactions measured:\n${stdout}`);
    return {
      tps,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      transactions,
      serverCpuMs,
      serverCpuMsPerTx: serverCpuMs / transactions,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The postmaster's pid: its tree is the server (backends and parallel workers are its children;
 * exited ones are in its children's times), pgbench and psql are not in it.
 */
function postmasterPid(dir: string): number {
  return Number(
    readFileSync(path.join(dataDir(dir), 'postmaster.pid'), 'utf8')
      .split('\n')[0]!
      .trim(),
  );
}

/** Per-transaction log lines: client_id transaction_no time_us script_no epoch epoch_us. */
async function readLatencies(dir: string): Promise<number[]> {
  const latencies: number[] = [];
  for (const name of (await readdir(dir)).filter((f) => f.startsWith('tx.'))) {
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) {
      const micros = Number(line.split(' ')[2]);
      if (line !== '' && Number.isFinite(micros)) latencies.push(micros / 1000);
    }
  }
  return latencies.sort((a, b) => a - b);
}

/** Nearest rank over sorted values. */
function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
