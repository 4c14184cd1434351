import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { HttpClient, type HttpResponse } from '../helpers/http.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { poll } from '../helpers/poll.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { createTenant, issueToken, startReplicas, type Replica, type ReplicaSet } from '../helpers/replicas.js';
import { tempDir } from '../helpers/server.js';

/**
 * The replicated deployment (issue 37, DESIGN D12) end to end: replicas of the built bin
 * (`adreport serve --store postgres://... --files-dir DIR`) on one private PostgreSQL 15 and one
 * files directory, every check through real HTTPS to the replicas, kill -9 of a replica and a
 * restart of PostgreSQL while requests flow.
 */

const P = '/provisioning/v0';
const ACCOUNT = { languageCode: 'de', countryCode: 'DE', currency: 'EUR' } as const;
/** The sandbox's GOOGLE_ADS manager account the demo links too (src/demo/demo-seed.ts). */
const SANDBOX_GOOGLE_MANAGER = '512-384-9061';

let pg: TestPostgres;
const dirs: string[] = [];
const sets: ReplicaSet[] = [];

beforeAll(async () => {
  pg = await startTestPostgres('adreport-pg-replicas-');
});

afterAll(async () => {
  for (const set of sets) await set.close().catch(() => undefined);
  await pg?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh database and files directory, with `count` replicas on them. */
async function deployment(count = 3, env: Record<string, string> = {}): Promise<ReplicaSet> {
  const storeUrl = await pg.createDatabase();
  const filesDir = tempDir('adreport-replicas-files-');
  dirs.push(filesDir);
  const set = await startReplicas({ storeUrl, filesDir, count, env });
  sets.push(set);
  return set;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function postJson(
  replica: Replica,
  token: string,
  pathName: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  return replica.http.request('POST', pathName, {
    headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const createAccount = (replica: Replica, token: string, name: string, headers: Record<string, string> = {}) =>
  postJson(replica, token, `${P}/accounts`, { account: { name, ...ACCOUNT } }, headers);

/** Every account of the token's organization, read through one replica, page by page. */
async function allAccounts(replica: Replica, token: string): Promise<Array<{ id: number; name: string }>> {
  const accounts: Array<{ id: number; name: string }> = [];
  for (let offset = 0; ; offset += 100) {
    const res = await replica.http.get(`${P}/accounts?limit=100&offset=${offset}`, bearer(token));
    if (res.status !== 200) throw new Error(`list through ${replica.name}: ${res.status} ${res.text}`);
    accounts.push(...res.json.accounts);
    if (accounts.length >= Number(res.headers['x-totalcount'])) return accounts;
  }
}

async function accountCount(replica: Replica, token: string): Promise<number> {
  const res = await replica.http.get(`${P}/accounts?limit=1`, bearer(token));
  if (res.status !== 200) throw new Error(`count through ${replica.name}: ${res.status} ${res.text}`);
  return Number(res.headers['x-totalcount']);
}

/** Links the sandbox's GOOGLE_ADS manager account to an organization with the admin CLI; its id in the service. */
async function linkSandboxManager(set: ReplicaSet, organizationId: number): Promise<number> {
  const link = await set.admin([
    'master-accounts',
    'link',
    '--org',
    String(organizationId),
    '--platform',
    'GOOGLE_ADS',
    '--platform-id',
    SANDBOX_GOOGLE_MANAGER,
  ]);
  if (link.code !== 0) throw new Error(`master-accounts link exited ${link.code}: ${link.stderr}`);
  return JSON.parse(link.stdout).adPlatformMasterAccount.id as number;
}

/** What one request got: an answer, or an error at the socket (no answer at all). */
type Outcome =
  | { replica: string; status: number; retryAfter: string | undefined; text: string }
  | { replica: string; socketError: string };

async function attempt(replica: Replica, send: () => Promise<HttpResponse>): Promise<Outcome> {
  try {
    const res = await send();
    return {
      replica: replica.name,
      status: res.status,
      retryAfter: res.headers['retry-after'] as string,
      text: res.text,
    };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return { replica: replica.name, socketError: e.code ?? e.message };
  }
}

/** Why a replica stopped answering: its exit and the start of its stderr, for the failure message. */
async function gone(replica: Replica, what: string): Promise<string> {
  if (replica.alive()) return `replica ${replica.name} is running but a request failed at the socket: ${what}`;
  const { code, signal } = await replica.exited;
  return `replica ${replica.name} exited (code ${code}, signal ${signal}); stderr:\n${replica.stderr().slice(0, 2000)}`;
}

/** A request that died at the socket because its replica is gone (reset, refused, or hung up on). */
const SOCKET_FAILURE = /^(ECONNRESET|ECONNREFUSED|EPIPE|ECONNABORTED|socket hang up)$/;

describe('three replicas on one PostgreSQL', () => {
  let set: ReplicaSet;
  let A: Replica;
  let B: Replica;
  let C: Replica;

  beforeAll(async () => {
    set = await deployment(3);
    [A, B, C] = set.all as [Replica, Replica, Replica];
  });

  it('accepts on B and C a token A issued; an organization and client made with the admin CLI meanwhile work on every replica', async () => {
    // Made while the replicas run, by a separate process straight against PostgreSQL.
    const tenant = await createTenant(set, 'Agency One');
    const fromA = await issueToken(A, tenant.clientId, tenant.clientSecret);
    for (const replica of [A, B, C]) {
      const res = await replica.http.get(`${P}/accounts`, bearer(fromA));
      expect(res.status, `${replica.name}: ${res.text}`).toBe(200);
      expect(res.json.accounts).toEqual([]);
    }
    // The new client gets tokens from every replica, and each is good on every other.
    for (const issuer of [A, B, C]) {
      const token = await issueToken(issuer, tenant.clientId, tenant.clientSecret);
      for (const replica of [A, B, C])
        expect(
          (await replica.http.get(`${P}/accounts`, bearer(token))).status,
          `${issuer.name} -> ${replica.name}`,
        ).toBe(200);
    }
    // The admin CLI lists the client it made, and a second organization stays apart from the first.
    const listed = await set.admin(['clients', 'list', '--org', String(tenant.organizationId)]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(tenant.clientId);
    const other = await createTenant(set, 'Agency Two');
    expect(other.organizationId).not.toBe(tenant.organizationId);
    const otherToken = await issueToken(C, other.clientId, other.clientSecret);
    const created = await createAccount(B, otherToken, 'Two Only');
    expect(created.status, created.text).toBe(201);
    expect(await accountCount(A, fromA)).toBe(0);
    expect(await accountCount(A, otherToken)).toBe(1);
  });

  it('keys rotate against the store reaches every replica: a token signed with the new key works on each, and one signed before still does', async () => {
    const tenant = await createTenant(set, 'Rotation Org');
    const before = await issueToken(A, tenant.clientId, tenant.clientSecret);
    // A token is v2.<key id>.<claims>.<signature>.
    const keyId = (token: string) => token.split('.')[1];
    const rotated = await set.admin(['keys', 'rotate']);
    expect(rotated.code, rotated.stderr).toBe(0);
    // Each replica re-reads the shared key file (keyFileRefreshMs, 1 s): poll until A signs with the new key.
    const after = await poll('A signs with the rotated key', async () => {
      const token = await issueToken(A, tenant.clientId, tenant.clientSecret);
      return keyId(token) !== keyId(before) ? token : undefined;
    });
    for (const replica of [A, B, C]) {
      await poll(`${replica.name} accepts the new key`, async () =>
        (await replica.http.get(`${P}/accounts`, bearer(after))).status === 200 ? true : undefined,
      );
      expect((await replica.http.get(`${P}/accounts`, bearer(before))).status, replica.name).toBe(200);
    }
  });

  it('reads an account made through A through B and C with the same ETag; a PATCH through B changes what C serves at once', async () => {
    const tenant = await createTenant(set, 'ETag Org');
    const token = await issueToken(A, tenant.clientId, tenant.clientSecret);
    const created = await createAccount(A, token, 'Tagged GmbH');
    expect(created.status, created.text).toBe(201);
    const id = created.json.account.id as number;
    const tag = created.headers.etag as string;
    expect(tag).toMatch(/^"/);
    for (const replica of [B, C]) {
      const res = await replica.http.get(`${P}/accounts/id/${id}`, bearer(token));
      expect(res.status, `${replica.name}: ${res.text}`).toBe(200);
      expect(res.json.account).toEqual(created.json.account);
      expect(res.headers.etag, replica.name).toBe(tag);
      expect(
        (await replica.http.get(`${P}/accounts/id/${id}`, { ...bearer(token), 'if-none-match': tag })).status,
      ).toBe(304);
    }

    const patched = await B.http.request('PATCH', `${P}/accounts/id/${id}`, {
      headers: { ...bearer(token), 'content-type': 'application/merge-patch+json', 'if-match': tag },
      body: JSON.stringify({ account: { notes: 'changed through B' } }),
    });
    expect(patched.status, patched.text).toBe(200);
    const newTag = patched.headers.etag as string;
    expect(newTag).toMatch(/^"/);
    expect(newTag).not.toBe(tag);
    // No waiting: the next read on C already has the change.
    const onC = await C.http.get(`${P}/accounts/id/${id}`, { ...bearer(token), 'if-none-match': tag });
    expect(onC.status, onC.text).toBe(200);
    expect(onC.headers.etag).toBe(newTag);
    expect(onC.json.account.notes).toBe('changed through B');
    const onA = await A.http.get(`${P}/accounts/id/${id}`, bearer(token));
    expect(onA.headers.etag).toBe(newTag);
    // A write conditional on the old tag loses on any replica.
    const stale = await C.http.request('PATCH', `${P}/accounts/id/${id}`, {
      headers: { ...bearer(token), 'content-type': 'application/merge-patch+json', 'if-match': tag },
      body: JSON.stringify({ account: { notes: 'stale' } }),
    });
    expect(stale.status, stale.text).toBe(412);
  });

  it('starts one job when two replicas race on the same Idempotency-Key and body of a job-starting request', async () => {
    const tenant = await createTenant(set, 'Idempotent Jobs Org');
    const masterId = await linkSandboxManager(set, tenant.organizationId);
    const token = await issueToken(A, tenant.clientId, tenant.clientSecret);
    const under = `${P}/adplatform-master-accounts/id/${masterId}/adplatform-accounts`;
    const rounds = 3;
    const jobIds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const body = { adPlatformAccount: { name: `Job Race ${round}`, currency: 'EUR', timeZone: 'Europe/Berlin' } };
      const headers = { 'idempotency-key': `job-race-${round}` };
      const [onA, onB] = await Promise.all([
        postJson(A, token, under, body, headers),
        postJson(B, token, under, body, headers),
      ]);
      expect([onA.status, onB.status], `${onA.text} / ${onB.text}`).toEqual([202, 202]);
      expect(onB.json.job.id, `round ${round}`).toBe(onA.json.job.id);
      jobIds.push(onA.json.job.id as number);
    }
    for (const id of jobIds)
      await poll(`job ${id} ended`, async () => {
        const job = (await C.http.get(`${P}/jobs/id/${id}`, bearer(token))).json.job as { status: string };
        return ['QUEUED', 'RUNNING'].includes(job.status) ? undefined : job.status;
      });
    const accounts = (await C.http.get(under, bearer(token))).json.adPlatformAccounts as Array<{ name: string }>;
    for (let round = 0; round < rounds; round++)
      expect(
        accounts.filter((a) => a.name === `Job Race ${round}`),
        `round ${round}`,
      ).toHaveLength(1);
  });

  it('loses no acknowledged creation when a replica is killed -9 in the middle of a stream of them', async () => {
    const tenant = await createTenant(set, 'Crash Org');
    const token = await issueToken(A, tenant.clientId, tenant.clientSecret);
    const acknowledged: string[] = [];
    const outcomes: Outcome[] = [];
    let killedAt: number | undefined;
    let acknowledgedAfterKill = 0;
    let stop = false;
    const writers = [A, B, C].flatMap((replica) =>
      [0, 1].map(async (w) => {
        for (let i = 0; !stop; i++) {
          const name = `Crash ${replica.name}${w}-${i}`;
          const outcome = await attempt(replica, () => createAccount(replica, token, name));
          outcomes.push(outcome);
          if ('status' in outcome && outcome.status === 201) {
            acknowledged.push(name);
            if (killedAt !== undefined) acknowledgedAfterKill++;
          }
          // The killed replica's writers end at their first request without an answer.
          if ('socketError' in outcome) return;
        }
      }),
    );
    try {
      await poll('30 acknowledged creations before the kill', () => (acknowledged.length >= 30 ? true : undefined));
      killedAt = Date.now();
      await C.kill9();
      await poll('20 more acknowledged creations after the kill', () =>
        acknowledgedAfterKill >= 20 ? true : undefined,
      );
    } finally {
      stop = true;
      await Promise.all(writers);
    }

    expect(await C.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The survivors answered every request 201; the killed one answered 201 or nothing at all.
    const survivors = outcomes.filter((o) => o.replica !== 'C');
    expect(survivors.filter((o) => !('status' in o) || o.status !== 201)).toEqual([]);
    const onKilled = outcomes.filter((o) => o.replica === 'C');
    for (const o of onKilled)
      if ('status' in o) expect(o.status, o.text).toBe(201);
      else expect(o.socketError).toMatch(SOCKET_FAILURE);

    // A replica started after the kill, and the survivors, find every acknowledged creation.
    const D = await set.start('D');
    for (const replica of [D, A, B]) {
      const names = new Set((await allAccounts(replica, token)).map((a) => a.name));
      expect(
        acknowledged.filter((name) => !names.has(name)),
        replica.name,
      ).toEqual([]);
      // Requests in flight at the kill may have committed without their 201: never fewer, maybe more.
      expect(names.size).toBeGreaterThanOrEqual(acknowledged.length);
    }
  });

  it('answers 2xx or 503 with Retry-After while PostgreSQL restarts, and serves again on every replica without a restart', async () => {
    // Three replicas (after the kill above: A, B and D), whatever the earlier tests left running.
    while (set.running().length < 3) await set.start();
    const replicas = set.running();
    const tenant = await createTenant(set, 'Restart Org');
    const tokens = new Map<Replica, string>();
    for (const replica of replicas)
      tokens.set(replica, await issueToken(replica, tenant.clientId, tenant.clientSecret));
    const outcomes: Outcome[] = [];
    const acknowledged: string[] = [];
    let answered = 0;
    let stop = false;
    const flows = replicas.flatMap((replica) =>
      [0, 1].map(async (w) => {
        const token = tokens.get(replica)!;
        for (let i = 0; !stop; i++) {
          const name = `Restart ${replica.name}${w}-${i}`;
          const outcome = await attempt(replica, () =>
            i % 2 === 0
              ? createAccount(replica, token, name)
              : replica.http.get(`${P}/accounts?limit=5`, bearer(token)),
          );
          outcomes.push(outcome);
          if ('status' in outcome && outcome.status < 300) answered++;
          if ('status' in outcome && outcome.status === 201) acknowledged.push(name);
          if (!replica.alive()) return;
        }
      }),
    );
    try {
      await poll('requests answered before the restart', () => (answered >= 20 ? true : undefined));
      await pg.restart();
      // Back on every replica, each on its own pool: a write and a read answer again.
      for (const replica of replicas) {
        const token = tokens.get(replica)!;
        await poll(
          `replica ${replica.name} writing again after the restart`,
          async () => {
            const outcome = await attempt(replica, () => createAccount(replica, token, `After ${replica.name}`));
            if ('socketError' in outcome) throw new Error(await gone(replica, outcome.socketError));
            return outcome.status === 201 ? true : undefined;
          },
          120_000,
          100,
        );
        expect((await replica.http.get(`${P}/accounts?limit=5`, bearer(token))).status).toBe(200);
      }
    } finally {
      stop = true;
      await Promise.all(flows);
    }

    for (const replica of replicas) if (!replica.alive()) throw new Error(await gone(replica, 'died'));
    const wrong = outcomes.filter(
      (o) => !('status' in o) || !(o.status < 300 || (o.status === 503 && o.retryAfter !== undefined)),
    );
    expect(wrong).toEqual([]);
    // The restart was seen: requests in flight or arriving while PostgreSQL was away got a 503.
    expect(outcomes.some((o) => 'status' in o && o.status === 503)).toBe(true);
    // What was acknowledged before, during and after the restart is all there.
    const names = new Set((await allAccounts(replicas[0]!, tokens.get(replicas[0]!)!)).map((a) => a.name));
    expect(acknowledged.filter((name) => !names.has(name))).toEqual([]);
  });

  it('serves MCP on every replica without a session: an account made through one is listed through the others; reports are the tool error reports_unavailable', async () => {
    const tenant = await createTenant(set, 'MCP Org');
    // The replicas still running (an earlier test kills one -9 on purpose).
    const [first, ...others] = set.running();
    expect(others.length).toBeGreaterThan(0);
    const token = await issueToken(first!, tenant.clientId, tenant.clientSecret);
    const created = await createAccount(first!, token, 'Agent GmbH');
    expect(created.status, created.text).toBe(201);
    for (const replica of others) {
      const mcp = await connectMcp(replica.url, set.ca, { token });
      try {
        const listed = await mcp.client.callTool({ name: 'list_accounts', arguments: {} });
        expect(listed.isError, replica.name).toBeFalsy();
        const answer = (listed.structuredContent as { answer: { accounts: unknown[] } }).answer;
        expect(answer.accounts, replica.name).toEqual([created.json.account]);
        const report = await mcp.client.callTool({ name: 'run_report', arguments: { endpoint: 'accounts' } });
        expect(report.isError, replica.name).toBe(true);
        expect((report.structuredContent as { error: { code: string } }).error.code).toBe('reports_unavailable');
      } finally {
        await mcp.close();
      }
    }
  });

  it('answers a report 503 reports_unavailable on every replica', async () => {
    const tenant = await createTenant(set, 'Report Org');
    for (const replica of set.running()) {
      const token = await issueToken(replica, tenant.clientId, tenant.clientSecret);
      const res = await replica.http.get(
        '/reporting/v0/accounts?startDate=2024-01-01&endDate=2024-01-31',
        bearer(token),
      );
      expect(res.status, `${replica.name}: ${res.text}`).toBe(503);
      expect(res.json.error.code).toBe('reports_unavailable');
      expect(res.headers['retry-after']).toBeDefined();
    }
    // The admin commands that work on statistics say so in one line, and change nothing.
    for (const args of [
      ['sync', '--org', String(tenant.organizationId)],
      ['export', '--org', String(tenant.organizationId), '--endpoint', 'accounts', '--out', '-'],
    ]) {
      const result = await set.admin(args);
      expect(result.code, args[0]).toBe(1);
      const lines = result.stderr.split('\n').filter((line) => line !== '');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^adreport: \w+ works on statistics, which the PostgreSQL store does not hold yet/);
    }
    const jobs = await A.http.get(`${P}/jobs`, bearer(await issueToken(A, tenant.clientId, tenant.clientSecret)));
    expect(jobs.json.jobs).toEqual([]);
  });
});

describe('a client rate limit on three replicas', () => {
  it('holds for the deployment: a burst of 6 at 1/s lets about 6 through in all, not 6 per replica', async () => {
    const set = await deployment(3, { ADREPORT_RATE_LIMIT_BURST: '6', ADREPORT_RATE_LIMIT_PER_SECOND: '1' });
    const tenant = await createTenant(set, 'rate');
    const token = await issueToken(set.all[0]!, tenant.clientId, tenant.clientSecret);
    const started = Date.now();
    // 18 requests, 6 through each replica: per-replica buckets would let all 18 through.
    const answers = await Promise.all(
      Array.from({ length: 18 }, (_, i) => set.all[i % 3]!.http.get(`${P}/organization`, bearer(token))),
    );
    const seconds = (Date.now() - started) / 1000;
    const statuses = answers.map((res) => res.status);
    expect(
      statuses.filter((status) => status !== 200 && status !== 429),
      statuses.join(' '),
    ).toEqual([]);
    const allowed = statuses.filter((status) => status === 200).length;
    // The burst, plus what refilled while the requests ran (1 per second).
    expect(allowed).toBeGreaterThanOrEqual(6);
    expect(allowed).toBeLessThanOrEqual(6 + Math.ceil(seconds));
    const refused = answers.find((res) => res.status === 429)!;
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.headers['ratelimit-policy']).toBe('"per-client";q=6;w=6');
  });
});

describe('a replica started while PostgreSQL is down', () => {
  it('says it waits, retries, and serves once PostgreSQL is up, without a restart', async () => {
    const storeUrl = await pg.createDatabase();
    const filesDir = tempDir('adreport-replicas-wait-');
    dirs.push(filesDir);
    await pg.stop();
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--json', '--store', storeUrl, '--files-dir', filesDir, '--port', '0', '--host', '127.0.0.1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    try {
      await poll('the replica says it waits for PostgreSQL', () =>
        /waiting for PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+/.test(stderr) ? true : undefined,
      );
      expect(child.exitCode).toBeNull();
      await pg.start();
      const listening = await poll('the replica listens', () =>
        stdout.includes('\n') ? (JSON.parse(stdout.split('\n')[0]!) as { url: string; port: number }) : undefined,
      );
      const ca = fs.readFileSync(`${filesDir}/adreport.tls/cert.pem`, 'utf8');
      const http = new HttpClient(listening.url, ca);
      try {
        const health = await http.get('/health');
        expect(health.status).toBe(200);
      } finally {
        http.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await pg.start().catch(() => undefined);
    }
  });
});

describe('serve --store refuses a store it cannot use', () => {
  const serveWith = async (storeUrl: string) => {
    const filesDir = tempDir('adreport-replicas-bad-');
    dirs.push(filesDir);
    return runCli(['serve', '--store', storeUrl, '--files-dir', filesDir, '--port', '0', '--host', '127.0.0.1']);
  };

  it.each([
    ['a URL of another scheme', () => `mysql://postgres@127.0.0.1:${pg.port}/adreport`],
    ['a database that does not exist', () => pg.url('no_such_database')],
  ])('exits non-zero with one line on stderr for %s', async (_, url) => {
    const result = await serveWith(url());
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^adreport: /);
    expect(result.stdout).toBe('');
  });
});

describe('jobs of a replica killed -9 while it runs them', () => {
  it('are taken over by the other replicas and each ends SUCCEEDED once, with one account at the platform', async () => {
    // One replica at first, its platform slow (a minute a call): the jobs are surely RUNNING on it when it dies.
    const set = await deployment(1, {
      ADREPORT_JOB_CONCURRENCY: '4',
      ADREPORT_SANDBOX_FAULTS: JSON.stringify({ GOOGLE_ADS: { latencyMs: 60_000 } }),
    });
    const runner = set.all[0]!;
    const tenant = await createTenant(set, 'Jobs Org');
    const masterId = await linkSandboxManager(set, tenant.organizationId);
    const token = await issueToken(runner, tenant.clientId, tenant.clientSecret);
    const names = ['Takeover 1', 'Takeover 2', 'Takeover 3', 'Takeover 4'];
    const jobIds: number[] = [];
    for (const name of names) {
      const res = await postJson(runner, token, `${P}/adplatform-master-accounts/id/${masterId}/adplatform-accounts`, {
        adPlatformAccount: { name, currency: 'EUR', timeZone: 'Europe/Berlin' },
      });
      expect(res.status, res.text).toBe(202);
      jobIds.push(res.json.job.id as number);
    }
    const status = async (replica: Replica, id: number) => {
      const res = await replica.http.get(`${P}/jobs/id/${id}`, bearer(token));
      if (res.status !== 200) throw new Error(`job ${id} through ${replica.name}: ${res.status} ${res.text}`);
      return res.json.job as { status: string; result: any; attempts: number };
    };
    await poll('every job RUNNING on the slow replica', async () => {
      const statuses = await Promise.all(jobIds.map((id) => status(runner, id)));
      return statuses.every((job) => job.status === 'RUNNING') ? true : undefined;
    });

    // Two more replicas join (no slow platform); then the one running the jobs dies.
    const B = await set.start('B', { ADREPORT_SANDBOX_FAULTS: '' });
    const C = await set.start('C', { ADREPORT_SANDBOX_FAULTS: '' });
    // A replica that starts leaves alone what a live one runs (it is not a process restarting after a crash).
    const whileAlive = await Promise.all(jobIds.map((id) => status(C, id)));
    expect(whileAlive.map((job) => [job.status, job.attempts])).toEqual(jobIds.map(() => ['RUNNING', 1]));
    await runner.kill9();

    const ended = await poll(
      'every job ended after the takeover',
      async () => {
        const jobs = await Promise.all(jobIds.map((id) => status(B, id)));
        return jobs.every((job) => !['QUEUED', 'RUNNING'].includes(job.status)) ? jobs : undefined;
      },
      240_000,
      100,
    );
    expect(ended.map((job) => job.status)).toEqual(names.map(() => 'SUCCEEDED'));
    const under = (
      await C.http.get(`${P}/adplatform-master-accounts/id/${masterId}/adplatform-accounts`, bearer(token))
    ).json.adPlatformAccounts as Array<{ name: string; adPlatformId: string }>;
    ended.forEach((job, i) => {
      const ours = under.filter((account) => account.name === names[i]);
      expect(ours, names[i]).toHaveLength(1);
      expect(job.result.adPlatformAccount.adPlatformId).toBe(ours[0]!.adPlatformId);
    });
    // The platform's own record: one account per job, whichever replica ran it in the end.
    const database = new URL(set.storeUrl).pathname.slice(1);
    const atPlatform = await pg.query<{ name: string; n: string }>(
      database,
      `SELECT name, count(*) AS n FROM sandbox_created_accounts WHERE name LIKE 'Takeover %' GROUP BY name ORDER BY name`,
    );
    expect(atPlatform).toEqual(names.map((name) => ({ name, n: '1' })));
  }, 300_000);
});
