/**
 * What a dashboard user costs in database time (the cost-based rate limit's defaults): one
 * organization loads a dashboard of 8 reports at once, `--loads` times back to back (no think
 * time, a user clicking refresh as fast as the answers come), with the default db-time policy;
 * prints each load's wall time, its statuses and the `"db-time"` budget left afterwards.
 *
 *   npm run build && node --import tsx bench/dashboard-cost.ts --db FILE --generated generated.json [--loads 10]
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { addDays } from '../src/shared/dates.js';
import { clientToken, startServer, stopServer } from './lib.js';

const arg = (name: string, fallback?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const dbPath = arg('db')!;
const generated = JSON.parse(readFileSync(arg('generated')!, 'utf8')) as {
  organizations: Array<{ id: number; clientId: string; clientSecret: string }>;
  lastDay: string;
};
const loads = Number(arg('loads', '10'));
const org = generated.organizations[0]!;
const to = generated.lastDay;
const d30 = `startDate=${addDays(to, -29)}&endDate=${to}`;
const d7 = `startDate=${addDays(to, -6)}&endDate=${to}`;
const d90 = `startDate=${addDays(to, -89)}&endDate=${to}`;
const DASHBOARD = [
  `/reporting/v0/accounts?${d30}&totals=true`,
  `/reporting/v0/accounts?${d90}&segments=Day&statistics=impressions,clicks,cost`,
  `/reporting/v0/campaigns?${d30}&limit=100&totals=true`,
  `/reporting/v0/campaigns?${d30}&segments=DeviceType&limit=100`,
  `/reporting/v0/adgroups?${d7}&segments=Day,DeviceType&statistics=impressions,clicks,cost,ctr&limit=100`,
  `/reporting/v0/keywords?${d30}&filter=statistics.clicks%20%3E%2010&sort=-statistics.cost&limit=100`,
  `/reporting/v0/ads?${d30}&limit=50&sort=-statistics.conversions`,
  `/reporting/v0/adplatform-accounts?${d30}`,
];

// startServer lifts the per-client limits only; the db-time policy keeps its defaults.
delete process.env.ADREPORT_DB_TIME_MS_PER_SECOND;
delete process.env.ADREPORT_DB_TIME_BURST_MS;
const { child, ready } = startServer(dbPath);
try {
  const { port } = await ready;
  const base = `https://127.0.0.1:${port}`;
  const ca = readFileSync(`${dbPath}.tls/cert.pem`, 'utf8');
  const token = await clientToken(base, ca, org);
  const agent = new https.Agent({ keepAlive: true, ca });
  const get = (p: string) =>
    new Promise<{ status: number; rateLimit: string }>((resolve, reject) => {
      https
        .get(`${base}${p}`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, rateLimit: String(res.headers.ratelimit) }));
        })
        .on('error', reject);
    });
  for (let i = 0; i < loads; i++) {
    const started = performance.now();
    const answers = await Promise.all(DASHBOARD.map(get));
    const statuses = answers.map((a) => a.status).join(',');
    console.log(
      `load ${i + 1}: ${Math.round(performance.now() - started)} ms, statuses ${statuses}, last ${answers.at(-1)!.rateLimit}`,
    );
  }
  const after = await get(DASHBOARD[0]!);
  console.log(`after: ${after.status} ${after.rateLimit}`);
  agent.destroy();
} finally {
  await stopServer(child);
}
