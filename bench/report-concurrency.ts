/**
 * How many report queries in flight the machine serves best (ADREPORT_REPORT_CONCURRENCY): the
 * mix (bench/peer/report-queries.ts) of one organization at 16 connections for each setting,
 * requests/s and p50/p99, the db-time limit off. Settings are interleaved over the rounds.
 *
 *   npm run build && node --import tsx bench/report-concurrency.ts --db FILE --generated generated.json
 *     [--settings 1,2,3,4,6] [--rounds 2] [--seconds 10] [--connections 16]
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { MIX_NAMES, mixParams, serviceUrlPath } from './peer/report-queries.js';
import { clientToken, median, startServer, stopServer } from './lib.js';

const arg = (name: string, fallback?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const dbPath = arg('db')!;
const generated = JSON.parse(readFileSync(arg('generated')!, 'utf8')) as {
  organizations: Array<{ id: number; clientId: string; clientSecret: string }>;
  lastDay: string;
};
const settings = arg('settings', '1,2,3,4,6')!.split(',').map(Number);
const rounds = Number(arg('rounds', '2'));
const seconds = Number(arg('seconds', '10'));
const connections = Number(arg('connections', '16'));
const org = generated.organizations[0]!;
const results = new Map<number, Array<{ rps: number; p50: number; p99: number; non2xx: number }>>();

for (let round = 0; round < rounds; round++) {
  for (const n of round % 2 ? [...settings].reverse() : settings) {
    process.env.ADREPORT_REPORT_CONCURRENCY = String(n);
    process.env.ADREPORT_DB_TIME_MS_PER_SECOND = '0';
    const { child, ready } = startServer(dbPath);
    try {
      const { port } = await ready;
      const base = `https://127.0.0.1:${port}`;
      const ca = readFileSync(`${dbPath}.tls/cert.pem`, 'utf8');
      const token = await clientToken(base, ca, org);
      const requests = MIX_NAMES.map((name) => ({
        method: 'GET' as const,
        path: serviceUrlPath(name, mixParams(name, org.id, generated.lastDay)),
        headers: { authorization: `Bearer ${token}` },
      }));
      await autocannon({ url: base, connections, duration: 2, requests });
      const r = await autocannon({ url: base, connections, duration: seconds, requests });
      const run = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
      console.error(`concurrency ${n} round ${round + 1}: ${JSON.stringify(run)}`);
      results.set(n, [...(results.get(n) ?? []), run]);
    } finally {
      await stopServer(child);
    }
  }
}
console.log(
  `| report concurrency | req/s (median of ${rounds}) | p50 ms | p99 ms | runs (req/s) |\n|---:|---:|---:|---:|---|`,
);
for (const n of settings) {
  const runs = results.get(n)!;
  console.log(
    `| ${n} | ${median(runs.map((r) => r.rps)).toFixed(1)} | ${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ${runs.map((r) => r.rps.toFixed(1)).join(', ')} |`,
  );
}
