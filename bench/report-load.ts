/**
 * Load test of reports on a generated database: a small campaign report (one organization, the
 * 30 days ending yesterday, 100 rows) at 16 connections over HTTPS, plus a Day x DeviceType
 * segmented and a filtered + sorted variant. The database (scale 10 by default) is generated once
 * into bench/out/scale-<N>/ and reused while the day it ends on is still yesterday.
 *
 *   npm run build && node --import tsx bench/report-load.ts [--quick] [--scale N]
 *
 * Full: 3 runs x 10 s per request; --quick: 1 run x 3 s. Writes bench/out/report-load.md.
 */
import { readFileSync } from 'node:fs';
import { generatedDatabase } from './generated.js';
import path from 'node:path';
import type autocannon from 'autocannon';
import { CONNECTIONS, measure, post, report, startServer, stopServer } from './lib.js';

const quick = process.argv.includes('--quick');
const scaleArg = process.argv.indexOf('--scale');
const SCALE = scaleArg > 0 ? Number(process.argv[scaleArg + 1]) : 10;
const RUNS = quick ? 1 : 3;
const DURATION_S = quick ? 3 : 10;

async function main(): Promise<number> {
  const generated = generatedDatabase(SCALE);
  const dir = generated.dir;
  const org = generated.organizations[0]!;
  const { child, ready } = startServer(path.join(dir, 'adreport.duckdb'));
  try {
    const { port } = await ready;
    const base = `https://127.0.0.1:${port}`;
    const ca = readFileSync(path.join(dir, 'adreport.duckdb.tls', 'cert.pem'), 'utf8');
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
    const range = `startDate=${from}&endDate=${to}`;
    const targets: Record<string, autocannon.Options> = {
      'campaigns, 30 days, 100 rows': { url: `${base}/reporting/v0/campaigns?${range}&limit=100`, headers: bearer },
      'adgroups by Day x DeviceType, 100 rows': {
        url: `${base}/reporting/v0/adgroups?${range}&segments=Day,DeviceType&limit=100`,
        headers: bearer,
      },
      'keywords filtered + sorted, 100 rows': {
        url: `${base}/reporting/v0/keywords?${range}&limit=100&sort=-statistics.cost&filter=${encodeURIComponent("statistics.clicks > 5 && matchType != 'BROAD'")}`,
        headers: bearer,
      },
    };
    const results = await measure(targets, RUNS, DURATION_S);
    return report(
      'report-load',
      [
        `command: \`node --import tsx bench/report-load.ts${quick ? ' --quick' : ''}${scaleArg > 0 ? ` --scale ${SCALE}` : ''}\``,
        `database: scale ${SCALE}, ${generated.factRows} fact rows, ${generated.organizations.length} organizations; reports of organization ${org.id}`,
        `${CONNECTIONS} connections, ${RUNS} run(s) x ${DURATION_S} s per request`,
      ],
      results,
    );
  } finally {
    await stopServer(child);
  }
}

process.exitCode = await main();
