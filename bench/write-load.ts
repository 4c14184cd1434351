/**
 * Every kind of write under concurrent writers, before and after (issue 34, deliverable 5): each
 * kind should stay within 1.5x of an account create. Per kind, `--connections` writers send real
 * HTTPS requests in a closed loop (the next when the last is answered) for `--seconds`, after a
 * `--warmup` that is not counted, and the table gives requests/s, p50, p99, non-2xx and the p50
 * over the same bin's `post` p50.
 *
 *   node --import tsx bench/write-load.ts --bin A=/work/base/dist/cli.cjs --bin B=dist/cli.cjs \
 *     [--seconds 8] [--connections 8] [--warmup 2] [--only post,patch-full,fx] [--fx-timeout 300] \
 *     [--seed DIR --client ID:SECRET] [--max-minutes 40]
 *
 * Kinds (`--only` takes these names):
 * - `post`: POST /provisioning/v0/accounts, a full account (notes, field1..field30, two labels);
 *   a new account each time. The reference the others are divided by.
 * - `post-small`: POST of the four required fields only (no labels): a second reference (on the
 *   base of issue 34 an account write with two labels or more checkpoints at every commit, one
 *   with fewer does not, so `post` itself was slow there).
 * - `patch-small`: PATCH (merge patch) of `notes` and `field1` of the writer's account.
 * - `patch-full`: PATCH of every field: name, language/country, currency, notes, autoImport
 *   (false), field1..field30 and the labels, all to new values.
 * - `put`: PUT of the full account, new values each time.
 * - `labels-put`, `labels-patch`: /provisioning/v0/accounts/id/{id}/labels, three labels
 *   replaced / one label changed.
 * - `links`: link a platform account to the writer's account, then DELETE the link; each is one
 *   request, rows `links POST` and `links DELETE` split them. The platform accounts are ones the
 *   platforms list for the organization (FACEBOOK's direct accounts, those under its masters),
 *   those it already knows first (on the demo: its five, with campaigns and 400 days of facts),
 *   each tried once before the load.
 * - `markups`: POST a markup on the writer's account, then DELETE it (rows split them too).
 * - `fx`: `node BIN fx import FILE --json` while that server runs (the admin channel), a tiny valid
 *   file (`date,currency,unitsPerEur`, one USD rate of a past day), run twice: the wall time of the
 *   first and of the second run, next to `node BIN clients list` (the CLI's start and the admin
 *   channel around a trivial command, fastest of 3) and the difference.
 *
 * The database: one seed made once, by the first bin's `serve --demo` in a temp dir, left to
 * finish the demo's background import and 400-day statistics backfill (no job QUEUED or RUNNING),
 * then stopped with SIGTERM (checkpointed). `--seed DIR --client ID:SECRET` takes a directory
 * holding `adreport.duckdb` (its key files, `adreport.duckdb.tls/`) instead, e.g. a generated scale-10 database
 * (a larger file makes each checkpoint dearer: `post` p50 ~1.5x the demo's on base). Each bin then serves its own fresh copy of the seed,
 * one bin after the other, so both see the same database on the same (noisy, shared) machine.
 * Each writer works on its own account, created before the loads; the kinds run in the order above
 * on one server, so later kinds run on a database the earlier ones wrote to.
 *
 * What to compare: per bin, the `p50 / post p50` column (the goal: every kind at most 1.5); across
 * bins, the B/A table (req/s, p50 and p99 of a later bin over the first one's). The service runs
 * writes one at a time on its single writer, so with N writers in a closed loop p50 is about
 * N / (requests/s): the ratio of p50s is the ratio of the time one write holds the writer.
 * Checkpoints, as seen from outside (5 ms samples of the files): `checkpointing %` is the share of
 * samples in which the database file's mtime moved (DuckDB writes that file only when it
 * checkpoints: near 0 when commits append to the WAL, a third or more when every commit
 * checkpoints), `WAL resets` the times the WAL shrank or went away after growing (checkpoints at a
 * WAL size threshold), `WAL max MB` the largest WAL seen (0 when every commit checkpoints). The fx
 * rows are process wall times, which include the CLI's start: the `- cli start` rows subtract the
 * `cli start` row, and only they get a ratio to post (one run each: differences of tens of ms
 * are noise next to a ~0.5 s process start). Other processes on the machine move the
 * figures between runs: compare bins within one run.
 *
 * Everything listens on and connects to 127.0.0.1; rate limits are lifted for these servers. The
 * temp dirs and every child process are removed on exit, error, Ctrl-C or after `--max-minutes`.
 * Exits 1 when a request was not 2xx or an fx import failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const KINDS = [
  'post',
  'post-small',
  'patch-small',
  'patch-full',
  'put',
  'labels-put',
  'labels-patch',
  'links',
  'markups',
  'fx',
] as const;
type Kind = (typeof KINDS)[number];

const { values } = parseArgs({
  options: {
    bin: { type: 'string', multiple: true },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    only: { type: 'string' },
    'fx-timeout': { type: 'string', default: '300' },
    seed: { type: 'string' },
    client: { type: 'string' },
    'max-minutes': { type: 'string', default: '40' },
  },
});

const positive = (name: string, text: string, allowZero = false): number => {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) throw new Error(`--${name} must be a positive number`);
  return n;
};
const SECONDS = positive('seconds', values.seconds!);
const CONNECTIONS = Math.floor(positive('connections', values.connections!));
const WARMUP = positive('warmup', values.warmup!, true);
const FX_TIMEOUT_MS = positive('fx-timeout', values['fx-timeout']!) * 1000;
const MAX_MS = positive('max-minutes', values['max-minutes']!) * 60_000;
const ONLY: readonly Kind[] = values.only
  ? values.only.split(',').map((k) => {
      if (!(KINDS as readonly string[]).includes(k)) throw new Error(`--only: unknown kind ${k} (${KINDS.join(', ')})`);
      return k as Kind;
    })
  : KINDS;
const RUN_KINDS = KINDS.filter((k) => ONLY.includes(k));
const BINS = (values.bin ?? []).map((spec, i) => {
  const eq = spec.indexOf('=');
  const label = eq > 0 ? spec.slice(0, eq) : String.fromCharCode(65 + i);
  const file = path.resolve(eq > 0 ? spec.slice(eq + 1) : spec);
  if (!fs.existsSync(file)) throw new Error(`--bin ${spec}: ${file} does not exist (build that checkout first)`);
  return { label, file };
});
if (BINS.length === 0)
  throw new Error('usage: write-load.ts --bin A=/path/dist/cli.cjs [--bin B=...] (see the top of the file)');
if (new Set(BINS.map((b) => b.label)).size !== BINS.length) throw new Error('--bin labels must differ');
if ((values.seed === undefined) !== (values.client === undefined)) throw new Error('--seed and --client go together');

const P = '/provisioning/v0';
const BIG = '1000000';
const DB_NAME = 'adreport.duckdb';

// ---------------------------------------------------------------------------------------------
// Child processes and temp dirs: everything started is tracked and torn down on any exit path.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-write-load-'));
const children = new Set<ChildProcess>();
let tearingDown: Promise<void> | undefined;
let aborted = false;

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<number | null> {
  if (alive(child)) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => alive(child) && child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
  children.delete(child);
  return child.exitCode;
}

function teardown(): Promise<void> {
  tearingDown ??= (async () => {
    await Promise.all([...children].map((child) => stopChild(child, 15_000)));
    fs.rmSync(tmp, { recursive: true, force: true });
  })();
  return tearingDown;
}

function abort(message: string, code: number): void {
  if (aborted) return;
  aborted = true;
  console.error(`write-load: ${message}; stopping children and removing ${tmp}`);
  void teardown().finally(() => process.exit(code));
}
process.once('SIGINT', () => abort('interrupted', 130));
process.once('SIGTERM', () => abort('terminated', 143));
const watchdog = setTimeout(() => abort(`still running after --max-minutes ${values['max-minutes']}`, 1), MAX_MS);

/** The environment of every child: no ADREPORT_* of this shell (as test/helpers/cli.ts), rate limits lifted. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('ADREPORT_') && key !== 'UV_THREADPOOL_SIZE') env[key] = value;
  return {
    ...env,
    ADREPORT_RATE_LIMIT_PER_SECOND: BIG,
    ADREPORT_RATE_LIMIT_BURST: BIG,
    ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: BIG,
    ADREPORT_TOKEN_RATE_LIMIT_BURST: BIG,
    ...extra,
  };
}

interface Server {
  child: ChildProcess;
  port: number;
  ca: string;
  db: string;
  log: string;
  demo: { clientId: string; clientSecret: string } | null;
}

const tail = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').slice(-3000) : '');

/** `BIN serve --json` on `dir/adreport.duckdb`; resolves with its listening line (stderr goes to a log file). */
async function serve(bin: string, dir: string, args: string[], env: Record<string, string>): Promise<Server> {
  const db = path.join(dir, DB_NAME);
  const log = path.join(tmp, `${path.basename(dir)}.serve.log`);
  const logFd = fs.openSync(log, 'a');
  const child = spawn(
    process.execPath,
    [bin, 'serve', ...args, '--json', '--port', '0', '--host', '127.0.0.1', '--db', db],
    { cwd: tmp, env: childEnv(env), stdio: ['ignore', 'pipe', logFd] },
  );
  fs.closeSync(logFd);
  children.add(child);
  const listening = await new Promise<{ port: number; demo: Server['demo'] }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not listen within 180 s: ${tail(log)}`)), 180_000);
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${tail(log)}`)));
    child.once('error', reject);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { event?: string; port: number; demo: Server['demo'] };
        if (msg.event === 'listening') {
          clearTimeout(timer);
          resolve(msg);
        }
      } catch {
        /* not JSON: ignore */
      }
    });
  });
  const ca = fs.readFileSync(path.join(dir, `${DB_NAME}.tls`, 'cert.pem'), 'utf8');
  return { child, port: listening.port, ca, db, log, demo: listening.demo };
}

async function stopServer(server: Server): Promise<void> {
  const code = await stopChild(server.child, 60_000);
  if (code !== 0) console.error(`warning: serve exited ${code} at SIGTERM: ${tail(server.log)}`);
}

/** Runs `node BIN ...args`, bounded; wall time in ms from spawn to exit. */
function runCli(
  bin: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; ms: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: tmp,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, ms: performance.now() - started, stdout, stderr });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// HTTPS requests: one keep-alive connection per writer, the server's own CA, SNI localhost.

interface Answer {
  status: number;
  text: string;
}

class Client {
  constructor(
    private readonly server: Server,
    private readonly agent: https.Agent,
    private readonly headers: Record<string, string>,
  ) {}

  request(method: string, pathName: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request({
        host: '127.0.0.1',
        port: this.server.port,
        servername: 'localhost',
        ca: this.server.ca,
        agent: this.agent,
        method,
        path: pathName,
        headers: {
          ...this.headers,
          ...(text === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(text) }),
        },
      });
      req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${pathName}: no answer within 60 s`)));
      req.on('error', reject).on('response', (res) => {
        let answer = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: answer }));
        res.on('error', reject);
      });
      req.end(text);
    });
  }

  async json<T>(method: string, pathName: string, body?: unknown): Promise<T> {
    const answer = await this.request(method, pathName, body);
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`${method} ${pathName} -> ${answer.status}: ${answer.text.slice(0, 500)}`);
    return JSON.parse(answer.text) as T;
  }

  /** The X-TotalCount of a list (its first item only). */
  async total(pathName: string): Promise<number> {
    return new Promise((resolve, reject) => {
      https
        .get(
          {
            host: '127.0.0.1',
            port: this.server.port,
            servername: 'localhost',
            ca: this.server.ca,
            agent: this.agent,
            path: pathName,
            headers: this.headers,
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 200
                ? resolve(Number(res.headers['x-totalcount']))
                : reject(new Error(`GET ${pathName} -> ${res.statusCode}`)),
            );
          },
        )
        .on('error', reject);
    });
  }
}

async function tokenClient(server: Server, credentials: { clientId: string; clientSecret: string }): Promise<string> {
  const basic = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
  const agent = new https.Agent({ keepAlive: false });
  const client = new Client(server, agent, { authorization: basic });
  const answer = await client.request(
    'POST',
    '/token',
    'grant_type=client_credentials',
    'application/x-www-form-urlencoded',
  );
  agent.destroy();
  if (answer.status !== 200) throw new Error(`POST /token -> ${answer.status}: ${answer.text}`);
  return (JSON.parse(answer.text) as { access_token: string }).access_token;
}

/**
 * Until no job is QUEUED or RUNNING (and some exist), twice in a row 1 s apart: the demo's import
 * and its backfill are done.
 */
async function waitForIdleJobs(client: Client, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let idleRounds = 0;
  let lastLine = '';
  for (;;) {
    const [all, queued, running] = await Promise.all([
      client.total(`${P}/jobs?limit=1`),
      client.total(`${P}/jobs?limit=1&status=QUEUED`),
      client.total(`${P}/jobs?limit=1&status=RUNNING`),
    ]);
    idleRounds = all > 0 && queued === 0 && running === 0 ? idleRounds + 1 : 0;
    if (idleRounds >= 2) return all;
    const line = `seed: ${all} jobs, ${queued} queued, ${running} running`;
    if (line !== lastLine) console.error(line);
    lastLine = line;
    if (Date.now() > deadline) throw new Error(`demo jobs still pending after ${timeoutMs / 1000} s (${line})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies: every write changes something (versions alternate), so no write is a no-op.

function fullAccount(tag: string, version: number): Record<string, unknown> {
  const odd = version % 2 === 1;
  const custom: Record<string, string | number> = {};
  for (let f = 1; f <= 20; f++) custom[`field${f}`] = `${tag} field ${f} v${version}`;
  for (let f = 21; f <= 30; f++) custom[`field${f}`] = version * 1000 + f + 0.25;
  return {
    name: `Write load ${tag} v${version}`,
    languageCode: 'de',
    countryCode: odd ? 'AT' : 'DE',
    currency: odd ? 'CHF' : 'EUR',
    notes: `notes of ${tag}, version ${version}`,
    autoImport: false,
    ...custom,
    labels: { clientId: `C-${tag}-${version}`, tier: odd ? 'gold' : 'silver' },
  };
}

/** A platform account the platform lets the organization link; `id` is the service's, from a first link. */
interface PlatformAccount {
  id: number;
  adPlatformType: string;
  adPlatformId: string;
}

interface Listed {
  adPlatformAccounts: Array<{ adPlatformId: string }>;
}

/**
 * Platform accounts the links load can link: the platforms' own lists (FACEBOOK's direct ad
 * accounts, the accounts under each master), the ones the organization already knows (the demo's,
 * with campaigns and facts) first. Each is tried once, linked and unlinked on `accountId` (not
 * measured), until `wanted` work; a known one the platform does not list (a generated database's)
 * is left out.
 */
async function linkable(setup: Client, accountId: number, wanted: number): Promise<PlatformAccount[]> {
  const known = (await setup.json<{ adPlatformAccounts: PlatformAccount[] }>('GET', `${P}/adplatform-accounts`))
    .adPlatformAccounts;
  const listed: Array<{ adPlatformType: string; adPlatformId: string }> = [];
  const facebook = await setup.json<Listed>('GET', `${P}/adplatform-accounts/available?adPlatformType=FACEBOOK`);
  listed.push(
    ...facebook.adPlatformAccounts.map((a) => ({ adPlatformType: 'FACEBOOK', adPlatformId: a.adPlatformId })),
  );
  const masters = await setup.json<{ adPlatformMasterAccounts: Array<{ id: number; adPlatformType: string }> }>(
    'GET',
    `${P}/adplatform-master-accounts`,
  );
  for (const master of masters.adPlatformMasterAccounts) {
    const under = await setup.json<Listed>(
      'GET',
      `${P}/adplatform-master-accounts/id/${master.id}/adplatform-accounts`,
    );
    listed.push(
      ...under.adPlatformAccounts.map((a) => ({ adPlatformType: master.adPlatformType, adPlatformId: a.adPlatformId })),
    );
  }
  const isKnown = (a: { adPlatformId: string }) => known.some((k) => k.adPlatformId === a.adPlatformId);
  const candidates = [...listed.filter(isKnown), ...listed.filter((a) => !isKnown(a))];
  const usable: PlatformAccount[] = [];
  for (const candidate of candidates) {
    if (usable.length >= wanted) break;
    const linked = await setup.request('POST', `${P}/accounts/id/${accountId}/adplatform-accounts`, {
      adPlatformAccount: candidate,
    });
    if (linked.status !== 201) continue;
    const id = (JSON.parse(linked.text) as { adPlatformAccount: { id: number } }).adPlatformAccount.id;
    const unlinked = await setup.request('DELETE', `${P}/accounts/id/${accountId}/adplatform-accounts/id/${id}`);
    if (unlinked.status === 204) usable.push({ id, ...candidate });
  }
  return usable;
}

interface Writer {
  index: number;
  client: Client;
  accountId: number;
  version: number;
  platformAccount: PlatformAccount | undefined;
}

interface Sample {
  part: string;
  ms: number;
  ok: boolean;
}

/** One loop turn of a writer: one request, or two (links, markups); `send` times and records each. */
type Step = (
  writer: Writer,
  send: (part: string, method: string, pathName: string, body?: unknown) => Promise<Answer>,
) => Promise<void>;

const MERGE = 'application/merge-patch+json';
const STEPS: Record<Exclude<Kind, 'fx'>, Step> = {
  post: async (w, send) => {
    await send('post', 'POST', `${P}/accounts`, { account: fullAccount(`w${w.index}-new`, ++w.version) });
  },
  'post-small': async (w, send) => {
    const v = ++w.version;
    await send('post-small', 'POST', `${P}/accounts`, {
      account: { name: `Write load w${w.index} small v${v}`, languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
    });
  },
  'patch-small': async (w, send) => {
    const v = ++w.version;
    await send('patch-small', 'PATCH', `${P}/accounts/id/${w.accountId}`, {
      account: { notes: `small patch ${v}`, field1: `field1 v${v}` },
    });
  },
  'patch-full': async (w, send) => {
    await send('patch-full', 'PATCH', `${P}/accounts/id/${w.accountId}`, {
      account: fullAccount(`w${w.index}`, ++w.version),
    });
  },
  put: async (w, send) => {
    await send('put', 'PUT', `${P}/accounts/id/${w.accountId}`, { account: fullAccount(`w${w.index}`, ++w.version) });
  },
  'labels-put': async (w, send) => {
    const v = ++w.version;
    await send('labels-put', 'PUT', `${P}/accounts/id/${w.accountId}/labels`, {
      labels: { clientId: `C-${w.index}-${v}`, tier: v % 2 ? 'gold' : 'silver', region: `R${v % 7}` },
    });
  },
  'labels-patch': async (w, send) => {
    const v = ++w.version;
    await send('labels-patch', 'PATCH', `${P}/accounts/id/${w.accountId}/labels`, { labels: { tier: `t${v}` } });
  },
  links: async (w, send) => {
    const pa = w.platformAccount!;
    const linked = await send('links POST', 'POST', `${P}/accounts/id/${w.accountId}/adplatform-accounts`, {
      adPlatformAccount: { adPlatformType: pa.adPlatformType, adPlatformId: pa.adPlatformId },
    });
    // 409: still linked from an earlier turn whose DELETE failed; unlink it all the same.
    if (linked.status !== 201 && linked.status !== 409) return;
    const id =
      linked.status === 201
        ? (JSON.parse(linked.text) as { adPlatformAccount: { id: number } }).adPlatformAccount.id
        : pa.id;
    await send('links DELETE', 'DELETE', `${P}/accounts/id/${w.accountId}/adplatform-accounts/id/${id}`);
  },
  markups: async (w, send) => {
    const v = ++w.version;
    const made = await send('markups POST', 'POST', `${P}/accounts/id/${w.accountId}/markups`, {
      markup: { rate: (5 + (v % 20)) / 100, startDate: '2026-01-01', endDate: '2026-01-31' },
    });
    if (made.status === 201) {
      const id = (JSON.parse(made.text) as { markup: { id: number } }).markup.id;
      await send('markups DELETE', 'DELETE', `${P}/accounts/id/${w.accountId}/markups/id/${id}`);
    }
  },
};

interface Row {
  kind: string;
  bin: string;
  rps: number | null;
  p50: number;
  p99: number | null;
  non2xx: number;
  /** Share of the load's 5 ms samples in which the database file was written (DuckDB does only when it checkpoints). */
  checkpointShare?: number;
  /** Times the WAL shrank or went away: checkpoints that came after commits that stayed in the WAL. */
  walResets?: number;
  walMaxMb?: number;
}

/**
 * Samples the database file's mtime and the WAL's size every 5 ms. DuckDB writes the main file
 * only when it checkpoints (then truncates or removes the WAL), so the share of samples whose
 * mtime moved is about the share of the time spent checkpointing, as seen from outside. (A count
 * of checkpoints it is not: one checkpoint writes the file over several samples, and one commit
 * after another may each checkpoint with no gap between.)
 */
function watchCheckpoints(db: string): () => { share: number; walResets: number; maxBytes: number } {
  const stat = (file: string) => {
    try {
      return fs.statSync(file, { bigint: true });
    } catch {
      return undefined;
    }
  };
  let mtime = stat(db)?.mtimeNs;
  let maxBytes = 0;
  let samples = 0;
  let written = 0;
  let walResets = 0;
  let walBytes = Number(stat(`${db}.wal`)?.size ?? 0);
  const timer = setInterval(() => {
    const now = stat(db)?.mtimeNs;
    samples++;
    if (now !== mtime) written++;
    mtime = now;
    const bytes = Number(stat(`${db}.wal`)?.size ?? 0);
    if (bytes < walBytes) walResets++;
    walBytes = bytes;
    maxBytes = Math.max(maxBytes, bytes);
  }, 5);
  return () => {
    clearInterval(timer);
    return { share: samples === 0 ? 0 : written / samples, walResets, maxBytes };
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** All writers loop `step` for `seconds`; a turn started before the end is finished (a link is always unlinked). */
async function runLoad(
  writers: readonly Writer[],
  step: Step,
  seconds: number,
): Promise<{ samples: Sample[]; elapsedMs: number }> {
  const samples: Sample[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
  let last = started;
  let failures = 0;
  await Promise.all(
    writers.map(async (writer) => {
      const send = async (part: string, method: string, pathName: string, body?: unknown): Promise<Answer> => {
        const t0 = performance.now();
        let answer: Answer;
        try {
          answer = await writer.client.request(method, pathName, body, method === 'PATCH' ? MERGE : 'application/json');
        } catch (error) {
          answer = { status: 0, text: String(error) };
        }
        const t1 = performance.now();
        last = Math.max(last, t1);
        const ok = answer.status >= 200 && answer.status < 300;
        samples.push({ part, ms: t1 - t0, ok });
        if (!ok && ++failures <= 3)
          console.error(`  ${part} ${method} ${pathName} -> ${answer.status}: ${answer.text.slice(0, 300)}`);
        return answer;
      };
      while (performance.now() < end) await step(writer, send);
    }),
  );
  return { samples, elapsedMs: last - started };
}

function rowsOf(kind: string, bin: string, samples: readonly Sample[], elapsedMs: number): Row[] {
  const row = (name: string, list: readonly Sample[]): Row => {
    const sorted = list.map((s) => s.ms).sort((a, b) => a - b);
    return {
      kind: name,
      bin,
      rps: list.length / (elapsedMs / 1000),
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      non2xx: list.filter((s) => !s.ok).length,
    };
  };
  const parts = [...new Set(samples.map((s) => s.part))];
  const rows = [row(kind, samples)];
  if (parts.length > 1)
    for (const part of parts)
      rows.push(
        row(
          `  ${part}`,
          samples.filter((s) => s.part === part),
        ),
      );
  return rows;
}

// ---------------------------------------------------------------------------------------------

interface Seed {
  dir: string;
  credentials: { clientId: string; clientSecret: string };
  facts: string[];
}

const copyFilter = (src: string) => !src.endsWith('.admin.sock');
const mb = (file: string) => (fs.existsSync(file) ? (fs.statSync(file).size / 1024 / 1024).toFixed(1) : '0');

async function makeSeed(): Promise<Seed> {
  const dir = path.join(tmp, 'seed');
  if (values.seed !== undefined) {
    const from = path.resolve(values.seed);
    if (!fs.existsSync(path.join(from, DB_NAME))) throw new Error(`--seed ${from} holds no ${DB_NAME}`);
    fs.cpSync(from, dir, { recursive: true, filter: copyFilter });
    const [clientId, ...secret] = values.client!.split(':');
    return {
      dir,
      credentials: { clientId: clientId!, clientSecret: secret.join(':') },
      facts: [`seed: copy of ${from} (${mb(path.join(dir, DB_NAME))} MB)`],
    };
  }
  fs.mkdirSync(dir);
  const started = performance.now();
  const bin = BINS[0]!;
  console.error(`seed: ${bin.label} serve --demo in ${dir}, waiting for the demo's import and backfill`);
  // The demo data is on by default; the backfill is the 400 days `serve` uses unless told otherwise.
  const server = await serve(bin.file, dir, ['--demo'], {});
  try {
    if (!server.demo) throw new Error('serve --demo printed no demo credentials');
    const agent = new https.Agent({ keepAlive: true, maxSockets: 3 });
    const client = new Client(server, agent, { authorization: `Bearer ${await tokenClient(server, server.demo)}` });
    const jobs = await waitForIdleJobs(client, 15 * 60_000);
    agent.destroy();
    await stopServer(server);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    return {
      dir,
      credentials: server.demo,
      facts: [
        `seed: \`${bin.label} serve --demo\`, ${jobs} jobs finished, stopped with SIGTERM after ${seconds} s; ` +
          `${DB_NAME} ${mb(path.join(dir, DB_NAME))} MB, WAL ${mb(path.join(dir, `${DB_NAME}.wal`))} MB`,
      ],
    };
  } finally {
    await stopChild(server.child, 60_000);
  }
}

async function measureBin(bin: { label: string; file: string }, seed: Seed, facts: string[]): Promise<Row[]> {
  const dir = path.join(tmp, `bin-${bin.label}`);
  fs.cpSync(seed.dir, dir, { recursive: true, filter: copyFilter });
  console.error(`${bin.label}: serve ${bin.file} on a copy of the seed`);
  const built = fs.statSync(bin.file).mtime.toISOString();
  const server = await serve(bin.file, dir, [], { ADREPORT_DEMO_DATA: 'false' });
  const agents: https.Agent[] = [];
  const rows: Row[] = [];
  try {
    const bearer = { authorization: `Bearer ${await tokenClient(server, seed.credentials)}` };
    const setupAgent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(setupAgent);
    const setup = new Client(server, setupAgent, bearer);
    const organizationId = (await setup.json<{ organization: { id: number } }>('GET', `${P}/organization`)).organization
      .id;
    const writers: Writer[] = [];
    for (let index = 0; index < CONNECTIONS; index++) {
      const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      const client = new Client(server, agent, bearer);
      const made = await setup.json<{ account: { id: number } }>('POST', `${P}/accounts`, {
        account: fullAccount(`w${index}`, 0),
      });
      writers.push({
        index,
        client,
        accountId: made.account.id,
        version: 0,
        platformAccount: undefined,
      });
    }
    const platformAccounts = RUN_KINDS.includes('links')
      ? await linkable(setup, writers[0]!.accountId, CONNECTIONS)
      : [];
    for (const writer of writers) writer.platformAccount = platformAccounts[writer.index % platformAccounts.length];
    for (const kind of RUN_KINDS) {
      if (kind === 'fx') {
        rows.push(...(await fxRows(bin, server, organizationId)));
        continue;
      }
      if (kind === 'links' && platformAccounts.length === 0) {
        console.error(`${bin.label} links: the platforms list no account this organization can link; skipped`);
        continue;
      }
      if (WARMUP > 0) await runLoad(writers, STEPS[kind], WARMUP);
      const stopWatching = watchCheckpoints(server.db);
      const { samples, elapsedMs } = await runLoad(writers, STEPS[kind], SECONDS);
      const wal = stopWatching();
      const kindRows = rowsOf(kind, bin.label, samples, elapsedMs);
      const r = kindRows[0]!;
      r.checkpointShare = wal.share;
      r.walResets = wal.walResets;
      r.walMaxMb = wal.maxBytes / 1024 / 1024;
      console.error(
        `${bin.label} ${kind}: ${r.rps!.toFixed(1)} req/s, p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99!.toFixed(0)} ms, ` +
          `${r.non2xx} non-2xx; database file written in ${(wal.share * 100).toFixed(1)} % of the time, ${wal.walResets} WAL resets, WAL up to ${r.walMaxMb.toFixed(2)} MB; ${DB_NAME} ${mb(server.db)} MB`,
      );
      rows.push(...kindRows);
    }
  } finally {
    for (const agent of agents) agent.destroy();
    await stopServer(server);
    const rebuilt = fs.statSync(bin.file).mtime.toISOString();
    facts.push(
      `${bin.label}: \`${bin.file}\` (built ${built}${rebuilt === built ? '' : `; REBUILT at ${rebuilt} while it was measured: the fx commands ran the new build`}); ${DB_NAME} after its run ${mb(path.join(dir, DB_NAME))} MB`,
    );
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/**
 * `fx import` twice on the running server (admin channel), and for scale the cheapest admin
 * command over the same channel: `clients list`, the CLI's start, the socket and one small read
 * (fastest of 3, so the net figure errs on the import's side).
 */
async function fxRows(bin: { label: string; file: string }, server: Server, organizationId: number): Promise<Row[]> {
  const day = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
  const file = path.join(tmp, `fx-${bin.label}.csv`);
  fs.writeFileSync(file, `date,currency,unitsPerEur\n${day},USD,1.0823\n`);
  const rows: Row[] = [];
  for (const name of ['fx import (1st)', 'fx import (2nd)']) {
    const run = await runCli(bin.file, ['fx', 'import', file, '--db', server.db, '--json'], FX_TIMEOUT_MS);
    const ok = run.code === 0 && run.stdout.includes('"imported"');
    if (!ok) console.error(`${bin.label} ${name}: exit ${run.code}: ${run.stderr.slice(-1000)}`);
    console.error(`${bin.label} ${name}: ${run.ms.toFixed(0)} ms`);
    rows.push({ kind: name, bin: bin.label, rps: null, p50: run.ms, p99: null, non2xx: ok ? 0 : 1 });
  }
  const starts: number[] = [];
  let failed = 0;
  for (let i = 0; i < 3; i++) {
    const run = await runCli(
      bin.file,
      ['clients', 'list', '--org', String(organizationId), '--db', server.db, '--json'],
      60_000,
    );
    if (run.code !== 0) {
      failed++;
      console.error(`${bin.label} clients list: exit ${run.code}: ${run.stderr.slice(-500)}`);
    }
    starts.push(run.ms);
  }
  const start = Math.min(...starts);
  console.error(`${bin.label} ${CLI_START}: ${start.toFixed(0)} ms`);
  rows.push({ kind: CLI_START, bin: bin.label, rps: null, p50: start, p99: null, non2xx: failed });
  // What the import itself took: the wall time less the CLI's start (what `p50 / post p50` compares).
  for (const run of rows.slice(0, 2))
    rows.push({ ...run, kind: `${run.kind} - cli start`, p50: run.p50 - start, non2xx: 0 });
  return rows;
}

const CLI_START = 'cli start (clients list, fastest of 3)';
const fmt = (n: number | null, digits = 0) => (n === null || Number.isNaN(n) ? '-' : n.toFixed(digits));
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined || !(b > 0) ? '-' : (a / b).toFixed(2);

function tables(rows: readonly Row[]): string {
  const out = [
    '| kind | bin | req/s | p50 ms | p99 ms | non-2xx | p50 / post p50 | checkpointing % | WAL resets | WAL max MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const postOf = (bin: string) => rows.find((r) => r.bin === bin && r.kind === 'post');
  const kinds = [...new Set(rows.map((r) => r.kind))];
  for (const kind of kinds)
    for (const r of rows.filter((x) => x.kind === kind)) {
      // A process's wall time is not comparable with a request's: only the net fx rows get the ratio.
      const isCli = r.kind === CLI_START || (r.kind.startsWith('fx import') && !r.kind.endsWith('cli start'));
      out.push(
        `| ${r.kind.startsWith('  ') ? `&nbsp;&nbsp;${r.kind.trim()}` : r.kind} | ${r.bin} | ${fmt(r.rps, 1)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.non2xx} | ${isCli ? '-' : ratio(r.p50, postOf(r.bin)?.p50)} | ${r.checkpointShare === undefined ? '-' : (r.checkpointShare * 100).toFixed(1)} | ${r.walResets ?? '-'} | ${fmt(r.walMaxMb ?? null, 2)} |`,
      );
    }
  if (BINS.length > 1) {
    const base = BINS[0]!.label;
    for (const other of BINS.slice(1)) {
      const o = other.label;
      out.push(
        '',
        `| kind | ${base} req/s | ${o} req/s | ${o}/${base} req/s | ${base} p50 ms | ${o} p50 ms | ${o}/${base} p50 | ${base} p99 ms | ${o} p99 ms | ${o}/${base} p99 |`,
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      );
      for (const kind of kinds) {
        const a = rows.find((r) => r.bin === base && r.kind === kind);
        const b = rows.find((r) => r.bin === o && r.kind === kind);
        const name = kind.startsWith('  ') ? `&nbsp;&nbsp;${kind.trim()}` : kind;
        out.push(
          `| ${name} | ${fmt(a?.rps ?? null, 1)} | ${fmt(b?.rps ?? null, 1)} | ${ratio(b?.rps, a?.rps)} | ${fmt(a?.p50 ?? null)} | ${fmt(b?.p50 ?? null)} | ${ratio(b?.p50, a?.p50)} | ${fmt(a?.p99 ?? null)} | ${fmt(b?.p99 ?? null)} | ${ratio(b?.p99, a?.p99)} |`,
        );
      }
    }
  }
  return out.join('\n');
}

async function main(): Promise<number> {
  const started = performance.now();
  const date = new Date().toISOString();
  const cpus = os.cpus();
  const facts = [
    `command: \`node --import tsx bench/write-load.ts ${process.argv.slice(2).join(' ')}\``,
    `date: ${date}`,
    `machine: ${cpus[0]?.model ?? 'unknown'} (${cpus.length} cores), ${os.platform()} ${os.release()}, node ${process.version}`,
    `load: ${CONNECTIONS} writers (one keep-alive HTTPS connection and one account each), closed loop, ${WARMUP} s warm-up + ${SECONDS} s per kind; kinds: ${RUN_KINDS.join(', ')}`,
  ];
  const seed = await makeSeed();
  facts.push(...seed.facts);
  const rows: Row[] = [];
  for (const bin of BINS) rows.push(...(await measureBin(bin, seed, facts)));
  facts.push(`run time: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(['# write-load', '', ...facts.map((f) => `- ${f}`), '', tables(rows), ''].join('\n'));
  const bad = rows.some((r) => r.non2xx > 0);
  if (bad) console.error('FAIL: some requests were not 2xx, or an fx import failed');
  return bad ? 1 : 0;
}

// After abort() the work fails on its dead server: abort's own exit code stands.
main().then(
  async (code) => {
    if (aborted) return;
    clearTimeout(watchdog);
    await teardown();
    process.exit(code);
  },
  async (error: unknown) => {
    if (aborted) return;
    clearTimeout(watchdog);
    console.error(error);
    await teardown();
    process.exit(1);
  },
);
