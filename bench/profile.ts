/**
 * Where a small report's time goes, per layer (issue 39): `node --import tsx bench/profile.ts
 * [--scale 1] [--count 300] [--write-before] [--root DIR]`, or `npm run bench -- --profile`.
 *
 * The built bin serves the generated database of the scale (bench/generated.ts) with
 * ADREPORT_SERVER_TIMING=true, the page cache and the database-time budget off; this process asks
 * each request of the mix one at a time over HTTPS on one kept-alive connection and reads the
 * answer's Server-Timing (src/runtime/request-timing.ts): wall and CPU per layer. The CPU is the
 * server process's (every thread, DuckDB's included); the client runs here, so none of its work is
 * in it. `http + tls` is what the client waited beyond the server's own total (TLS, the kernel,
 * the socket write of the body, node's HTTP parser). Medians over `count` requests after a
 * warm-up; the server process's CPU per request is also read from /proc around each request, as a check.
 */
import https from 'node:https';
import { fileURLToPath } from 'node:url';
import { generatedDatabase, type Generated } from './generated.js';
import { certificateOf, clientToken, median, startServer, stopServer } from './lib.js';
import { procStat, TICKS_PER_SECOND } from './process-cpu.js';
import { MIX_NAMES, mixParams, serviceUrlPath, type MixName } from './peer/report-queries.js';
import { TIMING_LAYERS } from '../src/runtime/request-timing.js';

/** One layer's medians in one request: wall and CPU ms. */
export interface LayerCost {
  wallMs: number;
  cpuMs: number;
}

export interface RequestProfile {
  name: MixName;
  /** The client's wall ms per request (median). */
  clientMs: number;
  /** The server process's CPU ms per request, from /proc around each request (10 ms ticks, summed). */
  processCpuMs: number;
  /** Per layer (TIMING_LAYERS, then `http + tls`, `other` and `total`): medians. */
  layers: Record<string, LayerCost>;
}

export interface ProfileResult {
  scale: number;
  count: number;
  requests: RequestProfile[];
}

const WARM_UP = 30;

/** `Server-Timing: auth;dur=0.1, auth-cpu;dur=0.08, ...` as ms by name. */
function serverTimings(header: string | undefined): Map<string, number> {
  const timings = new Map<string, number>();
  for (const entry of (header ?? '').split(',')) {
    const [name, ...params] = entry.trim().split(';');
    const dur = params.find((p) => p.startsWith('dur='));
    if (name && dur) timings.set(name, Number(dur.slice(4)));
  }
  return timings;
}

function request(
  url: string,
  token: string,
  ca: string,
  agent: https.Agent,
  { method = 'GET', body }: { method?: string; body?: string } = {},
): Promise<{ ms: number; timings: Map<string, number> }> {
  const started = performance.now();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' };
  if (body !== undefined) headers['content-type'] = 'application/merge-patch+json';
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, ca, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${method} ${url}: ${res.statusCode}`));
        else
          resolve({
            ms: performance.now() - started,
            timings: serverTimings(res.headers['server-timing'] as string | undefined),
          });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const get = (url: string, token: string, ca: string, agent: https.Agent) => request(url, token, ca, agent);

export interface ProfileOptions {
  /**
   * Commit a write before each request (another organization renames itself): what a dashboard
   * meets under steady syncs, where a store that drops its prepared statements at every write
   * prepares each report again.
   */
  readonly writeBefore?: boolean;
  /** The checkout whose built bin serves (default this one): the code before a change. */
  readonly checkout?: string;
}

/** The mix's requests one at a time against a served copy of `generated`, `count` each. */
export async function profileReports(
  generated: Generated,
  count: number,
  options: ProfileOptions = {},
): Promise<ProfileResult> {
  const env = process.env;
  process.env = {
    ...env,
    ADREPORT_SERVER_TIMING: 'true',
    ADREPORT_CACHE_MB: '0',
    ADREPORT_DB_TIME_MS_PER_SECOND: '0',
  };
  const { child, ready } = startServer(generated.dbPath, [], options.checkout);
  process.env = env;
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { port } = await ready;
    const base = `https://127.0.0.1:${port}`;
    const ca = certificateOf(generated.dbPath);
    const org = generated.organizations[0]!;
    const token = await clientToken(base, ca, org);
    const other = generated.organizations[1]!;
    const otherToken = await clientToken(base, ca, other);
    let writes = 0;
    const write = () =>
      request(`${base}/provisioning/v0/organization`, otherToken, ca, agent, {
        method: 'PATCH',
        body: JSON.stringify({ organization: { name: `Renamed ${writes++ % 2}` } }),
      });
    const serverTicks = () => procStat(child.pid!)?.ticks ?? NaN;
    const requests: RequestProfile[] = [];
    for (const name of MIX_NAMES) {
      const url = base + serviceUrlPath(name, mixParams(name, org.id, generated.lastDay));
      for (let i = 0; i < WARM_UP; i++) await get(url, token, ca, agent);
      const samples: Array<{ ms: number; timings: Map<string, number> }> = [];
      let cpuMs = 0;
      for (let i = 0; i < count; i++) {
        if (options.writeBefore) await write();
        // The write's CPU is not the report's: the clock runs around the report alone (10 ms ticks,
        // summed). The server is one process (DuckDB's and libuv's threads are in its stat): one
        // file read, where a scan of /proc would take this client's CPU from the server's cores.
        const before = serverTicks();
        samples.push(await get(url, token, ca, agent));
        cpuMs += ((serverTicks() - before) * 1000) / TICKS_PER_SECOND;
      }
      const layers: Record<string, LayerCost> = {};
      const of = (key: string) => samples.map((s) => s.timings.get(key) ?? 0);
      for (const layer of TIMING_LAYERS) {
        const wall = of(layer);
        if (wall.every((ms) => ms === 0)) continue;
        layers[layer] = { wallMs: median(wall), cpuMs: median(of(`${layer}-cpu`)) };
      }
      const inLayers = (s: (typeof samples)[number], suffix: string) =>
        TIMING_LAYERS.reduce((sum, layer) => sum + (s.timings.get(`${layer}${suffix}`) ?? 0), 0);
      layers.other = {
        wallMs: median(samples.map((s) => (s.timings.get('total') ?? 0) - inLayers(s, ''))),
        cpuMs: median(samples.map((s) => (s.timings.get('total-cpu') ?? 0) - inLayers(s, '-cpu'))),
      };
      layers['http + tls'] = {
        wallMs: median(samples.map((s) => s.ms - (s.timings.get('total') ?? 0))),
        cpuMs: NaN,
      };
      layers.total = { wallMs: median(of('total')), cpuMs: median(of('total-cpu')) };
      requests.push({
        name,
        clientMs: median(samples.map((s) => s.ms)),
        processCpuMs: cpuMs / count,
        layers,
      });
    }
    return { scale: generated.scale, count, requests };
  } finally {
    agent.destroy();
    await stopServer(child);
  }
}

const LAYER_ROWS = [...TIMING_LAYERS, 'other', 'total', 'http + tls'] as const;
const LAYER_NOTES: Readonly<Record<(typeof LAYER_ROWS)[number], string>> = {
  auth: 'bearer token, rate buckets',
  parse: 'query string, zod, planner',
  freshness: 'sync state of the accounts (one statement, cheap lane)',
  compile: 'plan to SQL',
  queue: 'waiting for a report slot',
  prepare: "DuckDB's parse, bind, optimize (0 when the plan is cached)",
  execute: 'DuckDB runs it, rows into JS',
  scope: 'label and currency look-ups',
  render: 'the JSON body from the parts',
  other: 'routing, middleware, ETag, headers',
  total: 'the server, first middleware to handler return',
  'http + tls': 'client wall - server total',
};

/** The profile as a markdown table: a row per layer, wall and CPU ms per request of the mix. */
export function profileSection(result: ProfileResult, title = "Where a report's time goes"): string {
  const cell = (cost: LayerCost | undefined) =>
    cost === undefined ? '-' : `${cost.wallMs.toFixed(2)} / ${Number.isNaN(cost.cpuMs) ? '-' : cost.cpuMs.toFixed(2)}`;
  const lines = [
    `### ${title} (--profile: ${result.count} requests each, one at a time, medians; wall / CPU ms)`,
    '',
    "Server-Timing of each answer (ADREPORT_SERVER_TIMING=true); CPU is the server process's, DuckDB's threads included; \"http + tls\" is what the client waited beyond the server's total.",
    '',
    `| layer | ${result.requests.map((r) => r.name).join(' | ')} | what |`,
    `|---|${result.requests.map(() => '---:').join('|')}|---|`,
  ];
  for (const layer of LAYER_ROWS)
    lines.push(
      `| ${layer} | ${result.requests.map((r) => cell(r.layers[layer])).join(' | ')} | ${LAYER_NOTES[layer]} |`,
    );
  lines.push(
    `| client wall | ${result.requests.map((r) => r.clientMs.toFixed(2)).join(' | ')} | |`,
    `| server CPU per request (/proc) | ${result.requests.map((r) => r.processCpuMs.toFixed(2)).join(' | ')} | |`,
  );
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const scale = Number(flag('--scale') ?? 1);
  const count = Number(flag('--count') ?? 300);
  const writeBefore = process.argv.includes('--write-before');
  const checkout = flag('--root');
  const result = await profileReports(generatedDatabase(scale, undefined, true), count, { writeBefore, checkout });
  const what = writeBefore ? ', a write committed before each request' : '';
  console.log(profileSection(result, `Scale ${scale}${what}${checkout ? `, ${checkout}` : ''}`));
}
