/**
 * Conditional requests and the page cache (issue 21 item 3): a 304 and a cache hit against
 * GET /health, one request at a time over HTTPS (keep-alive), p50 and p99 in ms.
 *
 *   npm run build && node --import tsx bench/conditional.ts --db /tmp/c21/adreport.duckdb [--requests 1000]
 *
 * The database must be a generated one with generated.json beside it (client credentials, last
 * day): copy bench/out/scale-N/ to a scratch directory and point --db at the copy. The request
 * is campaigns30d of the mix: campaigns of organization 1, the 30 days ending on the last
 * generated day, four statistics, 100 rows. Two servers run one after the other: the cache on
 * (default 64 MiB) for /health, the hit and the 304; ADREPORT_CACHE_MB=0 for the query itself.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { median, startServer, stopServer } from './lib.js';

const option = (name: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const DB = option('--db');
if (!DB) throw new Error('--db <copy of a generated adreport.duckdb> is required');
const REQUESTS = Number(option('--requests') ?? 1000);
const WARMUP = 50;

const generated = JSON.parse(readFileSync(path.join(path.dirname(DB), 'generated.json'), 'utf8')) as {
  organizations: Array<{ id: number; clientId: string; clientSecret: string }>;
  lastDay: string;
};
const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
const CAMPAIGNS = `/reporting/v0/campaigns?startDate=${addDays(generated.lastDay, -29)}&endDate=${generated.lastDay}&statistics=impressions,clicks,cost,conversions&limit=100`;

// The bench trusts the server's fresh self-signed certificate; it talks to 127.0.0.1 only.
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}
function get(base: string, target: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${base}${target}`, { agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
    });
    req.on('error', reject);
  });
}

interface Timing {
  name: string;
  p50: number;
  p99: number;
  status: number;
  xCache: string;
  bytes: number;
}
interface Probe {
  name: string;
  target: string;
  headers: Record<string, string>;
}

/**
 * The probes interleaved, one request at a time (a, b, c, a, b, c, ...): each sees the same
 * machine (the JIT warming up, other processes on the 2 cores), so their ratios are fair.
 */
async function timeInterleaved(base: string, probes: readonly Probe[]): Promise<Timing[]> {
  const ms = probes.map(() => [] as number[]);
  const last: Answer[] = [];
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    for (const [k, probe] of probes.entries()) {
      const started = process.hrtime.bigint();
      last[k] = await get(base, probe.target, probe.headers);
      if (i >= WARMUP) ms[k]!.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return probes.map((probe, k) => {
    const sorted = [...ms[k]!].sort((a, b) => a - b);
    return {
      name: probe.name,
      p50: median(sorted),
      p99: sorted[Math.floor(sorted.length * 0.99)]!,
      status: last[k]!.status,
      xCache: String(last[k]!.headers['x-cache'] ?? '-'),
      bytes: last[k]!.bytes,
    };
  });
}

async function serve(cacheMb: string) {
  process.env.ADREPORT_CACHE_MB = cacheMb;
  const { child, ready } = startServer(DB!);
  const listening = await ready;
  const base = `https://127.0.0.1:${listening.port}`;
  const org = generated.organizations[0]!;
  const auth = `Basic ${Buffer.from(`${org.clientId}:${org.clientSecret}`).toString('base64')}`;
  const token = await new Promise<{ access_token: string }>((resolve, reject) => {
    const headers = { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' };
    const req = https.request(`${base}/token`, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve(JSON.parse(text) as { access_token: string }));
    });
    req.on('error', reject).end('grant_type=client_credentials');
  });
  return { child, base, bearer: { authorization: `Bearer ${token.access_token}` } };
}

const results: Timing[] = [];
{
  const { child, base, bearer } = await serve('64');
  try {
    const etag = String((await get(base, CAMPAIGNS, bearer)).headers.etag);
    results.push(
      ...(await timeInterleaved(base, [
        { name: 'GET /health', target: '/health', headers: {} },
        { name: 'campaigns30d, cache hit (identity)', target: CAMPAIGNS, headers: bearer },
        {
          name: 'campaigns30d, cache hit (gzip)',
          target: CAMPAIGNS,
          headers: { ...bearer, 'accept-encoding': 'gzip' },
        },
        { name: 'campaigns30d, 304', target: CAMPAIGNS, headers: { ...bearer, 'if-none-match': etag } },
      ])),
    );
  } finally {
    await stopServer(child);
  }
}
{
  const { child, base, bearer } = await serve('0');
  try {
    results.push(
      ...(await timeInterleaved(base, [
        { name: 'GET /health (cache off)', target: '/health', headers: {} },
        { name: 'campaigns30d, query (ADREPORT_CACHE_MB=0)', target: CAMPAIGNS, headers: bearer },
      ])),
    );
  } finally {
    await stopServer(child);
  }
}
agent.destroy();

const health = results[0]!.p50;
console.log(`${REQUESTS} requests one at a time after ${WARMUP} warm-up, ${path.basename(path.dirname(DB))}`);
console.log('| request | status | X-Cache | bytes | p50 ms | p99 ms | p50 / health |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.name} | ${r.status} | ${r.xCache} | ${r.bytes} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${(r.p50 / health).toFixed(2)} |`,
  );
