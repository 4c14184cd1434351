/**
 * The report mix as SQL through the SQL endpoint (issue 41 item 5) against the same reports
 * through REST, on one server: `node --import tsx bench/sql-endpoint.ts [--scale 1] [--count 200]
 * [--seconds 5] [--connections 8]` (needs `npm run build` and the generated database of the scale,
 * bench/generated.ts).
 *
 * The built bin serves the generated database with `--sql-port 0`, the page cache and the
 * database-time budget off. Each report of the mix is written over the model's relations as a
 * BI tool would write it (one prepared statement, node-postgres's extended protocol, dates as
 * parameters) and asked `count` times one at a time, interleaved with its REST request; then each
 * side runs alone for `seconds` with `connections` clients in a closed loop (throughput). Row
 * counts of both sides are checked equal before anything is timed.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { generatedDatabase } from './generated.js';
import {
  certificateOf,
  clientToken,
  closeTimedGets,
  median,
  percentile,
  startServer,
  stopServer,
  timedGet,
} from './lib.js';
import { MIX_NAMES, mixParams, serviceUrlPath, type MixName } from './peer/report-queries.js';

/** The mix over the model: the rows of the REST request's page, dates as $1 and $2. */
const SQL_MIX: Readonly<Record<MixName, string>> = {
  campaigns30d: `SELECT c.id, c.name, c.adplatform_account_id, c.ad_platform_type, c.status, p.currency,
       coalesce(s.impressions, 0) AS impressions, coalesce(s.clicks, 0) AS clicks, coalesce(s.cost, 0) AS cost,
       coalesce(s.conversions, 0) AS conversions, coalesce(s.conversion_value, 0) AS conversion_value,
       s.clicks::float8 / nullif(s.impressions, 0) AS ctr, s.cost::float8 / nullif(s.clicks, 0) AS average_cpc,
       s.conversions::float8 / nullif(s.clicks, 0) AS conversion_rate, s.cost::float8 / nullif(s.conversions, 0) AS cost_per_conversion
  FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
  LEFT JOIN (SELECT campaign_id, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(cost) AS cost,
                    sum(conversions) AS conversions, sum(conversion_value) AS conversion_value
               FROM campaign_daily WHERE day BETWEEN $1 AND $2 GROUP BY campaign_id) s ON s.campaign_id = c.id
 ORDER BY c.id LIMIT 100`,
  adgroupsDayDevice: `SELECT g.id, g.name, c.adplatform_account_id, g.campaign_id, s.day, s.device,
       s.impressions, s.clicks, s.cost, s.clicks::float8 / nullif(s.impressions, 0) AS ctr
  FROM (SELECT ad_group_id, day, device, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(cost) AS cost
          FROM ad_group_daily WHERE day BETWEEN $1 AND $2 GROUP BY ad_group_id, day, device) s
  JOIN ad_groups g ON g.id = s.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
 ORDER BY g.id, s.day, s.device LIMIT 100`,
  keywordsFiltered: `SELECT k.id, k.text, k.ad_group_id, k.match_type, k.status, s.impressions, s.clicks, s.cost,
       s.conversions, s.conversion_value, s.clicks::float8 / nullif(s.impressions, 0) AS ctr
  FROM (SELECT keyword_id, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(cost) AS cost,
               sum(conversions) AS conversions, sum(conversion_value) AS conversion_value
          FROM keyword_daily WHERE day BETWEEN $1 AND $2 GROUP BY keyword_id HAVING sum(clicks) > 10) s
  JOIN keywords k ON k.id = s.keyword_id
 ORDER BY s.cost DESC, k.id LIMIT 100`,
  keywordsPull: `SELECT k.id, k.text, k.ad_group_id, k.match_type, k.status,
       coalesce(s.impressions, 0) AS impressions, coalesce(s.clicks, 0) AS clicks, coalesce(s.cost, 0) AS cost,
       coalesce(s.conversions, 0) AS conversions, coalesce(s.conversion_value, 0) AS conversion_value
  FROM keywords k
  LEFT JOIN (SELECT keyword_id, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(cost) AS cost,
                    sum(conversions) AS conversions, sum(conversion_value) AS conversion_value
               FROM keyword_daily WHERE day BETWEEN $1 AND $2 GROUP BY keyword_id) s ON s.keyword_id = k.id
 ORDER BY k.id LIMIT 10000`,
};

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    count: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
  },
});
const scale = Number(values.scale);
const count = Number(values.count);
const seconds = Number(values.seconds);
const connections = Number(values.connections);

const generated = generatedDatabase(scale, undefined, true);
const organization = generated.organizations[0]!;
const ca = certificateOf(generated.dbPath);
// The page cache and the database-time budget off: every request is answered by a query.
Object.assign(process.env, { ADREPORT_CACHE_MB: '0', ADREPORT_DB_TIME_MS_PER_SECOND: '0' });
const server = startServer(generated.dbPath, ['--sql-port', '0']);
try {
  const listening = (await server.ready) as unknown as { url: string; sqlPort: number };
  const token = await clientToken(listening.url, ca, organization);
  const sqlClient = () =>
    new pg.Client({
      host: '127.0.0.1',
      port: listening.sqlPort,
      user: organization.clientId,
      password: organization.clientSecret,
      database: 'adreport',
      ssl: { ca, rejectUnauthorized: false },
    });
  const client = sqlClient();
  await client.connect();
  const rows: string[] = [
    '| report | REST p50 / p99 ms | SQL p50 / p99 ms | SQL / REST (p50) | rows |',
    '|---|---|---|---|---|',
  ];
  for (const name of MIX_NAMES) {
    const p = mixParams(name, organization.id, generated.lastDay);
    const url = `${listening.url}${serviceUrlPath(name, p)}`;
    const query = { name: `mix_${name}`, text: SQL_MIX[name], values: [p.from, p.to] };
    const rest = await fetchJson(url, token, ca);
    const sql = await client.query(query);
    if (sql.rowCount !== rest) throw new Error(`${name}: SQL answered ${sql.rowCount} rows, REST ${rest}`);
    const restMs: number[] = [];
    const sqlMs: number[] = [];
    for (let i = 0; i < count; i++) {
      restMs.push((await timedGet(url, token, ca)).ms);
      const started = performance.now();
      await client.query(query);
      sqlMs.push(performance.now() - started);
    }
    rows.push(
      `| ${name} | ${median(restMs).toFixed(2)} / ${percentile(restMs, 99).toFixed(2)} | ${median(sqlMs).toFixed(2)} / ${percentile(sqlMs, 99).toFixed(2)} | ${(median(sqlMs) / median(restMs)).toFixed(2)} | ${rest} |`,
    );
  }
  await client.end();
  // Throughput: the mix in turn, `connections` clients in a closed loop, each side alone.
  const restRate = await closedLoop(async (i) => {
    const name = MIX_NAMES[i % MIX_NAMES.length]!;
    await timedGet(
      `${listening.url}${serviceUrlPath(name, mixParams(name, organization.id, generated.lastDay))}`,
      token,
      ca,
    );
  });
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const c = sqlClient();
      await c.connect();
      return c;
    }),
  );
  const sqlRate = await closedLoop(async (i, worker) => {
    const name = MIX_NAMES[i % MIX_NAMES.length]!;
    const p = mixParams(name, organization.id, generated.lastDay);
    await clients[worker]!.query({ name: `mix_${name}`, text: SQL_MIX[name], values: [p.from, p.to] });
  });
  await Promise.all(clients.map((c) => c.end()));
  console.log(
    `scale ${scale}, organization ${organization.id}, ${count} requests per report one at a time (interleaved), then ${seconds} s at ${connections} connections per side`,
  );
  console.log(rows.join('\n'));
  console.log(
    `\n| mix at ${connections} connections | req/s |\n|---|---|\n| REST | ${restRate.toFixed(1)} |\n| SQL | ${sqlRate.toFixed(1)} (${(sqlRate / restRate).toFixed(2)}x) |`,
  );
} finally {
  closeTimedGets();
  await stopServer(server.child);
}

async function fetchJson(url: string, token: string, caPem: string): Promise<number> {
  const { default: https } = await import('node:https');
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: caPem, headers: { authorization: `Bearer ${token}` } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode} ${body.slice(0, 200)}`));
          else
            resolve(
              (Object.values(JSON.parse(body) as Record<string, unknown>).find(Array.isArray) as unknown[]).length,
            );
        });
      })
      .on('error', reject);
  });
}

async function closedLoop(work: (i: number, worker: number) => Promise<void>): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      while (performance.now() < end) {
        await work(next++, worker);
        done++;
      }
    }),
  );
  return done / seconds;
}
