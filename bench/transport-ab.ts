/**
 * A/B of two builds' HTTPS transport (issue 19: the first-byte peek on the HTTPS port): both
 * servers run side by side and 3 s autocannon runs of `POST /token` (16 keep-alive connections)
 * alternate between them, then 200 fresh TLS connections each doing `GET /health`. Interleaving
 * keeps the comparison fair on a machine whose load drifts; the server's CPU time per token
 * request (from /proc/<pid>/stat, Linux) is less disturbed by other load than requests/s.
 *
 *   npm run build && node --import tsx bench/transport-ab.ts --base DIR [--rounds 16]
 *
 * DIR: the root of another checkout with its dist/ built (e.g. `git worktree add /tmp/base <commit>`,
 * a node_modules symlink, `npx tsc -p tsconfig.build.json` there).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { root } from './lib.js';

interface Served {
  child: ChildProcess;
  dir: string;
  port: number;
  ca: string;
  basic: string;
}

const { values } = parseArgs({ options: { base: { type: 'string' }, rounds: { type: 'string', default: '16' } } });
if (!values.base) throw new Error('--base DIR is required');
const unlimited = '1000000';

function start(checkout: string): Promise<Served> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'adreport-ab-'));
  const child = spawn(
    process.execPath,
    [
      path.join(checkout, 'dist/cli.cjs'),
      'serve',
      '--demo',
      '--json',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--db',
      path.join(dir, 'a.duckdb'),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        ADREPORT_DEMO_DATA: 'false',
        ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: unlimited,
        ADREPORT_TOKEN_RATE_LIMIT_BURST: unlimited,
      },
    },
  );
  return new Promise((resolve) =>
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line) as {
        event?: string;
        port: number;
        demo: { clientId: string; clientSecret: string };
      };
      if (msg.event !== 'listening') return;
      const basic = `Basic ${Buffer.from(`${msg.demo.clientId}:${msg.demo.clientSecret}`).toString('base64')}`;
      resolve({
        child,
        dir,
        port: msg.port,
        ca: readFileSync(path.join(dir, 'a.duckdb.tls', 'cert.pem'), 'utf8'),
        basic,
      });
    }),
  );
}

/** User + system CPU time of a process so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function tokenRun(s: Served): Promise<{ perSecond: number; cpuUsPerRequest: number }> {
  const cpuBefore = cpuMs(s.child.pid!);
  const result = await autocannon({
    url: `https://127.0.0.1:${s.port}/token`,
    connections: 16,
    duration: 3,
    method: 'POST',
    headers: { authorization: s.basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    tlsOptions: { ca: s.ca, servername: 'localhost' },
  });
  const requests = result.requests.total ?? result.requests.average * 3;
  return { perSecond: result.requests.average, cpuUsPerRequest: ((cpuMs(s.child.pid!) - cpuBefore) * 1000) / requests };
}

async function freshConnectionMs(s: Served, count: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve, reject) =>
      https
        .get(`https://127.0.0.1:${s.port}/health`, { ca: s.ca, servername: 'localhost', agent: false }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject),
    );
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / count;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const servers = { base: await start(path.resolve(values.base)), current: await start(root) };
const results = {
  base: { token: [] as number[], cpu: [] as number[], fresh: [] as number[] },
  current: { token: [] as number[], cpu: [] as number[], fresh: [] as number[] },
};
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const name of round % 2 === 0 ? (['base', 'current'] as const) : (['current', 'base'] as const)) {
      const run = await tokenRun(servers[name]);
      results[name].token.push(run.perSecond);
      results[name].cpu.push(run.cpuUsPerRequest);
      results[name].fresh.push(await freshConnectionMs(servers[name], 200));
    }
  }
  for (const name of ['base', 'current'] as const) {
    const r = results[name];
    console.log(
      `${name}: POST /token median ${Math.round(median(r.token))} req/s (runs ${r.token.map(Math.round).join(' ')}), ` +
        `server CPU median ${Math.round(median(r.cpu))} us/request (runs ${r.cpu.map(Math.round).join(' ')}); ` +
        `fresh TLS connection + GET /health median ${median(r.fresh).toFixed(2)} ms (runs ${r.fresh.map((x) => x.toFixed(2)).join(' ')})`,
    );
  }
} finally {
  for (const s of Object.values(servers)) s.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  for (const s of Object.values(servers)) rmSync(s.dir, { recursive: true, force: true });
}
