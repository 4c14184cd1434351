/**
 * Load test of the HTTPS service at 16 connections: `POST /token` (client_credentials), the
 * cheapest authenticated read, account create (one write transaction each), account get and a
 * page of 100 accounts. Starts `node dist/cli.js serve --demo` on a temp database with rate
 * limits lifted.
 *
 *   npm run build && node --import tsx bench/http-load.ts [--quick]
 *
 * Full: 3 runs x 10 s per endpoint; --quick: 1 run x 3 s. Writes bench/out/http-load.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 1 : 3;
const DURATION_S = quick ? 3 : 10;
const CONNECTIONS = 16;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Listening {
  port: number;
  demo: { clientId: string; clientSecret: string } | null;
}
interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Spawns the server and resolves with its `listening` line (or rejects if it exits first). */
function startServer(dbPath: string): { child: ChildProcess; ready: Promise<Listening> } {
  const big = '1000000';
  const child = spawn(
    process.execPath,
    ['dist/cli.js', 'serve', '--demo', '--json', '--port', '0', '--host', '127.0.0.1', '--db', dbPath],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: big,
        ADREPORT_TOKEN_RATE_LIMIT_BURST: big,
        ADREPORT_RATE_LIMIT_PER_SECOND: big,
        ADREPORT_RATE_LIMIT_BURST: big,
      },
    },
  );
  const ready = new Promise<Listening>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited early (code ${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { event?: string } & Listening;
        if (msg.event === 'listening') resolve(msg);
      } catch {
        /* not JSON: ignore */
      }
    });
  });
  return { child, ready };
}

/** One POST over node:https, trusting only the server's self-signed cert. */
function post(url: string, headers: Record<string, string>, body: string, ca: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: 'POST', ca, headers: { ...headers, 'content-length': Buffer.byteLength(body) } });
    req.on('error', reject).on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`POST ${url} -> ${res.statusCode}: ${text}`));
        else resolve(JSON.parse(text));
      });
    });
    req.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ACCOUNT_BODY = JSON.stringify({
  account: { name: 'Bench GmbH', languageCode: 'de', countryCode: 'DE', currency: 'EUR', field1: 'x', field21: 1.5, labels: { clientId: 'C-1', tier: 'gold' } },
});

/** One autocannon run. autocannon always connects with rejectUnauthorized: false. */
async function load(opts: autocannon.Options): Promise<Run> {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function table(results: Record<string, Run[]>): string {
  const rows = ['| endpoint | run | req/s | p50 ms | p99 ms | non-2xx | errors |', '|---|---|---:|---:|---:|---:|---:|'];
  const row = (name: string, label: string, r: Run) =>
    `| ${name} | ${label} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`;
  for (const [name, runs] of Object.entries(results)) {
    runs.forEach((r, i) => rows.push(row(name, String(i + 1), r)));
    const med: Run = {
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
      errors: runs.reduce((a, r) => a + r.errors, 0),
    };
    rows.push(row(`**${name}**`, '**median**', med));
  }
  return rows.join('\n');
}

async function main(): Promise<number> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adreport-bench-'));
  const { child, ready } = startServer(path.join(tmp, 'bench.duckdb'));
  try {
    const { port, demo } = await ready;
    if (!demo) throw new Error('no demo credentials (database not fresh?)');
    const base = `https://127.0.0.1:${port}`;
    const basic = `Basic ${Buffer.from(`${demo.clientId}:${demo.clientSecret}`).toString('base64')}`;

    const ca = readFileSync(path.join(tmp, 'tls', 'cert.pem'), 'utf8');
    const fetchToken = async () =>
      ((await post(`${base}/token`, { authorization: basic, ...FORM }, 'grant_type=client_credentials', ca)) as { access_token: string }).access_token;
    for (let i = 0; i < 5; i++) await fetchToken(); // warm-up
    const token = await fetchToken();
    const bearer = { authorization: `Bearer ${token}` };
    const json = { ...bearer, 'content-type': 'application/json' };
    const accountIds: number[] = [];
    for (let i = 0; i < 100; i++) accountIds.push(((await post(`${base}/provisioning/v0/accounts`, json, ACCOUNT_BODY, ca)) as { account: { id: number } }).account.id);

    const targets: Record<string, autocannon.Options> = {
      'POST /token': {
        url: `${base}/token`,
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      },
      'GET /provisioning/v0/organization': { url: `${base}/provisioning/v0/organization`, headers: bearer },
      'POST /provisioning/v0/accounts': { url: `${base}/provisioning/v0/accounts`, method: 'POST', headers: json, body: ACCOUNT_BODY },
      'GET /provisioning/v0/accounts/id/{id}': { url: `${base}/provisioning/v0/accounts/id/${accountIds[50]}`, headers: bearer },
      'GET /provisioning/v0/accounts?limit=100': { url: `${base}/provisioning/v0/accounts?limit=100`, headers: bearer },
    };
    const results: Record<string, Run[]> = {};
    for (const [name, opts] of Object.entries(targets)) {
      await load({ ...opts, duration: 1 }); // warm-up, not reported
      results[name] = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await load(opts);
        results[name].push(r);
        console.error(`${name} run ${i + 1}/${RUNS}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms`);
      }
    }

    const md = table(results);
    console.log(md);
    const cpus = os.cpus();
    const outDir = path.join(root, 'bench', 'out');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      path.join(outDir, 'http-load.md'),
      [
        '# http-load',
        '',
        `- date: ${new Date().toISOString()}`,
        `- command: \`node --import tsx bench/http-load.ts${quick ? ' --quick' : ''}\``,
        `- cpu: ${cpus[0]?.model ?? 'unknown'} (${cpus.length} cores), ${os.platform()} ${os.release()}`,
        `- node: ${process.version}`,
        `- ${CONNECTIONS} connections, ${RUNS} run(s) x ${DURATION_S} s per endpoint, rate limits lifted`,
        '',
        md,
        '',
      ].join('\n'),
    );
    const bad = Object.values(results).flat().some((r) => r.non2xx > 0 || r.errors > 0 || r.rps === 0);
    if (bad) console.error('FAIL: some runs had non-2xx responses or errors');
    return bad ? 1 : 0;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
