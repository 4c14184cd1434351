import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, stopServe, type CliResult, type ServeProcess } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

/**
 * Every admin command once while `serve` holds the file (the CLI sends it over the admin socket)
 * and once with the file free (the CLI opens it itself): the same output, the same one-line
 * errors and exit codes, and through the server the effect is there at once (issue 19 item 7).
 */
let dir: string;
let db: string;
let generated: { id: number; clientId: string; clientSecret: string };

beforeAll(async () => {
  dir = tempDir('adreport-both-ways-');
  db = path.join(dir, 'adreport.duckdb');
  const result = await runCli([
    'data',
    'generate',
    '--scale',
    '0.3',
    '--days',
    '30',
    '--seed',
    '3',
    '--db',
    db,
    '--json',
  ]);
  expect(result.code, result.stderr).toBe(0);
  generated = JSON.parse(result.stdout.trim().split('\n').pop()!).organizations[0];
}, 300_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Served {
  serve: ServeProcess;
  http: HttpClient;
  token(clientId: string, clientSecret: string): Promise<{ status: number; token: string | undefined }>;
  stop(): Promise<void>;
}

async function serveOn(file: string, args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const serve = await startServe(['--db', file, ...args], env);
  const http = new HttpClient(serve.listening.url, fs.readFileSync(`${file}.tls/cert.pem`, 'utf8'));
  return {
    serve,
    http,
    async token(clientId, clientSecret) {
      const res = await http.request('POST', '/token', {
        headers: { authorization: basic(clientId, clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      });
      return { status: res.status, token: res.json?.access_token };
    },
    async stop() {
      http.close();
      expect(await stopServe(serve)).toBe(0);
    },
  };
}

function cli(...args: string[]): Promise<CliResult> {
  return runCli([...args, '--db', db]);
}

function json(result: CliResult): any {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** One after the other: with the file free, two CLI processes cannot both open it (DuckDB's lock). */
async function each(...commands: string[][]): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const args of commands) results.push(await cli(...args));
  return results;
}

/** What an operator sees of a failure: the line, the exit code, and nothing on stdout. */
function failure(result: CliResult): { code: number | null; stderr: string; stdout: string } {
  return { code: result.code, stderr: result.stderr, stdout: result.stdout };
}

describe('admin commands while serve holds the file and with the file free', () => {
  it('orgs create, clients create, list and disable: the server sees the new organization and refuses the disabled client at once', async () => {
    const served = await serveOn(db);
    let listedThrough: CliResult;
    let errorsThrough: CliResult[];
    try {
      const organization = json(await cli('orgs', 'create', '--name', 'Through the socket', '--json')).organization;
      expect(organization).toEqual({ id: 2, name: 'Through the socket' });
      const client = json(await cli('clients', 'create', '--org', '2', '--name', 'ops', '--json'));
      expect(client).toEqual({
        clientId: expect.stringMatching(/^adr_/),
        clientSecret: expect.any(String),
        organizationId: 2,
        scopes: ['provisioning', 'reporting'],
      });
      // The server knows both at once: the new client gets a token and sees its organization.
      const { status, token } = await served.token(client.clientId, client.clientSecret);
      expect(status).toBe(200);
      const auth = { authorization: `Bearer ${token}` };
      expect((await served.http.get('/provisioning/v0/organization', auth)).json).toEqual({ organization });

      const disabled = json(await cli('clients', 'disable', '--client-id', client.clientId, '--json')).client;
      expect(disabled).toMatchObject({
        clientId: client.clientId,
        organizationId: 2,
        disabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      // Not within the 15 s refresh: on the very next request.
      const refused = await served.http.get('/provisioning/v0/organization', auth);
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe('invalid_token');
      expect((await served.token(client.clientId, client.clientSecret)).status).toBe(401);

      listedThrough = await cli('clients', 'list', '--org', '2', '--json');
      expect(json(listedThrough).clients).toEqual([{ ...disabled, name: 'ops' }]);
      errorsThrough = await each(
        ['clients', 'list', '--org', '99'],
        ['clients', 'create', '--org', '99'],
        ['clients', 'disable', '--client-id', 'adr_nope'],
        ['orgs', 'create', '--name', ' '],
      );
    } finally {
      await served.stop();
    }
    // The same bytes with the file free.
    expect((await cli('clients', 'list', '--org', '2', '--json')).stdout).toBe(listedThrough.stdout);
    const errorsHere = await each(
      ['clients', 'list', '--org', '99'],
      ['clients', 'create', '--org', '99'],
      ['clients', 'disable', '--client-id', 'adr_nope'],
      ['orgs', 'create', '--name', ' '],
    );
    expect(errorsHere.map(failure)).toEqual(errorsThrough.map(failure));
    expect(errorsHere.map((e) => [e.code, e.stderr])).toEqual([
      [1, 'adreport: organization 99 does not exist\n'],
      [1, 'adreport: organization 99 does not exist\n'],
      [1, 'adreport: client adr_nope does not exist\n'],
      [2, 'adreport: --name must be 1-200 characters\n'],
    ]);
    expect(json(await cli('orgs', 'create', '--name', 'Here', '--json'))).toEqual({
      organization: { id: 3, name: 'Here' },
    });
  }, 300_000);

  it('clients create prints the secret warning on stderr both ways (not with --json)', async () => {
    const served = await serveOn(db);
    let through: CliResult;
    try {
      through = await cli('clients', 'create', '--org', '1');
    } finally {
      await served.stop();
    }
    const here = await cli('clients', 'create', '--org', '1');
    for (const result of [through, here]) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('Store the secret now: only its hash is kept, it cannot be shown again.\n');
      expect(Object.keys(JSON.parse(result.stdout))).toEqual(['clientId', 'clientSecret', 'organizationId', 'scopes']);
    }
  }, 300_000);

  it('master-accounts link: the API lists the new master at once; errors are the same line and exit code both ways', async () => {
    const served = await serveOn(db);
    let errorsThrough: CliResult[];
    try {
      const linked = json(
        await cli(
          'master-accounts',
          'link',
          '--org',
          String(generated.id),
          '--platform',
          'GOOGLE_ADS',
          '--platform-id',
          '987-654-3210',
          '--name',
          'Via socket',
          '--json',
        ),
      );
      expect(linked).toEqual({
        adPlatformMasterAccount: {
          id: expect.any(Number),
          name: 'Via socket',
          adPlatformType: 'GOOGLE_ADS',
          adPlatformId: '987-654-3210',
          kind: 'MANAGER',
        },
      });
      const { token } = await served.token(generated.clientId, generated.clientSecret);
      const masters = (
        await served.http.get('/provisioning/v0/adplatform-master-accounts', { authorization: `Bearer ${token}` })
      ).json.adPlatformMasterAccounts;
      expect(masters).toContainEqual(linked.adPlatformMasterAccount);
      errorsThrough = await each(
        [
          'master-accounts',
          'link',
          '--org',
          String(generated.id),
          '--platform',
          'GOOGLE_ADS',
          '--platform-id',
          '987-654-3210',
        ],
        ['master-accounts', 'link', '--org', String(generated.id), '--platform', 'FACEBOOK', '--platform-id', 'act_1'],
        ['master-accounts', 'link', '--org', '99', '--platform', 'GOOGLE_ADS', '--platform-id', '111-222-3333'],
        ['master-accounts', 'link', '--org', '1', '--platform', 'TIKTOK', '--platform-id', '1'],
      );
    } finally {
      await served.stop();
    }
    const errorsHere = await each(
      [
        'master-accounts',
        'link',
        '--org',
        String(generated.id),
        '--platform',
        'GOOGLE_ADS',
        '--platform-id',
        '987-654-3210',
      ],
      ['master-accounts', 'link', '--org', String(generated.id), '--platform', 'FACEBOOK', '--platform-id', 'act_1'],
      ['master-accounts', 'link', '--org', '99', '--platform', 'GOOGLE_ADS', '--platform-id', '111-222-3333'],
      ['master-accounts', 'link', '--org', '1', '--platform', 'TIKTOK', '--platform-id', '1'],
    );
    expect(errorsHere.map(failure)).toEqual(errorsThrough.map(failure));
    expect(errorsHere.map((e) => e.code)).toEqual([1, 1, 1, 2]);
    expect(errorsHere[0]!.stderr).toMatch(/already linked to organization 1 as master account/);
    const here = json(
      await cli(
        'master-accounts',
        'link',
        '--org',
        String(generated.id),
        '--platform',
        'MICROSOFT_ADVERTISING',
        '--platform-id',
        '7654321',
        '--json',
      ),
    );
    expect(here).toEqual({
      adPlatformMasterAccount: {
        id: expect.any(Number),
        name: expect.any(String),
        adPlatformType: 'MICROSOFT_ADVERTISING',
        adPlatformId: '7654321',
        kind: 'RESELLER',
      },
    });
  }, 300_000);

  it("export: the file holds the HTTP export's bytes both ways; the bar shows, --out - works, failures leave nothing", async () => {
    const org = String(generated.id);
    const query = 'segments=Day,DeviceType&sort=id';
    // The same command through the server and with the file free: its output must match.
    const ndjsonToStdout = [
      'export',
      '--org',
      org,
      '--endpoint',
      'keywords',
      '--query',
      query,
      '--format',
      'ndjson',
      '--out',
      '-',
      '--json',
    ];
    const through = path.join(dir, 'through.ndjson');
    const served = await serveOn(db);
    let summaryThrough: Record<string, unknown>;
    let httpBody: Buffer;
    let stdoutThrough: string;
    let refusedThrough: CliResult[];
    try {
      const result = await cli(
        'export',
        '--org',
        org,
        '--endpoint',
        'keywords',
        '--query',
        query,
        '--out',
        through,
        '--json',
      );
      summaryThrough = json(result);
      expect(result.stderr).toMatch(/export keywords ndjson \[#+\] 100%/);
      const { token } = await served.token(generated.clientId, generated.clientSecret);
      const viaHttp = await served.http.get(`/reporting/v0/keywords?${query}&format=ndjson`, {
        authorization: `Bearer ${token}`,
      });
      expect(viaHttp.status).toBe(200);
      httpBody = Buffer.from(viaHttp.text, 'utf8');
      // Many frames of the channel, and more than its buffers hold (the next test needs that).
      expect(httpBody.length).toBeGreaterThan(4_000_000);
      expect(fs.readFileSync(through).equals(httpBody)).toBe(true);
      const lines = httpBody.toString('utf8').trimEnd().split('\n');
      expect(summaryThrough).toMatchObject({
        file: through,
        format: 'ndjson',
        endpoint: 'keywords',
        rows: lines.length,
        bytes: httpBody.length,
      });

      const toStdout = await cli(...ndjsonToStdout);
      expect(toStdout.code, toStdout.stderr).toBe(0);
      stdoutThrough = toStdout.stdout;
      expect(stdoutThrough.startsWith(httpBody.toString('utf8'))).toBe(true);

      refusedThrough = await each(
        ['export', '--org', org, '--endpoint', 'keywords', '--out', through],
        ['export', '--org', '99', '--endpoint', 'keywords', '--out', path.join(dir, 'none.csv')],
        [
          'export',
          '--org',
          org,
          '--endpoint',
          'keywords',
          '--query',
          'statistics=bogus',
          '--out',
          path.join(dir, 'none.csv'),
        ],
      );
      expect(refusedThrough.map((r) => r.code)).toEqual([1, 1, 2]);
    } finally {
      await served.stop();
    }
    const here = path.join(dir, 'here.ndjson');
    const summaryHere = json(
      await cli('export', '--org', org, '--endpoint', 'keywords', '--query', query, '--out', here, '--json'),
    );
    expect(fs.readFileSync(here).equals(httpBody)).toBe(true);
    expect({ ...summaryHere, file: through, seconds: 0 }).toEqual({ ...summaryThrough, seconds: 0 });
    const toStdoutHere = await cli(...ndjsonToStdout);
    const withoutSeconds = (text: string) => text.replace(/"seconds":[0-9.]+/, '"seconds":0');
    expect(withoutSeconds(toStdoutHere.stdout)).toBe(withoutSeconds(stdoutThrough));
    const refusedHere = await each(
      ['export', '--org', org, '--endpoint', 'keywords', '--out', through],
      ['export', '--org', '99', '--endpoint', 'keywords', '--out', path.join(dir, 'none.csv')],
      [
        'export',
        '--org',
        org,
        '--endpoint',
        'keywords',
        '--query',
        'statistics=bogus',
        '--out',
        path.join(dir, 'none.csv'),
      ],
    );
    expect(refusedHere.map(failure)).toEqual(refusedThrough.map(failure));
    expect(refusedHere[1]!.stderr).toBe('adreport: organization 99 does not exist\n');
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('none') || name.endsWith('.partial'))).toEqual([]);
  }, 300_000);

  it('an export whose client stops reading holds its export slot only until the client goes away', async () => {
    const served = await serveOn(db, [], { ADREPORT_EXPORTS_MAX_CONCURRENT: '1' });
    try {
      const { token } = await served.token(generated.clientId, generated.clientSecret);
      const viaHttp = () =>
        served.http.get(`/reporting/v0/keywords?segments=Day&format=csv`, { authorization: `Bearer ${token}` });
      const socket = net.createConnection({ path: served.serve.listening.adminSocket });
      const input = {
        organizationId: generated.id,
        endpoint: 'keywords',
        query: 'segments=Day,DeviceType',
        format: 'ndjson',
        now: new Date().toISOString(),
      };
      socket.write(`${JSON.stringify({ version: 1, command: 'export', input })}\n`);
      let received = 0;
      await new Promise<void>((resolve) =>
        socket.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > 100_000) {
            socket.pause();
            resolve();
          }
        }),
      );
      // Stalled: the server's writes wait for the socket, and the one export slot stays taken.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await viaHttp()).status).toBe(503);
      const cliWhileBusy = await cli(
        'export',
        '--org',
        String(generated.id),
        '--endpoint',
        'campaigns',
        '--out',
        path.join(dir, 'busy.csv'),
      );
      expect(cliWhileBusy.code).toBe(1);
      // One slot in all makes the organization's own limit 1 too: that is the reason given.
      expect(cliWhileBusy.stderr).toMatch(
        /^adreport: the organization runs as many exports as it may at once \(ADREPORT_EXPORTS_MAX_PER_ORGANIZATION\); try again in 5 s\n$/,
      );
      // Another organization is within its own limit, but the one slot of the service is taken.
      const other = json(await cli('orgs', 'create', '--name', 'Other tenant', '--json')).organization;
      const otherWhileBusy = await cli(
        'export',
        '--org',
        String(other.id),
        '--endpoint',
        'campaigns',
        '--out',
        path.join(dir, 'busy-other.csv'),
      );
      expect(otherWhileBusy.code).toBe(1);
      expect(otherWhileBusy.stderr).toMatch(
        /^adreport: the server runs as many exports as it allows at once \(ADREPORT_EXPORTS_MAX_CONCURRENT\); try again in 5 s\n$/,
      );
      expect(fs.readdirSync(dir).filter((name) => name.startsWith('busy'))).toEqual([]);
      socket.destroy();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await viaHttp()).status;
      }
      expect(status).toBe(200);
    } finally {
      await served.stop();
    }
  }, 300_000);

  it('fx import: through the server its reports convert with the imported rate at once; with the file free the same output', async () => {
    const served = await serveOn(db);
    let through: Record<string, any>;
    try {
      const { token } = await served.token(generated.clientId, generated.clientSecret);
      const auth = { authorization: `Bearer ${token}` };
      const report = async (query: string) => {
        const res = await served.http.get(
          `/reporting/v0/adplatform-accounts?statistics=cost&limit=1000&${query}`,
          auth,
        );
        expect(res.status, res.text).toBe(200);
        return res.json.adPlatformAccounts as Array<{ id: number; currency: string; statistics: { cost: number } }>;
      };
      // A platform account with cost on a recent day; the rate imported is that of the non-EUR currency of the pair.
      const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
      const own = (await report(`startDate=${day}&endDate=${day}`)).find((row) => row.statistics.cost > 0)!;
      expect(own, 'a platform account with cost').toBeDefined();
      const target = own.currency === 'EUR' ? 'USD' : 'EUR';
      const imported = own.currency === 'EUR' ? 'USD' : own.currency;
      const file = path.join(dir, 'rates.csv');
      fs.writeFileSync(file, `date,currency,unitsPerEur\n${day},${imported},2.5\n`);
      const result = await runCli(['fx', 'import', file, '--db', db, '--json']);
      expect(result.code, result.stderr).toBe(0);
      through = JSON.parse(result.stdout);
      expect(through.imported).toMatchObject({ rates: 1, currencies: [imported], from: day, to: day });
      const converted = (
        await report(`startDate=${day}&endDate=${day}&currency=${target}&filter=id%20%3D%3D%20${own.id}`)
      )[0]!;
      const expected = own.currency === 'EUR' ? own.statistics.cost * 2.5 : own.statistics.cost / 2.5;
      expect(Math.abs(converted.statistics.cost - expected)).toBeLessThan(1e-5);
    } finally {
      await served.stop();
    }
    const file = path.join(dir, 'rates.csv');
    const here = JSON.parse((await runCli(['fx', 'import', file, '--db', db, '--json'])).stdout);
    expect(here).toEqual(through);
  }, 300_000);

  it("sync: through the server its jobs run on the server's runner and come back as {jobs}; with the file free the same shape", async () => {
    const syncDir = tempDir('adreport-both-ways-sync-');
    const syncDb = path.join(syncDir, 'adreport.duckdb');
    // The server's trailing window is 5 days; the CLI's environment has none (its default is 30).
    const env = { ADREPORT_STATISTICS_BACKFILL_DAYS: '10', ADREPORT_STATISTICS_TRAILING_DAYS: '5' };
    const served = await serveOn(syncDb, ['--demo'], env);
    let through: Array<Record<string, any>>;
    let campaigns: number;
    try {
      const demo = served.serve.listening.demo!;
      const { token } = await served.token(demo.clientId, demo.clientSecret);
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const P = '/provisioning/v0';
      const master = (
        await served.http.get(`${P}/adplatform-master-accounts`, auth)
      ).json.adPlatformMasterAccounts.find((m: { adPlatformType: string }) => m.adPlatformType === 'GOOGLE_ADS');
      const under = (await served.http.get(`${P}/adplatform-master-accounts/id/${master.id}/adplatform-accounts`, auth))
        .json.adPlatformAccounts;
      const account = (
        await served.http.request('POST', `${P}/accounts`, {
          headers: auth,
          body: JSON.stringify({ account: { name: 'Sync', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } }),
        })
      ).json.account;
      const link = await served.http.request('POST', `${P}/accounts/id/${account.id}/adplatform-accounts`, {
        headers: auth,
        body: JSON.stringify({
          adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: under[0].adPlatformId },
        }),
      });
      expect(link.status, link.text).toBe(201);
      expect(
        (
          await served.http.request('PATCH', `${P}/accounts/id/${account.id}`, {
            headers: auth,
            body: JSON.stringify({ account: { autoImport: true } }),
          })
        ).status,
      ).toBe(200);
      // The import the PATCH queued, and its backfill, run on the server first.
      for (let i = 0; i < 600; i++) {
        const jobs = (await served.http.get(`${P}/jobs?limit=100`, auth)).json.jobs as Array<{ status: string }>;
        if (jobs.length > 0 && jobs.every((job) => job.status !== 'QUEUED' && job.status !== 'RUNNING')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      campaigns = Number((await served.http.get(`${P}/campaigns?limit=1`, auth)).headers['x-totalcount']);
      expect(campaigns).toBeGreaterThan(0);

      const result = await runCli(['sync', '--org', '1', '--db', syncDb]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('sync: 1 AUTO_IMPORT and 1 SYNC_STATISTICS job(s) queued\n');
      through = JSON.parse(result.stdout).jobs;
      expect(through.map((job) => [job.type, job.status])).toEqual([
        ['AUTO_IMPORT', 'SUCCEEDED'],
        ['SYNC_STATISTICS', 'SUCCEEDED'],
      ]);
      expect(through[0]!.result.imported).toEqual([]);
      const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
      expect(through[1]).toMatchObject({
        input: { adPlatformAccountId: link.json.adPlatformAccount.id, from: day(5), to: day(0) },
        result: { status: 'SYNCED', campaigns },
      });
      // The server ran them: its API shows each job as the command printed it.
      for (const job of through) expect((await served.http.get(`${P}/jobs/id/${job.id}`, auth)).json.job).toEqual(job);
    } finally {
      await served.stop();
    }
    try {
      const here = JSON.parse((await runCli(['sync', '--org', '1', '--days', '5', '--db', syncDb, '--json'])).stdout)
        .jobs as Array<Record<string, any>>;
      const shape = (jobs: Array<Record<string, any>>) =>
        jobs.map((job) => ({
          keys: Object.keys(job),
          type: job.type,
          status: job.status,
          input: job.input,
          result: job.result,
        }));
      expect(shape(here)).toEqual(shape(through));
      expect(here[0]!.id).toBeGreaterThan(through[1]!.id);
    } finally {
      fs.rmSync(syncDir, { recursive: true, force: true });
    }
  }, 300_000);
});
