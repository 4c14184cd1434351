/**
 * JSON response compression (issue 19 item 14): which coding and level, and what it costs.
 *
 * 1. Codecs: a 100-row campaign page and a 10,000-row keyword page (as the service answers them)
 *    compressed with gzip levels 1-6 and brotli qualities 1-5 through zlib's asynchronous API:
 *    CPU ms per MB of JSON, and the size ratio.
 * 2. Load: the keyword pull (10,000 rows) and the campaign page at 16 connections over HTTPS
 *    (autocannon in a child process, bench/load-child.ts), asked without Accept-Encoding, with
 *    gzip and with br: requests/s, latency, bytes per answer, and the event loop of the service
 *    (it runs in this process, watched as bench/run.ts does).
 *
 *   npm run build && node -r ./bench/node-threads.cjs --import tsx bench/compression.ts [--quick] [--scale N] [--codecs-only]
 *     [--load-only] [--runs R] [--seconds S] [--encodings none,gzip,br] [--pages campaigns,keywords]
 *
 * Default scale 1 (whose organization has ~1,200 keywords; scale 10 has the 10,000-row keyword
 * page), 3 runs x 5 s per load; --quick: 1 run x 3 s. Writes bench/out/compression.md.
 * Run it on the code before a change too (same session, same machine) to compare.
 */
import { spawn } from 'node:child_process';
import https from 'node:https';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { configFromEnv, mergeConfig, serviceConfigSchema } from '../src/config/config.js';
import { startService } from '../src/main.js';
import { generatedDatabase } from './generated.js';
import { median, post, root } from './lib.js';
import { watchEventLoop, type LoopWatched } from './loop-watch.js';

const quick = process.argv.includes('--quick');
const scaleArg = process.argv.indexOf('--scale');
const SCALE = scaleArg > 0 ? Number(process.argv[scaleArg + 1]) : 1;
const option = (name: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const RUNS = Number(option('--runs') ?? (quick ? 1 : 3));
const SECONDS = Number(option('--seconds') ?? (quick ? 3 : 5));
/** `--encodings none,gzip,br` (the default): which Accept-Encoding values the load runs ask with. */
const ENCODINGS = (option('--encodings') ?? 'none,gzip,br').split(',').map((e) => (e === 'none' ? undefined : e));
/** `--pages campaigns,keywords` (the default): which bodies to measure. */
const PAGES = (option('--pages') ?? 'campaigns,keywords').split(',');
const CODECS_TOO = !process.argv.includes('--load-only');
const CONNECTIONS = 16;
const BIG = 1_000_000;

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

interface Codec {
  readonly name: string;
  readonly run: (body: Buffer) => Promise<Buffer>;
}
const CODECS: Codec[] = [
  ...[1, 2, 3, 4, 5, 6].map((level) => ({ name: `gzip ${level}`, run: (body: Buffer) => gzip(body, { level }) })),
  ...[1, 2, 3, 4, 5].map((quality) => ({
    name: `br ${quality}`,
    run: (body: Buffer) =>
      brotli(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        },
      }),
  })),
];

/**
 * CPU ms per MB of input (process CPU time, so other processes on a shared machine do not count;
 * the median of repeated runs, at least ~300 ms of work) and the compressed share.
 */
async function measureCodec(codec: Codec, body: Buffer): Promise<{ msPerMb: number; ratio: number }> {
  const compressed = await codec.run(body);
  const times: number[] = [];
  const deadline = performance.now() + 300;
  while (times.length < 7 || performance.now() < deadline) {
    const start = process.cpuUsage();
    await codec.run(body);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return { msPerMb: median(times) / (body.length / 1e6), ratio: compressed.length / body.length };
}

function get(url: string, headers: Record<string, string>, ca: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          (res.statusCode ?? 0) === 200
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`GET ${url}: ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

interface LoadResult {
  /** CPU time of this process (the service: event loop, DuckDB, zlib) per answered request, ms. */
  cpuMsPerRequest: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  bytesPerAnswer: number;
  loop: LoopWatched;
}

/** One autocannon run in a child process, the event loop of this process watched meanwhile. */
function loadChild(options: object): Promise<Omit<LoadResult, 'bytesPerAnswer'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'bench', 'load-child.ts'), JSON.stringify(options)],
      { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    let stop: (() => LoopWatched) | undefined;
    let cpu: NodeJS.CpuUsage | undefined;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (stop === undefined && out.startsWith('ready\n')) {
        stop = watchEventLoop();
        cpu = process.cpuUsage();
        child.stdin.end('go\n');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const loop = stop?.();
      const used = process.cpuUsage(cpu);
      if (code !== 0 || loop === undefined) reject(new Error(`load-child exited ${code}`));
      else {
        const run = JSON.parse(out.trim().split('\n').pop()!) as Omit<
          LoadResult,
          'loop' | 'bytesPerAnswer' | 'cpuMsPerRequest'
        >;
        resolve({ ...run, cpuMsPerRequest: (used.user + used.system) / 1000 / Math.max(1, run.requests), loop });
      }
    });
  });
}

async function main(): Promise<void> {
  const generated = generatedDatabase(SCALE);
  const org = generated.organizations[0]!;
  const config = serviceConfigSchema.parse(
    mergeConfig(configFromEnv(process.env), {
      dbPath: generated.dbPath,
      host: '127.0.0.1',
      port: 0,
      rateLimit: { ratePerSecond: BIG, burst: BIG, tokenRatePerSecond: BIG, tokenBurst: BIG },
    }),
  );
  const nodeThreads = (globalThis as { adreportNodeThreads?: ReadonlySet<number> }).adreportNodeThreads;
  const service = await startService(config, {
    logError: (entry) => console.error('server error:', entry.error),
    nodeThreads,
  });
  const lines: string[] = [];
  try {
    const base = `https://127.0.0.1:${service.port}`;
    const ca = service.tls!.cert;
    const basic = `Basic ${Buffer.from(`${org.clientId}:${org.clientSecret}`).toString('base64')}`;
    const token = (
      (await post(
        `${base}/token`,
        { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        'grant_type=client_credentials',
        ca,
      )) as { access_token: string }
    ).access_token;
    const bearer = { authorization: `Bearer ${token}` };
    const to = generated.lastDay;
    const from = new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    const pages = Object.fromEntries(
      Object.entries({
        'campaigns, 100 rows': `/reporting/v0/campaigns?startDate=${from}&endDate=${to}&limit=100`,
        'keywords, 10,000 rows': `/reporting/v0/keywords?startDate=${from}&endDate=${to}&limit=10000`,
      }).filter(([name]) => PAGES.some((page) => name.startsWith(page))),
    );

    if (CODECS_TOO)
      lines.push(
        '## Codecs (zlib asynchronous API)',
        '',
        '| body | bytes | codec | CPU ms per MB | compressed / original |',
        '|---|---:|---|---:|---:|',
      );
    for (const [name, urlPath] of Object.entries(CODECS_TOO ? pages : {})) {
      const body = await get(`${base}${urlPath}`, bearer, ca);
      for (const codec of CODECS) {
        const { msPerMb, ratio } = await measureCodec(codec, body);
        lines.push(
          `| ${name} | ${body.length} | ${codec.name} | ${msPerMb.toFixed(1)} | ${(ratio * 100).toFixed(1)} % |`,
        );
        console.error(lines.at(-1));
      }
    }

    if (!process.argv.includes('--codecs-only')) {
      lines.push(
        '',
        `## Load: ${CONNECTIONS} connections, ${RUNS} run(s) x ${SECONDS} s, medians (event loop: worst run)`,
        '',
      );
      lines.push(
        '| request | Accept-Encoding | service CPU ms per request | req/s | p50 ms | p99 ms | bytes per answer | loop max ms | loop p99 ms | non-2xx + errors |',
        '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      );
      for (const [name, urlPath] of Object.entries(pages)) {
        for (const encoding of ENCODINGS) {
          const headers: Record<string, string> = { ...bearer, ...(encoding ? { 'accept-encoding': encoding } : {}) };
          const sample = await get(`${base}${urlPath}`, headers, ca);
          const options = { url: `${base}${urlPath}`, headers, connections: CONNECTIONS };
          await loadChild({ ...options, duration: 1 });
          const runs = [];
          for (let i = 0; i < RUNS; i++) runs.push(await loadChild({ ...options, duration: SECONDS }));
          const worst = runs.reduce((a, r) => (r.loop.maxMs > a.loop.maxMs ? r : a));
          const failed = runs.reduce((a, r) => a + r.non2xx + r.errors, 0);
          lines.push(
            `| ${name} | ${encoding ?? '(none)'} | ${median(runs.map((r) => r.cpuMsPerRequest)).toFixed(1)} | ${Math.round(median(runs.map((r) => r.rps)))} | ${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ${sample.length} | ${worst.loop.maxMs.toFixed(0)} | ${Math.max(...runs.map((r) => r.loop.p99Ms)).toFixed(0)} | ${failed} |`,
          );
          console.error(lines.at(-1));
        }
      }
    }
  } finally {
    await service.close();
  }
  const cpus = os.cpus();
  const md = [
    '# compression',
    '',
    `- date: ${new Date().toISOString()}`,
    `- command: \`node -r ./bench/node-threads.cjs --import tsx bench/compression.ts${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\``,
    `- database: scale ${SCALE}, ${generated.factRows} fact rows; reports of organization ${org.id}, the 30 days ending ${generated.lastDay}`,
    `- cpu: ${cpus[0]?.model ?? 'unknown'} (${cpus.length} cores), node ${process.version}, UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE ?? 'default'}`,
    '',
    ...lines,
  ].join('\n');
  console.log(md);
  mkdirSync(path.join(root, 'bench', 'out'), { recursive: true });
  writeFileSync(path.join(root, 'bench', 'out', 'compression.md'), `${md}\n`);
}

await main();
