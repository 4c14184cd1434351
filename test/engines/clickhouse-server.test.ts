import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/main.js';
import { world, WORLD_FILE } from '../helpers/worlds.js';
import { startClickHouseShim, type ClickHouseShim } from '../helpers/clickhouse-http-shim.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

/**
 * `ADREPORT_CLICKHOUSE_URL`: the service talks to a ClickHouse server over HTTP (a ClickHouse
 * HTTP front over embedded ClickHouse, test/helpers/clickhouse-http-shim.ts), which then stops
 * answering and comes back.
 */
const PASSWORD = 's3cret/with:odd@chars';
let dir: string;
let shim: ClickHouseShim;
let template: string;
let org: { id: number; clientId: string; clientSecret: string };

beforeAll(async () => {
  dir = tempDir('adreport-clickhouse-server-');
  const made = await world('mid-2orgs-40d');
  template = path.join(made.dir, WORLD_FILE);
  org = made.organizations[0]!;
  shim = await startClickHouseShim(path.join(dir, 'clickhouse'), { user: 'reporter', password: PASSWORD });
});
afterAll(async () => {
  await shim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Running {
  service: RunningService;
  http: HttpClient;
  token: string;
  lines: string[];
  errors: unknown[];
}

async function start(name: string, settings: Record<string, unknown>): Promise<Running> {
  const dbPath = path.join(dir, name, 'adreport.duckdb');
  fs.mkdirSync(path.dirname(dbPath));
  fs.copyFileSync(template, dbPath);
  const lines: string[] = [];
  const errors: unknown[] = [];
  const service = await startService(
    // The page cache off: a repeated report must reach the engine.
    serviceConfigSchema.parse({
      dbPath,
      host: '127.0.0.1',
      port: 0,
      reportEngine: 'clickhouse',
      cacheMb: 0,
      ...settings,
    }),
    { logError: (entry) => errors.push(entry.error), log: (line) => lines.push(line) },
  );
  const http = new HttpClient(service.url, service.tls?.cert);
  const res = await http.request('POST', '/token', {
    headers: { authorization: basic(org.clientId, org.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  expect(res.status).toBe(200);
  return { service, http, token: res.json.access_token as string, lines, errors };
}

const QUERY = '/reporting/v0/campaigns?statistics=clicks,impressions,cost&limit=10000';

function report(r: Running, query = QUERY) {
  return r.http.get(query, { authorization: `Bearer ${r.token}` });
}

async function createAccount(r: Running, name: string) {
  return r.http.request('POST', '/provisioning/v0/accounts', {
    headers: { authorization: `Bearer ${r.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ account: { name, languageCode: 'de', countryCode: 'DE', currency: 'EUR' } }),
  });
}

async function close(r: Running) {
  r.http.close();
  await r.service.close();
}

describe('a ClickHouse server at ADREPORT_CLICKHOUSE_URL', () => {
  it('replicates over HTTP, answers from ClickHouse, 503s while it is away, catches up when it is back', async () => {
    const r = await start('unavailable', { clickhouseUrl: shim.url('adreport') });
    try {
      await r.service.clickhouse!.replicator.idle();
      const answered = await report(r);
      expect(answered.status, answered.text).toBe(200);
      expect(answered.headers['x-report-engine']).toBe('clickhouse');
      // The sums of the facts in DuckDB, per campaign.
      const oracle = await r.service.db.read((x) =>
        x.all<{ id: number; clicks: number }>(
          `SELECT campaign_id AS id, sum(clicks)::DOUBLE AS clicks FROM fact_ad_daily
            WHERE organization_id = $1 AND day >= current_date - INTERVAL 30 DAY GROUP BY ALL`,
          [org.id],
        ),
      );
      const clicks = new Map(oracle.map((row) => [Number(row.id), row.clicks]));
      for (const row of answered.json.campaigns) expect(row.statistics.clicks).toBe(clicks.get(row.id) ?? 0);

      await shim.stop();
      const away = await report(r);
      expect(away.status).toBe(503);
      expect(away.headers['retry-after']).toBe('5');
      expect(away.json.error.code).toBe('report_engine_unavailable');
      // Provisioning does not need ClickHouse; after its write the organization's reports go to DuckDB.
      const created = await createAccount(r, 'While away');
      expect(created.status, created.text).toBe(201);
      const meanwhile = await report(r, '/reporting/v0/accounts?statistics=clicks&limit=10000');
      expect(meanwhile.status, meanwhile.text).toBe(200);
      expect(meanwhile.headers['x-report-engine']).toBe('duckdb');
      expect(meanwhile.json.accounts.map((a: { name: string }) => a.name)).toContain('While away');

      await shim.start();
      await r.service.clickhouse!.replicator.idle();
      const back = await report(r, '/reporting/v0/accounts?statistics=clicks&limit=10000');
      expect(back.status, back.text).toBe(200);
      expect(back.headers['x-report-engine']).toBe('clickhouse');
      expect(back.json.accounts.map((a: { name: string }) => a.name)).toContain('While away');
      expect(back.json.accounts).toEqual(meanwhile.json.accounts);

      const everything = JSON.stringify([r.lines, r.errors.map(String), away.text]);
      expect(r.lines.some((line) => /replication failed/.test(line))).toBe(true);
      expect(everything).not.toContain(PASSWORD);
      expect(everything).not.toContain(encodeURIComponent(PASSWORD));
    } finally {
      await shim.start().catch(() => undefined);
      await close(r);
    }
  });

  it('with ADREPORT_CLICKHOUSE_FALLBACK=duckdb, DuckDB answers while ClickHouse is away', async () => {
    const r = await start('fallback', { clickhouseUrl: shim.url('adreport_fallback'), clickhouseFallback: 'duckdb' });
    try {
      await r.service.clickhouse!.replicator.idle();
      const on = await report(r);
      expect(on.headers['x-report-engine']).toBe('clickhouse');
      await shim.stop();
      const away = await report(r);
      // The first request finds ClickHouse away (503); from then on DuckDB answers.
      const next = away.status === 503 ? await report(r) : away;
      expect(next.status, next.text).toBe(200);
      expect(next.headers['x-report-engine']).toBe('duckdb');
      expect(next.json.campaigns).toEqual(on.json.campaigns);
    } finally {
      await shim.start();
      await close(r);
    }
  });

  it("a wrong password stops the start with the server's message, never the password", async () => {
    const wrong = shim.url('adreport').replace(encodeURIComponent(PASSWORD), 'not-the-password');
    const started = start('wrong-password', { clickhouseUrl: wrong });
    const error = await started.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      /ClickHouse at http:\/\/reporter:\*\*\*@127\.0\.0\.1:\d+\/adreport: .*Authentication failed/,
    );
    expect(error?.message).not.toContain('not-the-password');
  });
});
