import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { BREAKDOWN_SOURCES } from '../../src/catalog/fact-sources.js';
import { FactTopology, parseShardUrls } from '../../src/clickhouse/facts/fact-topology.js';
import { monthsBetween, rewritePartitions } from '../../src/clickhouse/facts/partition-writer.js';
import { BREAKDOWN_PROFILES } from '../../src/platforms/breakdown-profiles.js';
import type { AdPlatformType } from '../../src/shared/ad-platforms.js';
import { addDays } from '../../src/shared/dates.js';
import { rewriteRollups } from '../../src/statistics/rollups.js';
import { searchTermsFrom } from '../../src/statistics/search-terms.js';
import { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { runCli, startServe, stopServe } from '../helpers/cli.js';
import {
  clickhouseFactsDeployment,
  shardUrlsOf,
  type FactsDeployment,
} from '../helpers/clickhouse-facts-deployment.js';
import { poll } from '../helpers/poll.js';
import { factsClusterEnvironment } from '../helpers/facts-cluster-environment.js';
import { basic, FORM, HttpClient, type HttpResponse } from '../helpers/http.js';
import type { TestCluster } from '../helpers/clickhouse-cluster.js';
import { copyWorld, WORLD_FILE } from '../helpers/worlds.js';

/**
 * Issue 38 item 3, the behaviour of the scale-out deployment over the wire: two replicas of the
 * bin on PostgreSQL, facts on a real 2 x 2 ClickHouse cluster (chDB nodes), world
 * small-2orgs-30d (organization 1 on shard 2, organization 2 on shard 1: (K mod 2) + 1). What a
 * report may read, where it runs, and what it answers while replicas and shards are away.
 */
const environment = factsClusterEnvironment();
let cluster: TestCluster;
let deployment: FactsDeployment;

let asked = 0;

/**
 * The same report each time but for its page size (the rows are fewer than any of them): a
 * request a replica's page cache has not seen, so it runs on ClickHouse.
 */
function report(org: number, replica = 0): Promise<HttpResponse> {
  const r = deployment.replicas.all[replica]!;
  const path = `/reporting/v0/campaigns?statistics=impressions,clicks,cost&segments=Month&totals=true&limit=${9000 - ++asked}`;
  return r.http.request('GET', path, { headers: { authorization: `Bearer ${deployment.tokens[org]}` } });
}

/** Queries each node has run so far (system.events SelectQuery): where a report went. */
async function selectsPerNode(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const node of cluster.nodes) {
    const [row] = await cluster.query<{ n: string }>(
      node.shard,
      node.replica,
      "SELECT value AS n FROM system.events WHERE event = 'SelectQuery'",
    );
    counts.set(`s${node.shard}r${node.replica}`, Number(row?.n ?? 0));
  }
  return counts;
}

/** A token from a bare `serve` process, over HTTPS verified against the files directory's certificate. */
async function tokenFrom(url: string, clientId: string, clientSecret: string, files: string): Promise<string> {
  const http = new HttpClient(url, fs.readFileSync(path.join(files, 'adreport.tls', 'cert.pem'), 'utf8'));
  try {
    const res = await http.request('POST', '/token', {
      headers: { authorization: basic(clientId, clientSecret), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    });
    expect(res.status, res.text).toBe(200);
    return res.json.access_token as string;
  } finally {
    http.close();
  }
}

async function getJson(url: string, pathAndQuery: string, token: string, files: string): Promise<any> {
  const http = new HttpClient(url, fs.readFileSync(path.join(files, 'adreport.tls', 'cert.pem'), 'utf8'));
  try {
    const res = await http.request('GET', pathAndQuery, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, res.text).toBe(200);
    return res.json;
  } finally {
    http.close();
  }
}

beforeAll(async () => {
  const ready = await environment.ready();
  cluster = ready.cluster;
  deployment = await clickhouseFactsDeployment(ready.pg, ready.cluster, { replicas: 2 }).start({
    world: 'small-2orgs-30d',
    rollups: true,
    edit: async () => undefined,
  });
}, 600_000);

afterAll(async () => {
  await deployment?.close();
  await environment.close();
}, 120_000);

describe('facts on a 2 x 2 ClickHouse cluster behind PostgreSQL', () => {
  it('answers reports from ClickHouse, the same on every replica of the service', async () => {
    const a = await report(0, 0);
    const b = await report(0, 1);
    expect(a.status, a.text).toBe(200);
    expect(a.headers['x-report-engine']).toBe('clickhouse');
    expect(a.json.campaigns.length).toBeGreaterThan(0);
    expect(b.text).toBe(a.text);
  });

  it('reflects a write acknowledged by one replica in the next report on another (read-your-writes, no wait)', async () => {
    const auth = { authorization: `Bearer ${deployment.tokens[0]}` };
    const [a, b] = deployment.replicas.all;
    const accountsReport = '/reporting/v0/accounts?statistics=clicks&limit=500';
    const before = await b!.http.request('GET', accountsReport, { headers: auth });
    expect(before.status, before.text).toBe(200);
    const account = before.json.accounts[0] as { id: number; name: string };
    const current = await a!.http.request('GET', `/provisioning/v0/accounts/id/${account.id}`, { headers: auth });
    const renamed = `${account.name} (renamed on A)`;
    const patched = await a!.http.request('PATCH', `/provisioning/v0/accounts/id/${account.id}`, {
      headers: {
        ...auth,
        'content-type': 'application/merge-patch+json',
        'if-match': String(current.headers.etag),
      },
      body: JSON.stringify({ account: { name: renamed } }),
    });
    expect(patched.status, patched.text).toBe(200);
    const after = await b!.http.request('GET', accountsReport, { headers: auth });
    expect(after.status).toBe(200);
    expect(after.json.accounts.find((row: { id: number }) => row.id === account.id).name).toBe(renamed);
    // B's page cache and validator moved with A's write: the old ETag is no longer current.
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const revalidated = await b!.http.request('GET', accountsReport, {
      headers: { ...auth, 'if-none-match': String(before.headers.etag) },
    });
    expect(revalidated.status).toBe(200);
  });

  it("runs a one-organization report on one node of the organization's shard only", async () => {
    const orgId = deployment.organizations[0]!.id;
    const shard = (orgId % 2) + 1;
    await report(0);
    const before = await selectsPerNode();
    const answer = await report(0);
    expect(answer.status).toBe(200);
    const after = await selectsPerNode();
    // The counting queries themselves are one SelectQuery per node: anything more is the report.
    const ran = [...after].filter(([node, n]) => n - before.get(node)! > 1).map(([node]) => node);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(new RegExp(`^s${shard}r[12]$`));
  });

  it("keeps answering, unchanged, when one replica of a shard is killed; 503 when the whole shard is; other shards' organizations are served", async () => {
    const orgId = deployment.organizations[0]!.id;
    const shard = (orgId % 2) + 1;
    const other = deployment.organizations.findIndex((o) => (o.id % 2) + 1 !== shard);
    expect(other).toBeGreaterThanOrEqual(0);
    const reference = await report(0);
    const otherReference = await report(other);
    expect(otherReference.status).toBe(200);

    await cluster.kill(shard, 1);
    const failedOver = await report(0);
    expect(failedOver.status, failedOver.text).toBe(200);
    expect(failedOver.text).toBe(reference.text);

    await cluster.kill(shard, 2);
    const away = await report(0);
    expect(away.status, away.text).toBe(503);
    expect(away.json.error.code).toBe('report_engine_unavailable');
    expect(Number(away.headers['retry-after'])).toBeGreaterThan(0);
    const served = await report(other);
    expect(served.status).toBe(200);
    expect(served.text).toBe(otherReference.text);

    await cluster.restart(shard, 1);
    await cluster.restart(shard, 2);
    const back = await report(0);
    expect(back.status, back.text).toBe(200);
    expect(back.text).toBe(reference.text);
    expect(deployment.errors).toEqual([]);
  });
});

/** A number as text without trailing zeros (DuckDB writes DECIMAL(18,6) with its six places, ClickHouse without). */
const numberText = (value: unknown) =>
  String(value)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');

describe('breakdowns and search terms written in ClickHouse (issue 40)', () => {
  it("are DuckDB's rows for the same facts: a window of each platform rewritten by both writers, rows before the retention dropped", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-facts-breakdowns-'));
    await copyWorld('small-2orgs-30d', dir);
    const duckdb = await Database.open(path.join(dir, WORLD_FILE), { readConnections: 1, maxQueued: 16 });
    // The deployment's nodes, whose tables its replicas made.
    const topology = await FactTopology.connect(parseShardUrls(deployment.shardUrls), {
      clustered: true,
      cluster: cluster.cluster,
    });
    /** The facts of `table` in the window, as the ClickHouse writer takes them. */
    const factRows = (table: string, organizationId: number, account: number, from: string, to: string) =>
      duckdb.read((r) =>
        r.all<Record<string, unknown>>(
          `SELECT * REPLACE (strftime(day, '%Y-%m-%d') AS day, device::VARCHAR AS device, network::VARCHAR AS network,
                  cost::VARCHAR AS cost, conversions::VARCHAR AS conversions, conversion_value::VARCHAR AS conversion_value,
                  call_conversions_fractional::VARCHAR AS call_conversions_fractional)
             FROM ${table} WHERE organization_id = $1 AND adplatform_account_id = $2 AND day BETWEEN $3::DATE AND $4::DATE`,
          [organizationId, account, from, to],
        ),
      );
    /** A table's rows of the organization as sorted text, its numbers without trailing zeros. */
    const duckdbRows = async (table: string, organizationId: number) => {
      const columns = await columnsOf(table);
      const rows = await duckdb.read((r) =>
        r.all<Record<string, unknown>>(
          `SELECT ${columns.map((c) => `CAST("${c}" AS VARCHAR) AS "${c}"`).join(', ')} FROM ${table} WHERE organization_id = $1`,
          [organizationId],
        ),
      );
      return rows.map((row) => columns.map((c) => numberText(row[c])).join('|')).sort();
    };
    const clickhouseRows = async (table: string, organizationId: number, replica: number) => {
      const columns = await columnsOf(table);
      const rows = await cluster.query<Record<string, unknown>>(
        (organizationId % 2) + 1,
        replica,
        `SELECT ${columns.map((c, i) => `toString(\`${c}\`) AS c${i}`).join(', ')} FROM ${deployment.database}.${table}_local
          WHERE organization_id = ${organizationId}`,
      );
      return rows.map((row) => columns.map((_, i) => numberText(row[`c${i}`])).join('|')).sort();
    };
    const columnsOf = async (table: string) =>
      (
        await duckdb.read((r) =>
          r.all<{ name: string }>(
            `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
            [table],
          ),
        )
      ).map((c) => c.name);
    try {
      await migrate(duckdb);
      const platforms = new Set<AdPlatformType>();
      const compared = new Map<string, number>();
      // Both organizations (both shards), a platform account of each platform of theirs (the world's are FACEBOOK and GOOGLE_ADS).
      for (const [o, { id: organizationId }] of deployment.organizations.entries()) {
        const days = await duckdb.read((r) =>
          r.one<{ first: string; last: string }>(
            `SELECT strftime(min(day), '%Y-%m-%d') AS first, strftime(max(day), '%Y-%m-%d') AS last FROM fact_ad_daily WHERE organization_id = $1`,
            [organizationId],
          ),
        );
        // A window inside the data; the first organization keeps its hours from a day inside it (and
        // no search terms: they are kept 90 days less), the second its search terms (and every hour).
        const [from, to] = [addDays(days!.first, 5), addDays(days!.last, -2)];
        const hoursFrom = o === 0 ? addDays(days!.first, 9) : addDays(days!.first, 9 - 90);
        const accounts = await duckdb.read((r) =>
          r.all<{ id: number; platform: AdPlatformType; campaigns: string }>(
            `SELECT p.id, p.ad_platform_type AS platform, string_agg(c.id::VARCHAR, ',') AS campaigns
               FROM adplatform_accounts p JOIN campaigns c ON c.adplatform_account_id = p.id
              WHERE p.organization_id = $1 GROUP BY p.id, p.ad_platform_type
              QUALIFY row_number() OVER (PARTITION BY p.ad_platform_type ORDER BY p.id) = 1 ORDER BY p.id`,
            [organizationId],
          ),
        );
        for (const account of accounts) {
          platforms.add(account.platform);
          const campaignIds = account.campaigns.split(',').map(Number);
          const scope = { organizationId, adPlatformAccountId: Number(account.id), from, to, campaignIds, hoursFrom };
          // DuckDB: the embedded writer's rollups, breakdowns and search terms of the window (its facts as they are).
          await duckdb.write({ organizationId }, (tx) => rewriteRollups(tx, scope));
          // ClickHouse: the facts deployment's partition writer, given the same facts of the window.
          const window = { account: scope.adPlatformAccountId, from, to, campaigns: campaignIds };
          const written = `adplatform_account_id = {account:Int64} AND day BETWEEN {from:Date32} AND {to:Date32} AND has({campaigns:Array(Int64)}, campaign_id)`;
          const content = async (table: string) => ({
            table,
            keep: `NOT (${written})`,
            params: window,
            rows: await factRows(table, organizationId, scope.adPlatformAccountId, from, to),
          });
          await rewritePartitions(
            topology,
            organizationId,
            monthsBetween(from, to),
            [await content('fact_ad_daily'), await content('fact_keyword_daily')],
            { written, params: window, platform: account.platform, hoursFrom },
          );
        }
        const tables = ['rollup_campaign_daily', ...BREAKDOWN_SOURCES.map((s) => s.table), 'fact_search_term_daily'];
        for (const table of tables) {
          const expected = await duckdbRows(table, organizationId);
          compared.set(table, (compared.get(table) ?? 0) + expected.length);
          for (const replica of [1, 2]) {
            const stored = await clickhouseRows(table, organizationId, replica);
            const what = `${table} of organization ${organizationId} on replica ${replica}`;
            expect(stored.length, what).toBe(expected.length);
            expect(stored, what).toEqual(expected);
          }
        }
        for (const [table, first] of [
          ['fact_campaign_hourly', hoursFrom],
          ['fact_search_term_daily', searchTermsFrom(hoursFrom)],
        ] as const) {
          const [old] = await cluster.query<{ n: string }>(
            (organizationId % 2) + 1,
            1,
            `SELECT count() AS n FROM ${deployment.database}.${table}_local WHERE organization_id = ${organizationId} AND day < '${first}'`,
          );
          expect(Number(old!.n), table).toBe(0);
        }
      }
      // The FACEBOOK-only breakdowns and another platform's.
      expect(platforms).toContain('FACEBOOK');
      expect(platforms.size).toBeGreaterThan(1);
      // Something compared in every table that has rows to split (a source without a profile has none yet).
      const split = BREAKDOWN_SOURCES.filter((s) => BREAKDOWN_PROFILES.some((p) => p.source === s.name));
      for (const table of ['rollup_campaign_daily', ...split.map((s) => s.table), 'fact_search_term_daily'])
        expect(compared.get(table), table).toBeGreaterThan(0);
    } finally {
      await topology.close();
      await duckdb.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('a replica killed -9 during a statistics sync', () => {
  it("leaves every synced window's facts complete after the retry, never doubled, alike on both replicas of the shard", async () => {
    const { pg } = await environment.ready();
    const database = `facts_sync_${process.pid}`;
    for (const node of cluster.nodes) await cluster.query(node.shard, node.replica, `CREATE DATABASE ${database}`);
    const storeUrl = await pg.createDatabase();
    const files = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-facts-sync-'));
    const env = {
      ADREPORT_FACTS: 'clickhouse',
      ADREPORT_CLICKHOUSE_SHARD_URLS: shardUrlsOf(cluster, database),
      ADREPORT_CLICKHOUSE_CLUSTER: cluster.cluster,
      ADREPORT_STATISTICS_BACKFILL_DAYS: '20',
      // The demo's accounts import their campaigns at the first platform sync, and each import fetches its history.
      ADREPORT_DEMO_DATA: 'true',
      ADREPORT_PLATFORM_SYNC_MS: '1000',
    };
    const args = ['--store', storeUrl, '--files-dir', files];
    // The demo's history arrives through SYNC_STATISTICS jobs; a slow platform keeps them RUNNING long enough to be cut.
    const slow = await startServe([...args, '--demo'], {
      ...env,
      ADREPORT_SANDBOX_FAULTS: JSON.stringify({
        GOOGLE_ADS: { latencyMs: 1500 },
        MICROSOFT_ADVERTISING: { latencyMs: 1500 },
      }),
    });
    let taker: Awaited<ReturnType<typeof startServe>> | undefined;
    const dbName = new URL(storeUrl).pathname.slice(1);
    const syncJobs = () =>
      pg.query<{ id: number; status: string; attempts: number; input: any; result: any }>(
        dbName,
        `SELECT id, status, attempts, input, result FROM jobs WHERE type = 'SYNC_STATISTICS' ORDER BY id`,
      );
    try {
      const organizationId = slow.listening.demo!.organizationId;
      const shard = (organizationId % 2) + 1;
      const adRows = async (replica: number) =>
        Number(
          (
            await cluster.query<{ n: string }>(
              shard,
              replica,
              `SELECT count() AS n FROM ${database}.fact_ad_daily_local WHERE organization_id = ${organizationId}`,
            )
          )[0]!.n,
        );
      // Cut while a sync runs and another's facts are already in: the writes of a window are under way.
      await poll(
        'a sync RUNNING after facts were written',
        async () => {
          const jobs = await syncJobs();
          return jobs.some((j) => j.status === 'RUNNING') && (await adRows(1)) > 0 ? true : undefined;
        },
        240_000,
        50,
      );
      slow.child.kill('SIGKILL');
      await slow.exited;
      taker = await startServe(args, env);
      const jobs = await poll(
        'every sync ended after the takeover',
        async () => {
          const all = await syncJobs();
          return all.length > 0 && all.every((j) => !['QUEUED', 'RUNNING'].includes(j.status)) ? all : undefined;
        },
        300_000,
        250,
      );
      expect(jobs.map((j) => j.status)).toEqual(jobs.map(() => 'SUCCEEDED'));
      // The one cut ran again on the new replica.
      expect(jobs.some((j) => Number(j.attempts) > 1)).toBe(true);
      for (const job of jobs) {
        if (job.result.status !== 'SYNCED') continue;
        const campaigns = (job.input.campaignIds as number[] | undefined) ?? [];
        // What the platform sent for the window, as the job counted it, is what each replica holds: nothing doubled or dropped.
        for (const replica of [1, 2]) {
          const [stored] = await cluster.query<{ n: string }>(
            shard,
            replica,
            `SELECT count() AS n FROM ${database}.fact_ad_daily_local
              WHERE organization_id = ${organizationId} AND adplatform_account_id = ${Number(job.input.adPlatformAccountId)}
                AND day BETWEEN '${job.input.from}' AND '${job.input.to}'
                ${campaigns.length > 0 ? `AND campaign_id IN (${campaigns.map(Number).join(',')})` : ''}`,
          );
          expect(Number(stored!.n), `job ${job.id} on replica ${replica}`).toBe(job.result.rows.adRows);
        }
      }
      // The change feed, through HTTP, lists each synced window as replaced.
      const demo = slow.listening.demo!;
      const token = await tokenFrom(taker.listening.url, demo.clientId, demo.clientSecret, files);
      const feed = await getJson(taker.listening.url, '/reporting/v0/changes?limit=1000', token, files);
      const replaced = (
        feed.changes as Array<{ kind: string; platformAccountId: number; firstDay: string; lastDay: string }>
      )
        .filter((c) => c.kind === 'STATISTICS_REPLACED')
        .map((c) => `${c.platformAccountId} ${c.firstDay}..${c.lastDay}`);
      for (const job of jobs.filter((j) => j.result.status === 'SYNCED'))
        expect(replaced).toContain(`${job.input.adPlatformAccountId} ${job.input.from}..${job.input.to}`);
      for (const replica of [1, 2]) {
        const [doubled] = await cluster.query<{ n: string }>(
          shard,
          replica,
          `SELECT count() AS n FROM (SELECT day, ad_id, device, network, count() AS c FROM ${database}.fact_ad_daily_local
             WHERE organization_id = ${organizationId} GROUP BY ALL HAVING c > 1)`,
        );
        expect(Number(doubled!.n)).toBe(0);
      }
      const perDay = (replica: number) =>
        cluster.query(
          shard,
          replica,
          `SELECT day, count() AS n, sum(impressions) AS i, toString(sum(cost)) AS c FROM ${database}.fact_ad_daily_local
            WHERE organization_id = ${organizationId} GROUP BY day ORDER BY day`,
        );
      expect(await perDay(2)).toEqual(await perDay(1));
      // The sync's writer split the breakdowns and search terms with the facts: each campaign day's
      // hours, and its countries, sum exactly to the day, on both replicas.
      for (const replica of [1, 2])
        for (const table of ['fact_campaign_hourly', 'fact_campaign_geo_daily']) {
          const sums = (from: string) =>
            `SELECT campaign_id, day, sum(impressions) AS i, sum(clicks) AS k, sum(cost) AS c FROM ${database}.${from}
              WHERE organization_id = ${organizationId} GROUP BY campaign_id, day`;
          const [split] = await cluster.query<{ days: string; unequal: string }>(
            shard,
            replica,
            `SELECT count() AS days, countIf(b.i != r.i OR b.k != r.k OR b.c != r.c) AS unequal
               FROM (${sums('rollup_campaign_daily_local')} HAVING i != 0 OR k != 0 OR c != 0) r
               LEFT JOIN (${sums(`${table}_local`)}) b USING (campaign_id, day)`,
          );
          expect(Number(split!.days), `${table} on replica ${replica}`).toBeGreaterThan(0);
          expect(Number(split!.unequal), `${table} on replica ${replica}`).toBe(0);
        }
      // And the search terms of each keyword row sum to it.
      for (const replica of [1, 2]) {
        const sums = (from: string) =>
          `SELECT keyword_id, day, device, network, sum(impressions) AS i, sum(clicks) AS k, sum(cost) AS c
             FROM ${database}.${from} WHERE organization_id = ${organizationId} GROUP BY ALL`;
        const [terms] = await cluster.query<{ rows: string; unequal: string }>(
          shard,
          replica,
          `SELECT count() AS rows, countIf(b.i != r.i OR b.k != r.k OR b.c != r.c) AS unequal
             FROM (${sums('fact_keyword_daily_local')} HAVING i != 0 OR k != 0 OR c != 0) r
             LEFT JOIN (${sums('fact_search_term_daily_local')}) b USING (keyword_id, day, device, network)`,
        );
        expect(Number(terms!.rows), `search terms on replica ${replica}`).toBeGreaterThan(0);
        expect(Number(terms!.unequal), `search terms on replica ${replica}`).toBe(0);
      }
    } finally {
      if (slow.child.exitCode === null) slow.child.kill('SIGKILL');
      if (taker) await stopServe(taker);
      for (const node of cluster.nodes)
        await cluster
          .query(node.shard, node.replica, `DROP DATABASE IF EXISTS ${database}_reads`)
          .catch(() => undefined);
      fs.rmSync(files, { recursive: true, force: true });
    }
  }, 600_000);
});

describe('data generate into the scale-out deployment', () => {
  it('writes the facts the embedded generator writes for the same seed, refuses a store that has organizations, and says what it needs', async () => {
    const { pg } = await environment.ready();
    const database = `facts_generate_${process.pid}`;
    for (const node of cluster.nodes) await cluster.query(node.shard, node.replica, `CREATE DATABASE ${database}`);
    const storeUrl = await pg.createDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-facts-generate-'));
    const env = {
      ADREPORT_FACTS: 'clickhouse',
      ADREPORT_CLICKHOUSE_SHARD_URLS: shardUrlsOf(cluster, database),
      ADREPORT_CLICKHOUSE_CLUSTER: cluster.cluster,
    };
    const generate = ['data', 'generate', '--scale', '1', '--days', '20', '--seed', '4', '--orgs', '2', '--json'];
    try {
      const intoDeployment = await runCli([...generate, '--store', storeUrl], env);
      expect(intoDeployment.code, intoDeployment.stderr).toBe(0);
      const embedded = await runCli([...generate, '--db', path.join(dir, 'embedded.duckdb')]);
      expect(embedded.code, embedded.stderr).toBe(0);
      const made = JSON.parse(intoDeployment.stdout) as { organizations: Array<{ id: number }>; factRows: number };
      expect(made.factRows).toBe(JSON.parse(embedded.stdout).factRows);

      // Each organization's facts on both replicas of its shard, and nowhere else, equal to the embedded file's.
      const duckdb = await DuckDBInstance.create(path.join(dir, 'embedded.duckdb'), { access_mode: 'READ_ONLY' });
      const reader = await duckdb.connect();
      try {
        for (const { id } of made.organizations) {
          const fingerprint = `SELECT count(*) AS n, sum(impressions) AS i, sum(cost)::VARCHAR AS c FROM fact_ad_daily WHERE organization_id = ${id}`;
          const [expected] = (await reader.runAndReadAll(fingerprint)).getRowObjectsJS();
          for (const node of cluster.nodes) {
            const [row] = await cluster.query<{ n: string; i: string; c: string }>(
              node.shard,
              node.replica,
              `SELECT count() AS n, sum(impressions) AS i, toString(sum(cost)) AS c FROM ${database}.fact_ad_daily_local WHERE organization_id = ${id}`,
            );
            if (node.shard === (id % 2) + 1) {
              expect([Number(row!.n), Number(row!.i), Number(row!.c)]).toEqual([
                Number(expected!.n),
                Number(expected!.i),
                Number(expected!.c),
              ]);
            } else expect(Number(row!.n)).toBe(0);
          }
        }
      } finally {
        reader.closeSync();
        duckdb.closeSync();
      }

      const again = await runCli([...generate, '--store', storeUrl], env);
      expect(again.code).toBe(1);
      expect(again.stderr.trim().split('\n')).toHaveLength(1);
      const withoutFacts = await runCli([...generate, '--store', storeUrl]);
      expect(withoutFacts.code).toBe(2);
      expect(withoutFacts.stderr).toMatch(/ADREPORT_FACTS=clickhouse/);
    } finally {
      for (const node of cluster.nodes)
        await cluster
          .query(node.shard, node.replica, `DROP DATABASE IF EXISTS ${database}_reads`)
          .catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('serve --facts clickhouse refused at start', () => {
  it.each([
    ['without a PostgreSQL store', false, {}, /needs the PostgreSQL store/],
    ['without ClickHouse nodes', true, {}, /ADREPORT_CLICKHOUSE_SHARD_URLS .*ADREPORT_CLICKHOUSE_URL/],
    [
      'with a node that does not answer',
      true,
      { ADREPORT_CLICKHOUSE_URL: 'http://127.0.0.1:1/adreport' },
      /ClickHouse at http:\/\/127\.0\.0\.1:1/,
    ],
  ] as const)('%s: one line, exit 1', async (_, withStore, env, message) => {
    const { pg } = await environment.ready();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-facts-refused-'));
    try {
      const store = withStore
        ? ['--store', await pg.createDatabase(), '--files-dir', dir]
        : ['--db', path.join(dir, 'a.duckdb')];
      const result = await runCli(
        ['serve', '--port', '0', '--host', '127.0.0.1', '--facts', 'clickhouse', ...store],
        env,
      );
      expect(result.code).toBe(1);
      const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('adreport: waiting'));
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(message);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
