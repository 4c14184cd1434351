/**
 * `npm run bench -- --engine clickhouse` (issue 22): the report engines side by side on the same
 * generated database: each request of the mix one at a time and the mix at 16 connections, on
 * DuckDB and on ClickHouse (embedded chdb under <db dir>/clickhouse, started empty so that the
 * full copy is measured), the replication's throughput (rows/s) and its lag after a sync (the
 * trailing 30 days marked written, as a statistics sync of every platform account does, then the
 * time until the organization's reports are back on ClickHouse).
 */
import fs from 'node:fs';
import path from 'node:path';
import type autocannon from 'autocannon';
import type { RunningService } from '../src/main.js';
import { embeddedDirectory } from '../src/clickhouse/clickhouse-reports.js';
import { bumpFactPartitionVersions } from '../src/statistics/fact-partition-versions.js';
import { addDays } from '../src/shared/dates.js';
import type { Generated } from './generated.js';
import { clientToken, type LoadRun } from './lib.js';

export interface EngineRuns {
  engine: 'duckdb' | 'clickhouse';
  single: Array<{ name: string; run: LoadRun }>;
  mix16: LoadRun;
}

export interface EnginesResult {
  scale: number;
  factRows: number;
  engines: EngineRuns[];
  /** The first copy of everything (facts, rollups, dimensions, FX) into an empty replica. */
  replication: { rows: number; partitions: number; seconds: number; rowsPerSecond: number };
  /** After a 30-day sync of every platform account: partitions copied and seconds until ClickHouse answers again. */
  lag: { partitions: number; rows: number; seconds: number };
}

type Mix = ReadonlyArray<{ name: string; urlPath: string }>;
type Measure = (label: string, options: autocannon.Options) => Promise<LoadRun>;
type Start = (env: NodeJS.ProcessEnv) => Promise<RunningService>;

export async function benchEngines(
  generated: Generated,
  mix: Mix,
  start: Start,
  measure: Measure,
): Promise<EnginesResult> {
  const org = generated.organizations[0]!;
  const engines: EngineRuns[] = [];
  let replication: EnginesResult['replication'] | undefined;
  let lag: EnginesResult['lag'] | undefined;
  for (const engine of ['duckdb', 'clickhouse'] as const) {
    if (engine === 'clickhouse') fs.rmSync(embeddedDirectory(generated.dbPath), { recursive: true, force: true });
    const started = performance.now();
    const service = await start({
      ...process.env,
      ADREPORT_CACHE_MB: '0',
      ADREPORT_DB_TIME_MS_PER_SECOND: '0',
      ADREPORT_REPORT_ENGINE: engine,
    });
    try {
      if (service.clickhouse) {
        const replicator = service.clickhouse.replicator;
        await replicator.idle();
        const seconds = (performance.now() - started) / 1000;
        replication = {
          rows: replicator.copied.rows,
          partitions: replicator.copied.partitions,
          seconds,
          rowsPerSecond: replicator.copied.rows / seconds,
        };
        console.error(`replication: ${replication.rows} rows in ${seconds.toFixed(1)} s`);
      }
      const base = `https://127.0.0.1:${service.port}`;
      const token = await clientToken(base, service.tls!.cert, org);
      const headers = { authorization: `Bearer ${token}` };
      const probe = await fetchEngine(service, `${base}${mix[0]!.urlPath}`, headers);
      if (probe !== engine) throw new Error(`reports answered by ${probe}, not ${engine}`);
      const single = [];
      for (const m of mix)
        single.push({
          name: m.name,
          run: await measure(`${engine} ${m.name} x1`, { url: `${base}${m.urlPath}`, headers, connections: 1 }),
        });
      const requests = mix.map((m) => ({ method: 'GET' as const, path: m.urlPath, headers }));
      const mix16 = await measure(`${engine} mix x16`, { url: base, requests, connections: 16 });
      engines.push({ engine, single, mix16 });
      if (service.clickhouse) {
        const replicator = service.clickhouse.replicator;
        const before = { ...replicator.copied };
        const synced = performance.now();
        await service.db.write({ organizationId: org.id }, (tx) =>
          bumpFactPartitionVersions(tx, {
            organizationId: org.id,
            from: addDays(generated.lastDay, -29),
            to: generated.lastDay,
          }),
        );
        await replicator.idle();
        lag = {
          partitions: replicator.copied.partitions - before.partitions,
          rows: replicator.copied.rows - before.rows,
          seconds: (performance.now() - synced) / 1000,
        };
        console.error(`lag after a 30-day sync: ${lag.seconds.toFixed(2)} s (${lag.partitions} partitions)`);
      }
    } finally {
      await service.close();
    }
  }
  return { scale: generated.scale, factRows: generated.factRows, engines, replication: replication!, lag: lag! };
}

async function fetchEngine(service: RunningService, url: string, headers: Record<string, string>): Promise<string> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers, ca: service.tls!.cert }, (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.headers['x-report-engine'])));
      })
      .on('error', reject);
  });
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);

export function enginesSection(results: readonly EnginesResult[]): string[] {
  const lines = [
    ENGINES_BEGIN,
    '## Report engines: DuckDB and ClickHouse (embedded chdb 26.7) side by side',
    '',
    '`npm run bench -- --engine clickhouse --engines-only --scale 10,100`: the same database, the same requests,',
    'page cache off; ClickHouse is chdb in the service process (no server: its per-query overhead, not a network).',
    '',
  ];
  for (const r of results) {
    const [duck, click] = [
      r.engines.find((e) => e.engine === 'duckdb')!,
      r.engines.find((e) => e.engine === 'clickhouse')!,
    ];
    lines.push(
      `### Scale ${r.scale} (${r.factRows.toLocaleString('en-US')} fact rows)`,
      '',
      '| request | DuckDB p50 ms | ClickHouse p50 ms | DuckDB req/s | ClickHouse req/s | ClickHouse / DuckDB time |',
      '|---|---|---|---|---|---|',
      ...duck.single.map((d, i) => {
        const c = click.single[i]!.run;
        return `| ${d.name} x1 | ${ms(d.run.p50)} | ${ms(c.p50)} | ${Math.round(d.run.rps)} | ${Math.round(c.rps)} | ${(c.p50 / d.run.p50).toFixed(2)} |`;
      }),
      `| mix x16 | ${ms(duck.mix16.p50)} | ${ms(click.mix16.p50)} | ${Math.round(duck.mix16.rps)} | ${Math.round(click.mix16.rps)} | ${(duck.mix16.rps / click.mix16.rps).toFixed(2)} (throughput) |`,
      '',
      `Replication, empty replica: ${r.replication.rows.toLocaleString('en-US')} rows in ${r.replication.partitions} partitions, ` +
        `${r.replication.seconds.toFixed(1)} s = **${Math.round(r.replication.rowsPerSecond).toLocaleString('en-US')} rows/s**. ` +
        `Lag after a 30-day sync of the first organization: **${r.lag.seconds.toFixed(2)} s** (${r.lag.partitions} partitions, ${r.lag.rows.toLocaleString('en-US')} rows).`,
      '',
    );
  }
  lines.push(ENGINES_END);
  return lines;
}

export const ENGINES_BEGIN = '<!-- engines: written by `npm run bench -- --engine clickhouse` -->';
export const ENGINES_END = '<!-- /engines -->';

/** RESULTS.md with its engines section replaced (or added at the end). */
export function withEnginesSection(file: string, section: readonly string[]): string {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const begin = text.indexOf(ENGINES_BEGIN);
  const end = text.indexOf(ENGINES_END);
  const body = section.join('\n');
  if (begin >= 0 && end > begin) return `${text.slice(0, begin)}${body}${text.slice(end + ENGINES_END.length)}`;
  return `${text.trimEnd()}\n\n${body}\n`;
}

export const resultsFile = (root: string) => path.join(root, 'bench', 'RESULTS.md');
