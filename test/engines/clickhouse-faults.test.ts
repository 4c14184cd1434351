import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { runCli, startServe, stopServe, type ServeProcess } from '../helpers/cli.js';
import { copyWorld } from '../helpers/worlds.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

/**
 * Faults of the ClickHouse engine: a replication killed half-way (kill -9 of the server), a
 * replica of another schema, a ClickHouse that does not answer (with a password in its URL).
 */
let dir: string;
let dbFile: string;
let orgs: Array<{ id: number; clientId: string; clientSecret: string }>;

beforeAll(async () => {
  dir = tempDir('adreport-clickhouse-faults-');
  dbFile = path.join(dir, 'adreport.duckdb');
  orgs = [...(await copyWorld('long-2orgs-120d', dir)).organizations];
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The self-signed certificate `serve` made beside the file. */
const ca = () => fs.readFileSync(`${dbFile}.tls/cert.pem`, 'utf8');

async function tokenOf(http: HttpClient, org: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await http.request('POST', '/token', {
    headers: { authorization: basic(org.clientId, org.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  expect(res.status, res.text).toBe(200);
  return res.json.access_token as string;
}

/** Lines of the serve process's log (JSON lines on stderr) whose message matches. */
function logged(serve: ServeProcess, pattern: RegExp): string[] {
  return serve
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { message?: string }).message ?? '')
    .filter((message) => pattern.test(message));
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('replication killed half-way', () => {
  it('resumes after kill -9: what was copied stays, the rest is copied, and reports move to ClickHouse', async () => {
    const first = await startServe(['--db', dbFile, '--report-engine', 'clickhouse']);
    const copiedBeforeKill = await until('the first organization replicated', () => {
      const lines = logged(first, /^clickhouse: organization \d+ replicated/);
      return lines.length > 0 ? lines : undefined;
    });
    first.child.kill('SIGKILL');
    await first.exited;
    const doneBeforeKill = copiedBeforeKill.map((line) => Number(/organization (\d+)/.exec(line)![1]));

    const second = await startServe(['--db', dbFile, '--report-engine', 'clickhouse']);
    try {
      const http = new HttpClient(second.listening.url, ca());
      const tokens = await Promise.all(orgs.map((org) => tokenOf(http, org)));
      const query = '/reporting/v0/campaigns?statistics=clicks,cost&limit=10000';
      // Every organization ends on ClickHouse.
      for (const token of tokens) {
        await until('reports on ClickHouse', async () => {
          const res = await http.get(query, { authorization: `Bearer ${token}` });
          return res.headers['x-report-engine'] === 'clickhouse' ? true : undefined;
        });
      }
      // An organization copied before the kill is not copied again; the others are.
      const copiedAfter = logged(second, /^clickhouse: organization \d+ replicated/).map((line) =>
        Number(/organization (\d+)/.exec(line)![1]),
      );
      for (const id of doneBeforeKill) expect(copiedAfter).not.toContain(id);
      expect(copiedAfter.length, 'the kill came after everything was copied').toBeGreaterThan(0);
      expect(new Set([...doneBeforeKill, ...copiedAfter])).toEqual(new Set(orgs.map((o) => o.id)));
      const onClickHouse = await Promise.all(tokens.map((t) => http.get(query, { authorization: `Bearer ${t}` })));
      http.close();
      expect(await stopServe(second)).toBe(0);

      // The same reports from DuckDB over the same file: equal.
      const third = await startServe(['--db', dbFile]);
      const duck = new HttpClient(third.listening.url, ca());
      for (const [i, org] of orgs.entries()) {
        const res = await duck.get(query, { authorization: `Bearer ${await tokenOf(duck, org)}` });
        expect(res.headers['x-report-engine']).toBe('duckdb');
        expect(onClickHouse[i]!.json.campaigns.length).toBe(res.json.campaigns.length);
        for (const [j, row] of res.json.campaigns.entries()) {
          const other = onClickHouse[i]!.json.campaigns[j];
          expect(other.id).toBe(row.id);
          expect(other.statistics.clicks).toBe(row.statistics.clicks);
          expect(other.statistics.cost).toBeCloseTo(row.statistics.cost, 6);
        }
      }
      duck.close();
      expect(await stopServe(third)).toBe(0);
    } finally {
      if (second.child.exitCode === null) second.child.kill('SIGKILL');
    }
  });
});

describe('a replica of another schema', () => {
  it('stops the start with a message that says what to do', async () => {
    // The replica made above says which schema made it; another one is recorded after it.
    const { Session } = await import('chdb');
    const session = new Session(path.join(dir, 'clickhouse', 'data'));
    await session.queryAsync(
      "INSERT INTO adreport_schema VALUES ('0123456789abcdef', '0.0.1', now64(3) + INTERVAL 1 SECOND)",
    );
    session.close();
    const started = await runCli(['serve', '--json', '--port', '0', '--db', dbFile, '--report-engine', 'clickhouse']);
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/holds tables of another schema \(0123456789abcdef, made by adreport 0\.0\.1\)/);
    expect(started.stderr).toMatch(/Drop database default there \(embedded: delete the directory\)/);
  });
});

describe('ClickHouse unreachable', () => {
  it('serves reports from DuckDB, provisioning works, and the password shows nowhere', async () => {
    const password = 'pa55-w0rd-never-logged';
    const lines: string[] = [];
    const errors: unknown[] = [];
    const copy = path.join(tempDir('adreport-clickhouse-away-'), 'adreport.duckdb');
    fs.copyFileSync(dbFile, copy);
    const service = await startService(
      serviceConfigSchema.parse({
        dbPath: copy,
        host: '127.0.0.1',
        port: 0,
        reportEngine: 'clickhouse',
        // Port 9 (discard) on loopback: nothing listens, the connection is refused.
        clickhouseUrl: `http://reporter:${password}@127.0.0.1:9/adreport`,
      }),
      { logError: (entry) => errors.push(entry.error), log: (line) => lines.push(line) },
    );
    try {
      const http = new HttpClient(service.url, service.tls?.cert);
      const token = await tokenOf(http, orgs[0]!);
      const report = await http.get('/reporting/v0/campaigns?statistics=clicks', { authorization: `Bearer ${token}` });
      expect(report.status, report.text).toBe(200);
      expect(report.headers['x-report-engine']).toBe('duckdb');
      const created = await http.request('POST', '/provisioning/v0/accounts', {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ account: { name: 'Away', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } }),
      });
      expect(created.status, created.text).toBe(201);
      await until('a failed replication attempt logged', () =>
        lines.some((line) => /replication failed/.test(line)) ? true : undefined,
      );
      http.close();
      const everything = JSON.stringify([
        lines,
        errors.map((e) => (e instanceof Error ? `${e.message} ${e.stack}` : e)),
      ]);
      expect(everything).toContain('reporter:***@127.0.0.1:9');
      expect(everything).not.toContain(password);
    } finally {
      await service.close();
      fs.rmSync(path.dirname(copy), { recursive: true, force: true });
    }
  });
});

describe('bad settings', () => {
  it('an unknown engine or a URL that is none stops serve with exit 2 and the setting named', async () => {
    const engine = await runCli([
      'serve',
      '--port',
      '0',
      '--db',
      path.join(dir, 'never.duckdb'),
      '--report-engine',
      'oracle',
    ]);
    expect(engine.code).toBe(2);
    expect(engine.stderr).toMatch(/invalid setting reportEngine/);
    const url = await runCli(
      ['serve', '--port', '0', '--db', path.join(dir, 'never.duckdb'), '--report-engine', 'clickhouse'],
      {
        ADREPORT_CLICKHOUSE_URL: 'clickhouse.example:8443',
      },
    );
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/invalid setting clickhouseUrl: must be an http\(s\) URL/);
    expect(fs.existsSync(path.join(dir, 'never.duckdb'))).toBe(false);
  });
});
