/**
 * Bulk-export benchmark (issue 9): one large report streamed as CSV, NDJSON and Parquet over
 * HTTPS, against DuckDB's own `COPY (<same SQL>) TO '<file>'` in the same run. Per format it
 * reports rows/s of both and their ratio, the server's idle and peak RSS during the export, and
 * p50/p99 of small report requests (`/campaigns`, 30 days) running beside the export against the
 * same requests with no export running.
 *
 *   npm run build && node --import tsx bench/export-load.ts [--quick] [--scale N] [--threads N]
 *
 * Full: scale 100 (generated once into bench/out/scale-100/: ~200 s, ~830 MB; reused while it
 * ends yesterday), ~5 M rows, 3 runs per measurement, medians reported. --quick: scale 10, a
 * shorter date range (~0.6 M rows), 1 run; well under 2 minutes on an idle 2-core machine.
 * Each run exports once alone (the throughput compared with COPY, which runs alone too) and once
 * with the small requests beside it (their latency). --threads N sets DuckDB's threads in the
 * server (ADREPORT_DB_THREADS) and in the in-process COPY alike; default: DuckDB's default, all
 * cores, in both. Writes bench/out/export-load.md.
 *
 * Exit code 1 when an export or a small request fails (or rows go missing); goals missed are
 * reported, not failed, since they depend on the machine.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import { parseReportQuery, reportRequest } from '../src/reporting/report-request.js';
import { compileReport, type CompiledQuery, type ExportFormat } from '../src/sql/compile-report.js';
import { toDuckDBTypes, toDuckDBValues } from '../src/store/sql-values.js';
import { median, post, root, startServer, stopServer } from './lib.js';
import { COPY_OPTIONS } from '../src/sql/duckdb/duckdb-dialect.js';
import { generatedDatabase, type Generated } from './generated.js';

const argv = process.argv.slice(2);
const flag = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const quick = argv.includes('--quick');
const SCALE = Number(flag('--scale') ?? (quick ? 10 : 100));
const THREADS = flag('--threads') === undefined ? undefined : Number(flag('--threads'));
const RUNS = quick ? 1 : 3;
/** How long the small requests run with no export, per server. */
const IDLE_MS = quick ? 2_000 : 5_000;
/** Connections of the small requests (the issue: a few users browsing while one exports). */
const PROBE_CONNECTIONS = 2;
const FORMATS: readonly ExportFormat[] = ['csv', 'ndjson', 'parquet'];
/** The issue's goals: service rows/s at least this share of COPY-to-file rows/s, and p99 beside an export at most P99_GOAL x idle. */
const THROUGHPUT_GOAL: Readonly<Record<ExportFormat, number>> = { csv: 0.8, ndjson: 1, parquet: 0.8 };
const P99_GOAL = 2;
/** The service's own NDJSON COPY options, for the reference COPY of the same text. */
const SERVICE_NDJSON_OPTIONS = COPY_OPTIONS.ndjson;

interface Organization {
  id: number;
  clientId: string;
  clientSecret: string;
}
const minusDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** The export: an organization, an endpoint below /reporting/v0 and its query without `format`. */
interface ExportRequest {
  org: Organization;
  endpoint: string;
  query: string;
}

/**
 * Keywords by Day x DeviceType: one row per keyword, day and device with traffic, the finest grain
 * a report has. Full (scale 100): organization 8, all 400 days, ~5.25 M rows (organization 1 has
 * only ~4.4 M; 2 and 4 have more than 5.4 M). Quick (scale 10): organization 1, 120 days, ~0.63 M.
 * Another scale falls back to organization 1.
 */
function exportRequest(generated: Generated): ExportRequest {
  const [orgId, days] = quick ? [1, 120] : [8, 400];
  const org = generated.organizations.find((o) => o.id === orgId) ?? generated.organizations[0]!;
  return {
    org,
    endpoint: 'keywords',
    query: `startDate=${minusDays(generated.lastDay, days - 1)}&endDate=${generated.lastDay}&segments=Day,DeviceType`,
  };
}

/** The small request beside the export: the campaign report's first page over 30 days. */
const smallRequestPath = (lastDay: string) =>
  `/reporting/v0/campaigns?startDate=${minusDays(lastDay, 29)}&endDate=${lastDay}`;

// ---------------------------------------------------------------- the service

interface Session {
  base: string;
  ca: string;
  headers: Record<string, string>;
  pid: number;
}

async function openSession(dir: string, org: Organization, port: number, pid: number): Promise<Session> {
  const base = `https://127.0.0.1:${port}`;
  const ca = readFileSync(path.join(dir, 'adreport.duckdb.tls', 'cert.pem'), 'utf8');
  const basic = `Basic ${Buffer.from(`${org.clientId}:${org.clientSecret}`).toString('base64')}`;
  const token = (await post(
    `${base}/token`,
    { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    'grant_type=client_credentials',
    ca,
  )) as { access_token: string };
  return { base, ca, headers: { authorization: `Bearer ${token.access_token}` }, pid };
}

/** Rows of the whole result from the JSON form's X-TotalCount; also reads the data into DuckDB's cache before anything is timed. */
function totalCount(s: Session, request: ExportRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(
        `${s.base}/reporting/v0/${request.endpoint}?${request.query}&limit=1`,
        { ca: s.ca, headers: s.headers },
        (res) => {
          res
            .resume()
            .on('end', () =>
              res.statusCode === 200
                ? resolve(Number(res.headers['x-totalcount']))
                : reject(new Error(`count -> ${res.statusCode}`)),
            );
        },
      )
      .on('error', reject);
  });
}

interface Download {
  seconds: number;
  /** Until the first body byte: DuckDB's query up to its sort (the export is ORDER BY'd), before any row is written. */
  firstByteSeconds: number;
  bytes: number;
  /** Counted from the body: lines (CSV without its header), Parquet rows read back by DuckDB. */
  rows: number;
}

/** The last line of a CSV or NDJSON export that failed after its first byte (export-stream.ts). */
const FAILURE_LINE = /(^|\n)(#adreport-error:|\{"error":\{"code":"export_failed").*\n?$/;

function countNewlines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * Downloads one export as fast as the client can take it, on a connection of its own. CSV and
 * NDJSON are only counted; Parquet goes to `parquetFile` so its rows can be read back (after
 * the clock stops).
 */
function download(
  url: string,
  s: Session,
  format: ExportFormat,
  parquetFile: string,
): Promise<Omit<Download, 'rows'> & { lines: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = https.get(url, { ca: s.ca, headers: s.headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => reject(new Error(`GET ${url} -> ${res.statusCode}: ${text.slice(0, 500)}`)));
        return;
      }
      const file = format === 'parquet' ? createWriteStream(parquetFile) : undefined;
      let bytes = 0;
      let lines = 0;
      let firstByteSeconds: number | undefined;
      // The last two chunks: enough to see a failure line at the end without copying every chunk.
      let previous: Buffer = Buffer.alloc(0);
      let last: Buffer = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        firstByteSeconds ??= (performance.now() - started) / 1000;
        bytes += chunk.length;
        if (file) {
          if (!file.write(chunk)) {
            res.pause();
            file.once('drain', () => res.resume());
          }
        } else {
          lines += countNewlines(chunk);
          previous = last;
          last = chunk;
        }
      });
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete) reject(new Error(`GET ${url}: the response was cut off after ${bytes} bytes`));
      });
      res.on('end', () => {
        const seconds = (performance.now() - started) / 1000;
        const tail = Buffer.concat([previous, last]).subarray(-2048).toString('utf8');
        if (!file && FAILURE_LINE.test(tail))
          return reject(
            new Error(
              `GET ${url}: the export failed: ${tail.slice(tail.lastIndexOf('\n', tail.length - 2) + 1).trim()}`,
            ),
          );
        const got = { seconds, firstByteSeconds: firstByteSeconds ?? seconds, bytes, lines };
        if (!file) return resolve(got);
        file.end(() => resolve(got));
      });
    });
  });
}

/** Rows of a Parquet file, from its footer. */
async function parquetRows(db: DuckDBConnection, file: string): Promise<number> {
  const reader = await db.runAndReadAll(
    `SELECT sum(num_rows)::BIGINT FROM parquet_file_metadata('${file.replaceAll("'", "''")}')`,
  );
  return Number(reader.getRows()[0]![0]);
}

// ---------------------------------------------------------------- small requests beside the export

interface ProbeOptions {
  url: string;
  ca: string;
  headers: Record<string, string>;
  connections: number;
}
interface Latencies {
  count: number;
  errors: number;
  p50: number;
  p99: number;
}

/**
 * The small-request loop, in a worker thread so that the download's TLS work on the main thread
 * never delays it; plain JS (eval) so the worker loads nothing but node:https. It opens its
 * connections, says 'ready', then records the latency of every request until told to stop.
 */
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const { url, ca, headers, connections } = workerData;
const agent = new https.Agent({ keepAlive: true, maxSockets: connections, ca });
const get = () => new Promise((resolve) => {
  const started = performance.now();
  https.get(url, { agent, headers }, (res) => {
    res.resume();
    res.on('end', () => resolve({ ok: res.statusCode === 200, ms: performance.now() - started }));
    res.on('error', () => resolve({ ok: false, ms: 0 }));
  }).on('error', () => resolve({ ok: false, ms: 0 }));
});
let stopping = false;
parentPort.once('message', () => { stopping = true; });
(async () => {
  const latencies = [];
  let errors = 0;
  await Promise.all(Array.from({ length: connections }, get));
  parentPort.postMessage({ ready: true });
  await Promise.all(Array.from({ length: connections }, async () => {
    while (!stopping) {
      const r = await get();
      if (r.ok) latencies.push(r.ms); else errors++;
    }
  }));
  agent.destroy();
  parentPort.postMessage({ latencies, errors });
})();
`;

const percentile = (sorted: readonly number[], q: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

/** Starts the small requests; resolves once their connections are open. */
async function startProbe(options: ProbeOptions): Promise<{ stop(): Promise<Latencies> }> {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: options });
  const messages: Array<(m: unknown) => void> = [];
  worker.on('message', (m: unknown) => messages.shift()?.(m));
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      messages.push(resolve);
      worker.once('error', reject);
    });
  await next();
  let stopped: Promise<Latencies> | undefined;
  const stop = async (): Promise<Latencies> => {
    const done = next();
    worker.postMessage('stop');
    const { latencies, errors } = (await done) as { latencies: number[]; errors: number };
    await worker.terminate();
    const sorted = latencies.sort((a, b) => a - b);
    return { count: sorted.length, errors, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  };
  // Once only: an error path may stop it before the result is read.
  return { stop: () => (stopped ??= stop()) };
}

// ---------------------------------------------------------------- server memory

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) / 1024;
}

/** Samples the server's RSS every 100 ms; stop() gives the peak. */
function sampleRss(pid: number): { stop(): number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMb(pid));
    },
  };
}

/** Busy CPU seconds of the whole machine and of this process with its reaped children (the servers), from /proc (USER_HZ = 100). */
function cpuSeconds(): { machine: number; ours: number } {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  // Fields after "(comm)": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const self = readFileSync('/proc/self/stat', 'utf8');
  const fields = self
    .slice(self.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const ours = fields[11]! + fields[12]! + fields[13]! + fields[14]!;
  return { machine: (user! + nice! + system! + irq! + softirq! + steal!) / 100, ours: ours / 100 };
}

// ---------------------------------------------------------------- one format through the service

interface TimedExport extends Download {
  peakRssMb: number;
}
interface ServiceRun {
  /** The export on its own: the throughput compared with COPY. */
  alone: TimedExport;
  /** The same export with the small requests running beside it. */
  beside: TimedExport & { small: Latencies };
}
interface ServiceResult {
  expectedRows: number;
  idleRssMb: number;
  idle: Latencies;
  runs: ServiceRun[];
}

/** One export with the RSS sampler running; fails unless every row arrived. */
async function timedExport(
  url: string,
  s: Session,
  format: ExportFormat,
  expectedRows: number,
  scratch: DuckDBConnection,
): Promise<TimedExport> {
  const parquetFile = path.join(os.tmpdir(), `adreport-export-load-${process.pid}.parquet`);
  try {
    const rss = sampleRss(s.pid);
    let peakRssMb = 0;
    const got = await download(url, s, format, parquetFile).finally(() => (peakRssMb = rss.stop()));
    const rows =
      format === 'parquet' ? await parquetRows(scratch, parquetFile) : format === 'csv' ? got.lines - 1 : got.lines;
    if (rows !== expectedRows) throw new Error(`${format} export: ${rows} rows, X-TotalCount says ${expectedRows}`);
    return { seconds: got.seconds, firstByteSeconds: got.firstByteSeconds, bytes: got.bytes, rows, peakRssMb };
  } finally {
    rmSync(parquetFile, { force: true });
  }
}

/**
 * A fresh server per format, so each format's peak RSS is its own. Before anything is timed, the
 * JSON form counts the rows (and reads the data into DuckDB's cache); then the idle small
 * requests; then RUNS times the export alone (throughput: COPY to a file has nothing beside it
 * either) and the export with the small requests beside it (their latency).
 */
async function measureService(
  dir: string,
  request: ExportRequest,
  format: ExportFormat,
  probePath: string,
  scratch: DuckDBConnection,
): Promise<ServiceResult> {
  const { child, ready } = startServer(path.join(dir, 'adreport.duckdb'));
  try {
    const s = await openSession(dir, request.org, (await ready).port, child.pid!);
    const expectedRows = await totalCount(s, request);
    const probeOptions: ProbeOptions = {
      url: `${s.base}${probePath}`,
      ca: s.ca,
      headers: s.headers,
      connections: PROBE_CONNECTIONS,
    };
    await (await startProbe(probeOptions)).stop(); // warm-up: first queries, JIT
    const idleRssMb = rssMb(s.pid);
    const idleProbe = await startProbe(probeOptions);
    await sleep(IDLE_MS);
    const idle = await idleProbe.stop();
    console.error(
      `${format}: ${expectedRows} rows; idle: RSS ${idleRssMb.toFixed(0)} MB, small requests p50 ${ms(idle.p50)} ms, p99 ${ms(idle.p99)} ms (${idle.count})`,
    );

    const url = `${s.base}/reporting/v0/${request.endpoint}?${request.query}&format=${format}`;
    const runs: ServiceRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      const alone = await timedExport(url, s, format, expectedRows, scratch);
      const probe = await startProbe(probeOptions);
      const besideExport = await timedExport(url, s, format, expectedRows, scratch).finally(() => probe.stop());
      const beside = { ...besideExport, small: await probe.stop() };
      runs.push({ alone, beside });
      console.error(
        `${format} run ${i + 1}/${RUNS}: alone ${rate(alone.rows / alone.seconds)} rows/s, ${mb(alone.bytes)} MB in ${alone.seconds.toFixed(2)} s (first byte ${alone.firstByteSeconds.toFixed(2)} s), peak RSS ${alone.peakRssMb.toFixed(0)} MB; ` +
          `beside small requests ${rate(beside.rows / beside.seconds)} rows/s, peak RSS ${beside.peakRssMb.toFixed(0)} MB, small p50 ${ms(beside.small.p50)} ms, p99 ${ms(beside.small.p99)} ms (${beside.small.count}, ${beside.small.errors} failed)`,
      );
    }
    return { expectedRows, idleRssMb, idle, runs };
  } finally {
    await stopServer(child);
  }
}

// ---------------------------------------------------------------- the engine floor: COPY to a file

interface CopyVariant {
  /** What the table calls it. */
  label: string;
  /** Which export SQL: compileReport(plan).export(sqlOf). */
  sqlOf: ExportFormat;
  options: string;
  extension: string;
  /** Rewrites the export SQL for this writer. */
  rewrite?: (sql: string) => string;
}

/**
 * DuckDB's own JSON writer on the rows of the service's NDJSON: the struct as top-level columns
 * (unnest) instead of its to_json text, which writes the same objects, byte for byte.
 */
function asJsonColumns(sql: string): string {
  const head = 'SELECT to_json(struct_pack(';
  const tail = ') AS line FROM report_rows r';
  if (sql.split(head).length !== 2 || sql.split(tail).length !== 2)
    throw new Error('the NDJSON export SQL no longer has the shape asJsonColumns expects');
  return sql.replace(head, 'SELECT unnest(struct_pack(').replace(tail, ') FROM report_rows r');
}

/** The issue's references per format, plus the service's own NDJSON options written to a file. */
const REFERENCES: Readonly<Record<ExportFormat, CopyVariant>> = {
  csv: { label: 'COPY (FORMAT csv, HEADER true)', sqlOf: 'csv', options: 'FORMAT csv, HEADER true', extension: 'csv' },
  ndjson: {
    label: 'COPY (FORMAT json)',
    sqlOf: 'ndjson',
    options: 'FORMAT json',
    extension: 'ndjson',
    rewrite: asJsonColumns,
  },
  parquet: { label: 'COPY (FORMAT parquet)', sqlOf: 'parquet', options: 'FORMAT parquet', extension: 'parquet' },
};
const SERVICE_NDJSON_TO_FILE: CopyVariant = {
  label: "COPY with the service's NDJSON options",
  sqlOf: 'ndjson',
  options: SERVICE_NDJSON_OPTIONS,
  extension: 'ndjson',
};

interface CopyRun {
  seconds: number;
  bytes: number;
  rows: number;
}

/** The export SQL exactly as the service builds it for this request (same parser, planner and compiler). */
function compiledFor(request: ExportRequest, format: ExportFormat, now: Date): CompiledQuery {
  const endpoint = ENDPOINT_BY_PATH.get(request.endpoint);
  if (!endpoint) throw new Error(`no endpoint /reporting/v0/${request.endpoint}`);
  const query = parseReportQuery(`?${request.query}&format=${format}`, endpoint);
  return compileReport(buildPlan(endpoint, reportRequest(query, endpoint.level, request.org.id, format), now)).export(
    format,
  );
}

/**
 * Where the COPY files go: memory (tmpfs) when there is one, as the service's pipe is, so the
 * floor is DuckDB's rendering and not the disk (3 x 4 files of up to 2.3 GB each would otherwise
 * also measure the page cache's writeback).
 */
const COPY_DIR = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

/** COPY (<sql>) TO a temp file with the export's bound parameters; the file is removed after. */
async function copyToFile(db: DuckDBConnection, compiled: CompiledQuery, variant: CopyVariant): Promise<CopyRun> {
  const file = path.join(COPY_DIR, `adreport-export-load-${process.pid}.${variant.extension}`);
  const sql = variant.rewrite ? variant.rewrite(compiled.sql) : compiled.sql;
  const statement = await db.prepare(`COPY (${sql}) TO '${file}' (${variant.options})`);
  try {
    statement.bind(toDuckDBValues(compiled.params), toDuckDBTypes(compiled.params));
    const started = performance.now();
    const reader = await statement.runAndReadAll();
    const seconds = (performance.now() - started) / 1000;
    return { seconds, bytes: statSync(file).size, rows: Number(reader.getRows()[0]![0]) };
  } finally {
    statement.destroySync();
    rmSync(file, { force: true });
  }
}

/** Opens the database read-only in this process (the server is stopped: it locks the file) and runs every COPY variant RUNS times after one warm-up. */
async function measureCopies(
  dbPath: string,
  request: ExportRequest,
  now: Date,
): Promise<{ threads: string; version: string; runs: Map<CopyVariant, CopyRun[]> }> {
  const instance = await DuckDBInstance.create(dbPath, {
    access_mode: 'READ_ONLY',
    ...(THREADS ? { threads: String(THREADS) } : {}),
  });
  const db = await instance.connect();
  try {
    // As the server sets it (database.ts), in case any output depends on it.
    await db.run("SET TimeZone = 'UTC'");
    const [threads, version] = (await db.runAndReadAll("SELECT current_setting('threads')::VARCHAR, version()"))
      .getRows()[0]!
      .map(String) as [string, string];
    const runs = new Map<CopyVariant, CopyRun[]>();
    for (const variant of [...Object.values(REFERENCES), SERVICE_NDJSON_TO_FILE]) {
      const compiled = compiledFor(request, variant.sqlOf, now);
      await copyToFile(db, compiled, variant); // warm-up, like the service's count
      const list: CopyRun[] = [];
      for (let i = 0; i < RUNS; i++) {
        const run = await copyToFile(db, compiled, variant);
        list.push(run);
        console.error(
          `${variant.label} run ${i + 1}/${RUNS}: ${rate(run.rows / run.seconds)} rows/s, ${mb(run.bytes)} MB in ${run.seconds.toFixed(2)} s`,
        );
      }
      runs.set(variant, list);
    }
    return { threads, version, runs };
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

// ---------------------------------------------------------------- the report

const rate = (rowsPerSecond: number) => `${(rowsPerSecond / 1e6).toFixed(2)} M`;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const ms = (value: number) => value.toFixed(1);
const met = (ok: boolean) => (ok ? 'met' : '**NOT met**');

/** Columns of numbers are right-aligned. */
function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const align = header.map((_, i) => (rows.every((row) => /^[\d.]/.test(row[i] ?? '')) ? '---:' : '---'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

interface Summary {
  format: ExportFormat;
  ratio: number;
  throughputMet: boolean;
  p99Ratio: number;
  p99Met: boolean;
}

const rowsPerSecond = (r: { rows: number; seconds: number }) => r.rows / r.seconds;

function summarize(
  service: Record<ExportFormat, ServiceResult>,
  copies: Map<CopyVariant, CopyRun[]>,
): { tables: string; summaries: Summary[] } {
  const summaries: Summary[] = [];
  const throughput: string[][] = [];
  const server: string[][] = [];
  for (const format of FORMATS) {
    const { runs, idle, idleRssMb, expectedRows } = service[format];
    const reference = REFERENCES[format];
    const copyRuns = copies.get(reference)!;
    const serviceRate = median(runs.map((r) => rowsPerSecond(r.alone)));
    const copyRate = median(copyRuns.map(rowsPerSecond));
    const ratio = serviceRate / copyRate;
    const duringP99 = median(runs.map((r) => r.beside.small.p99));
    const p99Ratio = duringP99 / idle.p99;
    const summary = {
      format,
      ratio,
      throughputMet: ratio >= THROUGHPUT_GOAL[format],
      p99Ratio,
      p99Met: p99Ratio <= P99_GOAL,
    };
    summaries.push(summary);
    throughput.push([
      format,
      String(expectedRows),
      rate(serviceRate),
      rate(median(runs.map((r) => rowsPerSecond(r.beside)))),
      mb(median(runs.map((r) => r.alone.bytes))),
      reference.label,
      rate(copyRate),
      mb(median(copyRuns.map((r) => r.bytes))),
      ratio.toFixed(2),
      `>= ${THROUGHPUT_GOAL[format]}: ${met(summary.throughputMet)}`,
    ]);
    server.push([
      format,
      idleRssMb.toFixed(0),
      median(runs.map((r) => Math.max(r.alone.peakRssMb, r.beside.peakRssMb))).toFixed(0),
      `${ms(idle.p50)} / ${ms(idle.p99)}`,
      `${ms(median(runs.map((r) => r.beside.small.p50)))} / ${ms(duringP99)}`,
      p99Ratio.toFixed(2),
      `<= ${P99_GOAL}: ${met(summary.p99Met)}`,
      `${idle.count} / ${median(runs.map((r) => r.beside.small.count))}`,
      `${idle.errors} / ${runs.reduce((n, r) => n + r.beside.small.errors, 0)}`,
    ]);
  }
  const ndjsonToFile = median(copies.get(SERVICE_NDJSON_TO_FILE)!.map(rowsPerSecond));
  const serviceNdjson = median(service.ndjson.runs.map((r) => rowsPerSecond(r.alone)));
  // eslint-disable-next-line no-control-regex -- shows the option string's \x01 and \x02 delimiters as escapes
  const shownOptions = SERVICE_NDJSON_OPTIONS.replace(/[\x01\x02]/g, (c) => `\\x0${c.charCodeAt(0)}`);
  const serviceRows = FORMATS.flatMap((format) =>
    service[format].runs.map(({ alone, beside }, i) => [
      format,
      String(i + 1),
      alone.seconds.toFixed(2),
      alone.firstByteSeconds.toFixed(2),
      rate(rowsPerSecond(alone)),
      alone.peakRssMb.toFixed(0),
      beside.seconds.toFixed(2),
      rate(rowsPerSecond(beside)),
      beside.peakRssMb.toFixed(0),
      ms(beside.small.p50),
      ms(beside.small.p99),
      String(beside.small.count),
      String(beside.small.errors),
    ]),
  );
  const copyRows = [...copies].flatMap(([variant, runs]) =>
    runs.map((r, i) => [variant.label, String(i + 1), r.seconds.toFixed(2), rate(rowsPerSecond(r)), mb(r.bytes)]),
  );
  const tables = [
    '## Throughput (medians)',
    '',
    'Service: the export alone (and, for information, while the small requests run beside it). COPY: DuckDB in-process, same SQL and parameters, to a file.',
    '',
    markdownTable(
      [
        'format',
        'rows',
        'service rows/s',
        'service rows/s, small requests beside',
        'MB',
        'reference',
        'COPY to file rows/s',
        'file MB',
        'service / COPY',
        'goal',
      ],
      throughput,
    ),
    '',
    `For reference, ${SERVICE_NDJSON_TO_FILE.label} (${shownOptions}) to a file: ${rate(ndjsonToFile)} rows/s; the service's NDJSON reaches ${(serviceNdjson / ndjsonToFile).toFixed(2)} of it.`,
    '',
    `## Server memory and small requests (medians; small requests: GET /reporting/v0/campaigns, 30 days, ${PROBE_CONNECTIONS} connections in a closed loop)`,
    '',
    markdownTable(
      [
        'format',
        'idle RSS MB',
        'peak RSS MB',
        'small p50 / p99 ms, idle',
        'small p50 / p99 ms, beside the export',
        'p99 beside / idle',
        'goal',
        'small requests idle / beside (median)',
        'failed idle / beside (all runs)',
      ],
      server,
    ),
    '',
    '## Every service run',
    '',
    markdownTable(
      [
        'format',
        'run',
        'alone s',
        'alone first byte s',
        'alone rows/s',
        'alone peak RSS MB',
        'beside s',
        'beside rows/s',
        'beside peak RSS MB',
        'small p50 ms',
        'small p99 ms',
        'small requests',
        'failed',
      ],
      serviceRows,
    ),
    '',
    '## Every COPY run (DuckDB in-process, the server stopped)',
    '',
    markdownTable(['COPY', 'run', 's', 'rows/s', 'MB'], copyRows),
  ].join('\n');
  return { tables, summaries };
}

async function main(): Promise<number> {
  if (THREADS !== undefined) process.env.ADREPORT_DB_THREADS = String(THREADS); // startServer passes process.env on
  const generated = generatedDatabase(SCALE);
  const dir = generated.dir;
  const request = exportRequest(generated);
  const org = request.org;
  const probePath = smallRequestPath(generated.lastDay);
  const now = new Date();
  // Anything else running on the machine skews every number here: the report says how much CPU others took.
  const loadBefore = os.loadavg();
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  console.error(
    `export: GET /reporting/v0/${request.endpoint}?${request.query}&format=<csv|ndjson|parquet> as organization ${org.id}`,
  );

  // A scratch in-memory DuckDB reads the Parquet downloads back.
  const scratchInstance = await DuckDBInstance.create(':memory:');
  const scratch = await scratchInstance.connect();
  const service = {} as Record<ExportFormat, ServiceResult>;
  try {
    for (const format of FORMATS) service[format] = await measureService(dir, request, format, probePath, scratch);
  } finally {
    scratch.closeSync();
    scratchInstance.closeSync();
  }
  const copies = await measureCopies(path.join(dir, 'adreport.duckdb'), request, now);
  const rows = service.csv.expectedRows;
  for (const [variant, runs] of copies.runs) {
    if (runs.some((r) => r.rows !== rows))
      throw new Error(`${variant.label} copied ${runs.map((r) => r.rows).join(', ')} rows, the service ${rows}`);
  }

  const { tables, summaries } = summarize(service, copies.runs);
  const cpus = os.cpus();
  const cpuAfter = cpuSeconds();
  const others = cpuAfter.machine - cpuBefore.machine - (cpuAfter.ours - cpuBefore.ours);
  const available = ((performance.now() - started) / 1000) * cpus.length;
  const command = `node --import tsx bench/export-load.ts${argv.length > 0 ? ` ${argv.join(' ')}` : ''}`;
  const facts = [
    `date: ${new Date().toISOString()}`,
    `machine: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.platform()} ${os.release()}, node ${process.version}, DuckDB ${copies.version}`,
    `command: \`npm run build && ${command}\``,
    `database: scale ${SCALE}, ${generated.factRows} fact rows, ${generated.organizations.length} organizations, ending ${generated.lastDay}`,
    `export: \`GET /reporting/v0/${request.endpoint}?${request.query}&format=csv|ndjson|parquet\` as organization ${org.id}: ${rows} rows`,
    `DuckDB threads: ${THREADS === undefined ? `default (all cores) in the server and in-process; in-process current_setting('threads') = ${copies.threads}` : `${THREADS} in both`}; memory limit: DuckDB's default in both`,
    `${RUNS} run(s) per measurement, medians; a fresh server per format, warmed by a JSON count of the same report; each run exports once alone, then once with the small requests beside it; COPY runs after one warm-up COPY each`,
    `COPY files written to ${COPY_DIR}${COPY_DIR === '/dev/shm' ? ' (tmpfs, in memory)' : ''} and removed after each run`,
    `service rows/s: from the request to the last byte, one HTTPS connection, no compression; CSV/NDJSON rows counted by newline, Parquet rows read back from the downloaded file`,
    `RSS: VmRSS of the server process every 100 ms; idle = after the warm-up, before the exports`,
    `other processes on the machine used ${others.toFixed(0)} of the ${available.toFixed(0)} CPU seconds the run lasted (${((100 * others) / available).toFixed(0)}%): anything much above 0 skews every number here`,
    `load average (1, 5, 15 min) at the start: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}; at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
    `small requests (\`GET ${probePath}\`, ${PROBE_CONNECTIONS} keep-alive connections, each sending the next request when the last is answered) run in a worker thread of the benchmark process; idle = ${IDLE_MS / 1000} s with no export; the benchmark, the server and DuckDB share the ${cpus.length} cores`,
  ];
  const md = [`# export-load`, '', ...facts.map((f) => `- ${f}`), '', tables, ''].join('\n');
  console.log(md);
  const outDir = path.join(root, 'bench', 'out');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'export-load.md'), md);

  const missed = summaries.flatMap((s) => [
    ...(s.throughputMet ? [] : [`${s.format} throughput ${s.ratio.toFixed(2)}`]),
    ...(s.p99Met ? [] : [`${s.format} p99 ${s.p99Ratio.toFixed(2)}x`]),
  ]);
  console.error(missed.length === 0 ? 'all goals met' : `goals not met: ${missed.join(', ')}`);
  const errors = FORMATS.flatMap((f) => [service[f].idle, ...service[f].runs.map((r) => r.beside.small)]).reduce(
    (n, l) => n + l.errors,
    0,
  );
  if (errors > 0) console.error(`FAIL: ${errors} small requests failed`);
  return errors > 0 ? 1 : 0;
}

process.exitCode = await main();
