/**
 * Fairness between tenants (issue 21): organization A floods the reports at 64 connections of
 * the mix (bench/peer/report-queries.ts) while organization B asks its campaigns30d report and
 * `GET /provisioning/v0/organization` one at a time; B's p50/p99 idle vs during the flood.
 *
 *   npm run build && node --import tsx bench/fairness.ts --db FILE --generated generated.json
 *     [--root DIR] [--seconds S] [--connections N] [--env NAME=VALUE ...]
 *
 * FILE is a copy of a generated database (never the lead's bench/out file: the server opens it);
 * `generated.json` is what `adreport data generate --json` printed for it. `--root` is the checkout
 * whose dist/cli.cjs serves (default this one), so the code before a change can be measured on
 * the same machine in the same session. Per-client rate limits are lifted as in the other benches;
 * `--env` adds settings (e.g. ADREPORT_DB_TIME_MS_PER_SECOND=0 to see the scheduler alone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { MIX_NAMES, mixParams, serviceUrlPath } from './peer/report-queries.js';
import { certificateOf, clientToken, closeTimedGets, listeningPort, percentile, root, timedGet } from './lib.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

interface Org {
  id: number;
  clientId: string;
  clientSecret: string;
}

if (process.argv[2] === 'flood') {
  // The flooding client, in a process of its own so that it does not delay B's measurement.
  const [, , , url, token, connections, seconds, paths] = process.argv;
  const requests = JSON.parse(paths!) as string[];
  const result = await autocannon({
    url: url!,
    connections: Number(connections),
    duration: Number(seconds),
    requests: requests.map((p) => ({ method: 'GET', path: p, headers: { authorization: `Bearer ${token}` } })),
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  console.log(JSON.stringify({ rps: result.requests.average, statuses, errors: result.errors + result.timeouts }));
  process.exit(0);
}

const dbPath = arg('db');
const generatedPath = arg('generated');
if (!dbPath || !generatedPath) throw new Error('usage: fairness.ts --db FILE --generated generated.json');
const checkout = path.resolve(arg('root') ?? root);
const seconds = Number(arg('seconds') ?? 20);
const connections = Number(arg('connections') ?? 64);
const extraEnv = Object.fromEntries(
  process.argv.flatMap((a, i) => (process.argv[i - 1] === '--env' ? [a.split('=') as [string, string]] : [])),
);
const generated = JSON.parse(readFileSync(generatedPath, 'utf8')) as { organizations: Org[]; lastDay: string };
const [orgA, orgB] = generated.organizations as [Org, Org];

function startServer(): { child: ChildProcess; port: Promise<number> } {
  const big = '1000000';
  const child = spawn(
    process.execPath,
    [path.join(checkout, 'dist/cli.cjs'), 'serve', '--json', '--port', '0', '--host', '127.0.0.1', '--db', dbPath!],
    {
      cwd: checkout,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        ADREPORT_DEMO_DATA: 'false',
        ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: big,
        ADREPORT_TOKEN_RATE_LIMIT_BURST: big,
        ADREPORT_RATE_LIMIT_PER_SECOND: big,
        ADREPORT_RATE_LIMIT_BURST: big,
        ...extraEnv,
      },
    },
  );
  return { child, port: listeningPort(child) };
}

/** B alternates its campaign report and GET /organization, one at a time, for `ms`. */
async function measureB(base: string, token: string, ca: string, ms: number) {
  const p = mixParams('campaigns30d', orgB.id, generated.lastDay);
  const report: number[] = [];
  const organization: number[] = [];
  const statuses = new Map<number, number>();
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const r = await timedGet(`${base}${serviceUrlPath('campaigns30d', p)}`, token, ca);
    const o = await timedGet(`${base}/provisioning/v0/organization`, token, ca);
    for (const x of [r, o]) statuses.set(x.status, (statuses.get(x.status) ?? 0) + 1);
    report.push(r.ms);
    organization.push(o.ms);
  }
  const f = (xs: number[]) => ({
    n: xs.length,
    p50: +percentile(xs, 50).toFixed(1),
    p99: +percentile(xs, 99).toFixed(1),
  });
  return { report: f(report), organization: f(organization), statuses: Object.fromEntries(statuses) };
}

const { child, port } = startServer();
try {
  const base = `https://127.0.0.1:${await port}`;
  const ca = certificateOf(dbPath);
  const token = (org: Org) => clientToken(base, ca, org);
  const [tokenA, tokenB] = [await token(orgA), await token(orgB)];
  await measureB(base, tokenB, ca, 2000); // warm-up
  const idle = await measureB(base, tokenB, ca, seconds * 1000);
  const paths = MIX_NAMES.map((name) => serviceUrlPath(name, mixParams(name, orgA.id, generated.lastDay)));
  const flooder = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(root, 'bench/fairness.ts'),
      'flood',
      base,
      tokenA,
      String(connections),
      String(seconds + 3),
      JSON.stringify(paths),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' } },
  );
  let floodOut = '';
  flooder.stdout!.on('data', (d: Buffer) => (floodOut += d.toString()));
  const floodDone = new Promise((resolve) => flooder.once('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 2000)); // the flood fills the queue first
  const flooded = await measureB(base, tokenB, ca, seconds * 1000);
  await floodDone;
  const flood = JSON.parse(floodOut.trim().split('\n').pop()!) as unknown;
  const ratio = (a: number, b: number) => +(a / b).toFixed(2);
  console.log(
    JSON.stringify(
      {
        checkout,
        env: extraEnv,
        seconds,
        connections,
        idle,
        flooded,
        flood,
        reportP99Ratio: ratio(flooded.report.p99, idle.report.p99),
        organizationP99Ratio: ratio(flooded.organization.p99, idle.organization.p99),
      },
      null,
      1,
    ),
  );
} finally {
  closeTimedGets();
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
