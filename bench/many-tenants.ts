/**
 * `node --import tsx bench/many-tenants.ts [--seconds N] [--reuse]` (issue 39 item 2): many
 * tenants, as production fills the table. 1,000 organizations of a long tail of sizes, ~10 M
 * fact rows, laid out as the scheduled syncs append them (bench/many-tenants-world.ts).
 *
 * For a small organization (the median of the 900 tiny ones) and the large one, each report of
 * the bench mix (bench/peer/report-queries.ts) one request at a time:
 * - through the service over HTTPS (started in this process, page cache and database-time budget
 *   off, as bench/run.ts measures reports), p50 ms;
 * - the engine floor: the same compiled SQL on the service's DuckDB connections, p50 ms;
 * - PostgreSQL with the peer's covering indexes on the same rows (pgbench, one client), its
 *   answers checked row by row against the service's first;
 * - the rows DuckDB scanned (profiling's cumulative_rows_scanned, and the fact or rollup table's
 *   own scan) against the rows the organization has in the range.
 *
 * On three files of the same rows: as generated (organization after organization), as synced
 * (production's order), and synced then clustered by clusterFactDays (bench/many-tenants-world.ts: the
 * candidate layout fix). Each layout's answers are checked equal to the generated file's. N seconds per
 * measurement (default 3). Writes bench/RESULTS.many-tenants.md and
 * bench/out/many-tenants/results.json.
 */
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { configFromEnv, mergeConfig, serviceConfigSchema } from '../src/config/config.js';
import { startService } from '../src/main.js';
import { buildPlan } from '../src/planner/build-plan.js';
import { parseReportQuery, reportRequest } from '../src/reporting/report-request.js';
import { addDays } from '../src/shared/dates.js';
import { compileReport } from '../src/sql/compile-report.js';
import { toDuckDBTypes, toDuckDBValues, type SqlValue } from '../src/store/sql-values.js';
import { clientToken, closeTimedGets, median, root, timedGet } from './lib.js';
import {
  checksum,
  clusterFactDays,
  manyTenantsWorld,
  SYNCED_TABLES,
  TRAILING_DAYS,
  WORLD_DIR,
  type World,
  type WorldOrganization,
} from './many-tenants-world.js';
import { loadFacts, pgbench, startPostgres, type PostgresPeer } from './peer/postgres.js';
import {
  MIX,
  MIX_NAMES,
  mixParams,
  PEER_QUERIES,
  serviceRequest,
  serviceUrlPath,
  type MixName,
} from './peer/report-queries.js';

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const SECONDS = Number(flag('--seconds') ?? 3);
const REUSE = process.argv.includes('--reuse');
const log = (line: string) => console.error(line);

type Layout = 'generated' | 'synced' | 'clustered';
const LAYOUTS: readonly Layout[] = ['generated', 'synced', 'clustered'];
type Size = 'small' | 'large';
const SIZES: readonly Size[] = ['small', 'large'];

/** What DuckDB read for one report: every scan, and the scan of the table holding the facts (or rollup) it sums. */
interface Scanned {
  total: number;
  factTable: string;
  factScanned: number;
  /** Rows of that table the organization has in the report's range. */
  orgRows: number;
}
interface Measured {
  serviceP50: number;
  floorP50: number;
  scanned: Scanned;
  /** sha-1 of the floor's JSON page: equal on every layout. */
  answer: string;
}
type LayoutResult = Record<Size, Record<MixName, Measured>>;
/** p50 ms of the organization's last 30 days of a fact table summed alone (no joins), per table. */
type ScanAlone = Record<Size, Record<'fact_ad_daily' | 'fact_keyword_daily', number>>;

// ---------------------------------------------------------------------------------------------
// The reports

interface Report {
  name: MixName;
  urlPath: string;
  sql: string;
  params: readonly SqlValue[];
}

/** The mix of one organization, with the SQL the service compiles for it (as bench/run.ts's floor). */
function reportsOf(organizationId: number, lastDay: string, now: Date): Report[] {
  return MIX_NAMES.map((name) => {
    const urlPath = serviceUrlPath(name, mixParams(name, organizationId, lastDay));
    const found = ENDPOINT_BY_PATH.get(MIX[name].endpoint)!;
    const query = urlPath.slice(urlPath.indexOf('?'));
    const request = reportRequest(parseReportQuery(query, found), found.level, organizationId, 'json');
    const { sql, params } = compileReport(buildPlan(found, request, now)).jsonPage();
    return { name, urlPath, sql, params };
  });
}

// ---------------------------------------------------------------------------------------------
// Rows scanned (DuckDB's profiler), on the file before the service opens it

interface ProfileNode {
  operator_type?: string;
  operator_rows_scanned?: number;
  extra_info?: { Table?: string };
  cumulative_rows_scanned?: number;
  children?: ProfileNode[];
}

async function runPrepared(
  connection: DuckDBConnection,
  sql: string,
  params: readonly SqlValue[],
): Promise<unknown[][]> {
  const statement = await connection.prepare(sql);
  try {
    statement.bind(toDuckDBValues(params), toDuckDBTypes(params));
    return (await statement.runAndReadAll()).getRows();
  } finally {
    statement.destroySync();
  }
}

/** The table whose rows a report sums: the rollup for campaigns (the planner's choice, read from the plan), else the facts. */
function scannedOf(profile: ProfileNode): Array<{ table: string; rows: number }> {
  const scans: Array<{ table: string; rows: number }> = [];
  const walk = (node: ProfileNode) => {
    if (node.operator_type === 'TABLE_SCAN')
      scans.push({ table: (node.extra_info?.Table ?? '').split('.').at(-1)!, rows: node.operator_rows_scanned ?? 0 });
    for (const child of node.children ?? []) walk(child);
  };
  walk(profile);
  return scans;
}

const FACT_TABLES = ['fact_ad_daily', 'fact_keyword_daily', 'rollup_campaign_daily', 'rollup_platform_account_daily'];

async function profileLayout(
  file: string,
  orgs: Record<Size, WorldOrganization>,
  lastDay: string,
  now: Date,
): Promise<{ reports: Record<Size, Record<MixName, { scanned: Scanned; answer: string }>>; scanAlone: ScanAlone }> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  const output = path.join(os.tmpdir(), `many-tenants-profile-${process.pid}.json`);
  const { createHash } = await import('node:crypto');
  try {
    const out = {} as Record<Size, Record<MixName, { scanned: Scanned; answer: string }>>;
    for (const size of SIZES) {
      out[size] = {} as Record<MixName, { scanned: Scanned; answer: string }>;
      for (const report of reportsOf(orgs[size].id, lastDay, now)) {
        await connection.run(`PRAGMA enable_profiling='json'`);
        await connection.run(`PRAGMA profiling_output='${output}'`);
        const rows = await runPrepared(connection, report.sql, report.params);
        await connection.run('PRAGMA disable_profiling');
        const profile = JSON.parse(readFileSync(output, 'utf8')) as ProfileNode;
        const scans = scannedOf(profile);
        const fact = scans.find((s) => FACT_TABLES.includes(s.table))!;
        const p = mixParams(report.name, orgs[size].id, lastDay);
        const [[orgRows]] = (await connection
          .runAndReadAll(
            `SELECT count(*) FROM ${fact.table} WHERE organization_id = ${p.organizationId} AND day BETWEEN DATE '${p.from}' AND DATE '${p.to}'`,
          )
          .then((r) => r.getRows())) as [[bigint]];
        out[size][report.name] = {
          scanned: {
            total: profile.cumulative_rows_scanned ?? 0,
            factTable: fact.table,
            factScanned: fact.rows,
            orgRows: Number(orgRows),
          },
          answer: createHash('sha1').update(JSON.stringify(rows, replacer)).digest('hex'),
        };
      }
    }
    const scanAlone = {} as ScanAlone;
    for (const size of SIZES) {
      const from = addDays(lastDay, -29);
      const sumOf = (table: string) =>
        `SELECT count(*), sum(clicks), sum("cost") FROM ${table} WHERE organization_id = ${orgs[size].id} AND day BETWEEN DATE '${from}' AND DATE '${lastDay}'`;
      scanAlone[size] = {
        fact_ad_daily: await p50Of(() => timed(connection, sumOf('fact_ad_daily'))),
        fact_keyword_daily: await p50Of(() => timed(connection, sumOf('fact_keyword_daily'))),
      };
    }
    return { reports: out, scanAlone };
  } finally {
    rmSync(output, { force: true });
    connection.closeSync();
    instance.closeSync();
  }
}

async function timed(connection: DuckDBConnection, sql: string): Promise<number> {
  const started = performance.now();
  await connection.runAndReadAll(sql);
  return performance.now() - started;
}

const replacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

// ---------------------------------------------------------------------------------------------
// Service and floor, one request at a time

/** Runs `once` for SECONDS after 3 warm-up calls; p50 ms. */
async function p50Of(once: () => Promise<number>): Promise<number> {
  for (let i = 0; i < 3; i++) await once();
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  while (performance.now() < until) times.push(await once());
  return median(times);
}

async function measureLayout(
  file: string,
  orgs: Record<Size, WorldOrganization>,
  lastDay: string,
  now: Date,
): Promise<Record<Size, Record<MixName, { serviceP50: number; floorP50: number }>>> {
  const config = serviceConfigSchema.parse(
    mergeConfig(configFromEnv({ ...process.env, ADREPORT_CACHE_MB: '0', ADREPORT_DB_TIME_MS_PER_SECOND: '0' }), {
      dbPath: file,
      host: '127.0.0.1',
      port: 0,
      rateLimit: { ratePerSecond: 1e6, burst: 1e6, tokenRatePerSecond: 1e6, tokenBurst: 1e6 },
    }),
  );
  const service = await startService(config, {
    logError: (entry) => console.error('server error:', entry.error),
    log: () => undefined,
  });
  try {
    const base = `https://127.0.0.1:${service.port}`;
    const ca = service.tls!.cert;
    const out = {} as Record<Size, Record<MixName, { serviceP50: number; floorP50: number }>>;
    for (const size of SIZES) {
      const token = await clientToken(base, ca, orgs[size]);
      out[size] = {} as Record<MixName, { serviceP50: number; floorP50: number }>;
      for (const report of reportsOf(orgs[size].id, lastDay, now)) {
        const serviceP50 = await p50Of(async () => {
          const { status, ms } = await timedGet(`${base}${report.urlPath}`, token, ca);
          if (status !== 200) throw new Error(`${report.urlPath}: HTTP ${status}`);
          return ms;
        });
        const floorP50 = await p50Of(async () => {
          const started = performance.now();
          await service.db.read((r) => r.all(report.sql, report.params));
          return performance.now() - started;
        });
        log(`  ${size} ${report.name}: service ${serviceP50.toFixed(1)} ms, floor ${floorP50.toFixed(1)} ms`);
        out[size][report.name] = { serviceP50, floorP50 };
      }
    }
    return out;
  } finally {
    closeTimedGets();
    await service.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The layout fix, on a copy of the synced file

/** clustered.duckdb: synced.duckdb after one pass of clusterFactDays over every day; returns the pass times. */
async function clusteredCopy(world: World): Promise<{ path: string; windowSeconds: number; olderSeconds: number }> {
  const file = path.join(WORLD_DIR, 'clustered.duckdb');
  const meta = `${file}.json`;
  if (REUSE && existsSync(file) && existsSync(meta)) return { path: file, ...JSON.parse(readFileSync(meta, 'utf8')) };
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });
  copyFileSync(world.syncedPath, file);
  const firstDay = addDays(world.lastDay, -(400 - 1));
  const windowFrom = addDays(world.lastDay, -(TRAILING_DAYS - 1));
  const instance = await DuckDBInstance.create(file, { memory_limit: '2GB', temp_directory: `${file}.tmp` });
  const connection = await instance.connect();
  try {
    const before = await Promise.all(SYNCED_TABLES.map((t) => checksum(connection, t.table)));
    // What the service would run after each round of scheduled syncs: the window they replaced.
    let started = performance.now();
    await clusterFactDays(connection, windowFrom, world.lastDay);
    await connection.run('CHECKPOINT');
    const windowSeconds = (performance.now() - started) / 1000;
    // Once, over the older days (an upgrade's backfill), a quarter per transaction.
    started = performance.now();
    for (let from = firstDay; from < windowFrom; from = addDays(from, 92)) {
      const to = [addDays(from, 91), addDays(windowFrom, -1)].sort()[0]!;
      await clusterFactDays(connection, from, to);
    }
    await connection.run('CHECKPOINT');
    const olderSeconds = (performance.now() - started) / 1000;
    const after = await Promise.all(SYNCED_TABLES.map((t) => checksum(connection, t.table)));
    if (after.join() !== before.join()) throw new Error('clustering changed the rows');
    writeFileSync(meta, JSON.stringify({ windowSeconds, olderSeconds }));
    return { path: file, windowSeconds, olderSeconds };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** Service rows (its page SQL on DuckDB) against the peer's, as verifyPeerQueries compares them; rows per report. */
async function verifyPeer(
  peer: PostgresPeer,
  file: string,
  organizationId: number,
  lastDay: string,
): Promise<Record<MixName, number>> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const counts = {} as Record<MixName, number>;
    for (const name of MIX_NAMES) {
      const p = mixParams(name, organizationId, lastDay);
      const { sql, params } = compileReport(
        buildPlan(ENDPOINT_BY_PATH.get(MIX[name].endpoint)!, serviceRequest(name, p), new Date()),
      ).page();
      const statement = await connection.prepare(sql);
      statement.bind(toDuckDBValues(params), toDuckDBTypes(params));
      const expected = (await statement.runAndReadAll()).getRowObjectsJS() as Array<Record<string, unknown>>;
      statement.destroySync();
      const actual = await peer.query(PEER_QUERIES[name](p));
      if (expected.length !== actual.length)
        throw new Error(`${name} of ${organizationId}: service ${expected.length} rows, PostgreSQL ${actual.length}`);
      expected.forEach((want, i) => {
        for (const [column, value] of Object.entries(want)) {
          const got = actual[i]![column];
          const same =
            value === null || got === null || got === undefined
              ? value === got
              : typeof value === 'bigint'
                ? BigInt(got) === value
                : typeof value === 'number'
                  ? Math.abs(value - Number(got)) <= 1e-9 * Math.max(Math.abs(value), Math.abs(Number(got)))
                  : String(value) === got;
          if (!same)
            throw new Error(`${name} of ${organizationId}, row ${i + 1}, ${column}: ${String(value)} vs ${got}`);
        }
      });
      counts[name] = expected.length;
    }
    return counts;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function measurePeer(
  world: World,
  orgs: Record<Size, WorldOrganization>,
): Promise<{
  version: string;
  loadSeconds: number;
  rows: Record<Size, Record<MixName, number>>;
  p50: Record<Size, Record<MixName, number>>;
}> {
  const peer = await startPostgres({ dir: `${WORLD_DIR}-postgres`, log });
  try {
    const loaded = await loadFacts(peer, world.syncedPath, log);
    const rows = {} as Record<Size, Record<MixName, number>>;
    const p50 = {} as Record<Size, Record<MixName, number>>;
    for (const size of SIZES) {
      rows[size] = await verifyPeer(peer, world.syncedPath, orgs[size].id, world.lastDay);
      p50[size] = {} as Record<MixName, number>;
      for (const name of MIX_NAMES) {
        const result = await pgbench(
          peer,
          PEER_QUERIES[name](mixParams(name, orgs[size].id, world.lastDay)),
          1,
          SECONDS,
        );
        p50[size][name] = result.p50Ms;
        log(`  postgres ${size} ${name}: ${result.p50Ms.toFixed(1)} ms`);
      }
    }
    return { version: peer.version, loadSeconds: loaded.seconds, rows, p50 };
  } finally {
    await peer.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Main

function stealPercent<T>(work: () => Promise<T>): Promise<{ value: T; steal: number }> {
  const read = () => readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const before = read();
  return work().then((value) => {
    const after = read();
    const delta = after.map((v, i) => v - before[i]!);
    const total = delta.reduce((a, b) => a + b, 0);
    return { value, steal: total > 0 ? (100 * delta[7]!) / total : 0 };
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  const world = await manyTenantsWorld(REUSE, log);
  const orgs: Record<Size, WorldOrganization> = { small: world.small, large: world.large };
  const now = new Date(Date.parse(`${world.lastDay}T12:00:00Z`) + 86_400_000);
  log(`world: ${world.organizations} organizations, ${world.factRows.ad} ad + ${world.factRows.keyword} keyword rows`);
  const clustered = await clusteredCopy(world);
  log(`clustered: window ${clustered.windowSeconds.toFixed(1)} s, older days ${clustered.olderSeconds.toFixed(1)} s`);
  const files: Record<Layout, string> = {
    generated: world.generatedPath,
    synced: world.syncedPath,
    clustered: clustered.path,
  };

  const results = {} as Record<Layout, LayoutResult>;
  const scans = {} as Record<Layout, ScanAlone>;
  const { value: steal } = await stealPercent(async () => {
    const steals: Record<string, number> = {};
    for (const layout of LAYOUTS) {
      log(`${layout}: profiling ...`);
      const { reports: profiled, scanAlone } = await profileLayout(files[layout], orgs, world.lastDay, now);
      scans[layout] = scanAlone;
      log(`${layout}: measuring (${SECONDS} s each) ...`);
      const { value: timed, steal: s } = await stealPercent(() =>
        measureLayout(files[layout], orgs, world.lastDay, now),
      );
      steals[layout] = s;
      results[layout] = {} as LayoutResult;
      for (const size of SIZES) {
        results[layout][size] = {} as Record<MixName, Measured>;
        for (const name of MIX_NAMES) results[layout][size][name] = { ...timed[size][name], ...profiled[size][name] };
      }
    }
    return steals;
  });
  for (const layout of LAYOUTS)
    for (const size of SIZES)
      for (const name of MIX_NAMES)
        if (results[layout][size][name].answer !== results.generated[size][name].answer)
          throw new Error(`${layout} ${size} ${name}: the answer differs from the generated file's`);

  log('PostgreSQL ...');
  const peer = await measurePeer(world, orgs);
  const raw = { date: new Date().toISOString(), seconds: SECONDS, world, clustered, steal, results, scans, peer };
  writeFileSync(path.join(WORLD_DIR, 'results.json'), JSON.stringify(raw, null, 2));
  // A hand-written `## Findings` section of the previous file is kept (below the new figures): re-read it against them.
  const resultsPath = path.join(root, 'bench', 'RESULTS.many-tenants.md');
  const previous = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '';
  const findings = previous.includes('\n## Findings') ? previous.slice(previous.indexOf('\n## Findings') + 1) : '';
  writeFileSync(resultsPath, `${resultsMarkdown(raw)}${findings ? `\n${findings}` : ''}`);
  log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s: bench/RESULTS.many-tenants.md`);
}

// ---------------------------------------------------------------------------------------------
// RESULTS.many-tenants.md

const f1 = (x: number) => x.toFixed(1);
const n = (x: number) => x.toLocaleString('en-US');

function resultsMarkdown(raw: {
  date: string;
  world: World;
  clustered: { windowSeconds: number; olderSeconds: number };
  steal: Record<string, number>;
  results: Record<Layout, LayoutResult>;
  scans: Record<Layout, ScanAlone>;
  peer: Awaited<ReturnType<typeof measurePeer>>;
}): string {
  const { world, results, peer } = raw;
  const cpus = os.cpus();
  const lines: string[] = [
    '# Many tenants, as production fills the table (issue 39 item 2)',
    '',
    `- date: ${raw.date}`,
    `- machine: ${cpus[0]?.model ?? 'unknown'} (${cpus.length} cores, shared with other work), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, node ${process.version}, ${peer.version}`,
    `- command: \`node --import tsx bench/many-tenants.ts --seconds ${SECONDS}${REUSE ? ' --reuse' : ''}\` (${SECONDS} s per measurement after 3 warm-up requests, p50 of one request at a time)`,
    `- hypervisor steal during the DuckDB measurements: ${LAYOUTS.map((l) => `${l} ${f1(raw.steal[l] ?? 0)}%`).join(', ')}`,
    '',
    '## The world',
    '',
    `${n(world.organizations)} organizations, ${n(world.factRows.ad)} fact_ad_daily + ${n(world.factRows.keyword)} fact_keyword_daily rows (${n(world.factRows.ad + world.factRows.keyword)}, about scale 10), 400 days to ${world.lastDay}. Fact rows per organization: smallest ${n(world.sizes.min)}, median ${n(world.sizes.median)}, largest ${n(world.sizes.max)}.`,
    '',
    "Made by bench/many-tenants-world.ts (its header has the details): the generator (src/generator, what `adreport data generate` runs) called four times on one file with the same last day, one tier each: 1 organization of 4 accounts (~2.5 M fact rows), 9 of 3 accounts (~3 M together), 90 of 1 account (~2.5 M), 900 of 1 account (~2 M). Sizes also spread inside a tier (the generator's lognormal account volumes, 1-3 platform accounts, 3-40 campaigns each). Generating took " +
      `${f1(world.seconds.generate)} s (most of it the 900 tiny organizations: a low volume factor over many trees). That file, **generated**, is organization-ordered.`,
    '',
    `**synced** has the same rows (checked: count and hash of every row per table) in the order the service's scheduled sync leaves them: every 6 h one SYNC_STATISTICS job per platform account replaces its trailing ${TRAILING_DAYS} days (DELETE, then INSERT ordered by day, rollups likewise). A row of day d survives from the last round whose window holds d (day min(d + ${TRAILING_DAYS - 1}, last day)): each round before the last leaves one day of every platform account, the last round each account's ${TRAILING_DAYS} days as one block; accounts come in job order (queue order by id, which in production does not follow organizations: a fixed pseudo-random order). Fact tables fact_ad_daily, fact_keyword_daily, fact_impression_share_daily, fact_audience_runs and both rollups; compacted (a live file would also carry deleted rows until vacuumed). Rewriting took ${f1(world.seconds.rewrite)} s.`,
    '',
    `**clustered** is synced after clusterFactDays (bench/many-tenants-world.ts, the candidate layout fix: DELETE and re-INSERT a day range of every synced table ordered by (organization_id, day, ...)): the ${TRAILING_DAYS}-day window in one transaction took ${f1(raw.clustered.windowSeconds)} s (what the service would pay after each round of syncs), the older days once, a quarter per transaction, ${f1(raw.clustered.olderSeconds)} s.`,
    '',
    `The small organization is ${world.small.id} (the median of the 900 tiny ones among those with facts in the last 30 days: ${n(world.small.factRows)} fact rows over 400 days, ${n(world.small.adRows30d)} ad rows in the last 30), the large one ${world.large.id} (${n(world.large.factRows)} fact rows, ${n(world.large.adRows30d)} ad rows in the last 30). Every report's answer (the floor's JSON page) is the same on the three files; PostgreSQL's rows equal the service's row by row (the check of bench/peer/report-queries.ts: ${SIZES.map((s) => `${s} ${MIX_NAMES.map((m) => peer.rows[s][m]).join('/')} rows`).join(', ')}).`,
    '',
  ];
  for (const size of SIZES) {
    lines.push(
      `## ${size === 'small' ? 'Small' : 'Large'} organization (${orgs(world)[size].id}): p50 ms, one request at a time`,
      '',
      '| request | generated: service | floor | synced: service | floor | clustered: service | floor | PostgreSQL | PostgreSQL / service (synced) | PostgreSQL / service (clustered) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const name of MIX_NAMES) {
      const r = (l: Layout) => results[l][size][name];
      const pg = peer.p50[size][name];
      lines.push(
        `| ${name} | ${f1(r('generated').serviceP50)} | ${f1(r('generated').floorP50)} | ${f1(r('synced').serviceP50)} | ${f1(r('synced').floorP50)} | ${f1(r('clustered').serviceP50)} | ${f1(r('clustered').floorP50)} | ${f1(pg)} | ${(pg / r('synced').serviceP50).toFixed(2)} | ${(pg / r('clustered').serviceP50).toFixed(2)} |`,
      );
    }
    const sum = (l: Layout, k: 'serviceP50' | 'floorP50') => MIX_NAMES.reduce((a, m) => a + results[l][size][m][k], 0);
    const pgSum = MIX_NAMES.reduce((a, m) => a + peer.p50[size][m], 0);
    lines.push(
      `| **the mix (sum)** | ${f1(sum('generated', 'serviceP50'))} | ${f1(sum('generated', 'floorP50'))} | ${f1(sum('synced', 'serviceP50'))} | ${f1(sum('synced', 'floorP50'))} | ${f1(sum('clustered', 'serviceP50'))} | ${f1(sum('clustered', 'floorP50'))} | ${f1(pgSum)} | ${(pgSum / sum('synced', 'serviceP50')).toFixed(2)} | ${(pgSum / sum('clustered', 'serviceP50')).toFixed(2)} |`,
      '',
      `Rows DuckDB scanned (the summed table's scan; all scans of the query in parentheses) against the organization's rows of that table in the range:`,
      '',
      '| request | table | org rows in range | generated | synced | clustered |',
      '|---|---|---:|---:|---:|---:|',
    );
    for (const name of MIX_NAMES) {
      const s = (l: Layout) => results[l][size][name].scanned;
      const cell = (l: Layout) => `${n(s(l).factScanned)} (${n(s(l).total)})`;
      lines.push(
        `| ${name} | ${s('synced').factTable} | ${n(s('synced').orgRows)} | ${cell('generated')} | ${cell('synced')} | ${cell('clustered')} |`,
      );
    }
    lines.push(
      '',
      `The organization's last 30 days of a fact table summed alone (count, clicks, cost; no joins), p50 ms on a read-only connection of its own: fact_ad_daily ${LAYOUTS.map((l) => `${l} ${raw.scans[l][size].fact_ad_daily.toFixed(2)}`).join(', ')}; fact_keyword_daily ${LAYOUTS.map((l) => `${l} ${raw.scans[l][size].fact_keyword_daily.toFixed(2)}`).join(', ')}.`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

const orgs = (world: World): Record<Size, WorldOrganization> => ({ small: world.small, large: world.large });

await main();
