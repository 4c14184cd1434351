import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFxRates } from '../../src/reference/fx-import.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import { jsonRequest, linkedGoogleAccount } from '../helpers/accounts.js';
import { waitForIdleJobs, waitForJob } from '../helpers/jobs.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `--report-engine clickhouse` end to end on embedded ClickHouse (chdb): a real service, a
 * statistics backfill written to DuckDB by the real sync and replicated, reports answered by
 * ClickHouse and checked against plain SQL over DuckDB's facts.
 */
const P = '/provisioning/v0';
let server: TestServer;
let token: string;
let auth: Record<string, string>;
let accountId: number;
let campaignId: number;
const today = isoDate(new Date());
const from = addDays(today, -30);
const to = addDays(today, -1);

async function replicated(): Promise<void> {
  await server.service.clickhouse!.replicator.idle();
}

function campaignsReport(statistics = 'clicks,impressions,cost,costWithMarkup') {
  return server.http.get(
    `/reporting/v0/campaigns?startDate=${from}&endDate=${to}&statistics=${statistics}&filter=${encodeURIComponent(`accountId == ${accountId}`)}`,
    auth,
  );
}

beforeAll(async () => {
  server = await startTestServer({
    reportEngine: 'clickhouse',
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    jobs: { backoffBaseMs: 10, maxBackoffMs: 50, pollMs: 100 },
    statistics: { backfillDays: 40 },
  });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  const linked = await linkedGoogleAccount(server, token, 'ClickHouse');
  accountId = linked.accountId;
  const connector = server.service.platforms.connector(1, 'GOOGLE_ADS');
  const report = await connector.fetchDailyReport(linked.adPlatformId, from, to);
  const busiest = [...new Set(report.statistics.map((row) => row.campaignId))][0]!;
  const imported = await jsonRequest(
    server,
    token,
    'POST',
    `${P}/adplatform-accounts/id/${linked.platformAccountId}/campaigns`,
    {
      campaign: { adPlatformId: busiest, campaignGroup: 'ClickHouse' },
    },
  );
  const job = await waitForJob(server, token, imported.json.job.id);
  campaignId = job.result.campaign.id;
  // The import queues the statistics backfill as a job of its own: on a loaded machine it was
  // still running here, and the tests saw no facts in either engine.
  await waitForIdleJobs(server, token);
  await replicated();
});
afterAll(() => server.close());

describe('reports on ClickHouse', () => {
  it('answers a replicated organization from ClickHouse, with the sums of the facts in DuckDB', async () => {
    const res = await campaignsReport();
    expect(res.status, res.text).toBe(200);
    expect(res.headers['x-report-engine']).toBe('clickhouse');
    const oracle = await server.service.db.read((r) =>
      r.all<{ id: number; clicks: number; impressions: number; cost: number }>(
        `SELECT campaign_id AS id, sum(clicks)::DOUBLE AS clicks, sum(impressions)::DOUBLE AS impressions, sum(cost)::DOUBLE AS cost
           FROM fact_ad_daily WHERE campaign_id = $1 AND day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL`,
        [campaignId, from, to],
      ),
    );
    expect(oracle.length).toBe(1);
    const row = res.json.campaigns.find((c: { id: number }) => c.id === campaignId);
    expect(row.statistics.clicks).toBe(oracle[0]!.clicks);
    expect(row.statistics.impressions).toBe(oracle[0]!.impressions);
    expect(row.statistics.cost).toBeCloseTo(oracle[0]!.cost, 6);
    expect(server.errors).toEqual([]);
  });

  it('an MCP run_report names ClickHouse in its provenance and answers what REST answers', async () => {
    await replicated();
    const res = await campaignsReport('clicks,cost');
    const mcp = await connectMcp(server.service.url, server.service.tls?.cert, { token });
    try {
      const result = await mcp.client.callTool({
        name: 'run_report',
        arguments: {
          endpoint: 'campaigns',
          startDate: from,
          endDate: to,
          statistics: ['clicks', 'cost'],
          filter: `accountId == ${accountId}`,
        },
      });
      const structured = result.structuredContent as {
        answer: unknown;
        provenance: { engine: string; dataVersion: string };
      };
      expect(result.isError).toBeFalsy();
      expect(structured.provenance.engine).toBe('clickhouse');
      expect(structured.provenance.dataVersion).toBe(res.headers.etag);
      expect(structured.answer).toEqual(res.json);
    } finally {
      await mcp.close();
    }
  });

  it('every replicated table holds the rows DuckDB holds', async () => {
    const replica = server.service.clickhouse!;
    for (const table of [
      'fact_ad_daily',
      'fact_keyword_daily',
      'rollup_campaign_daily',
      'campaigns',
      'accounts',
      'fx_rates',
    ]) {
      const [duck] = await server.service.db.read((r) =>
        r.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`),
      );
      const count = await replica.engine.read({ organizationId: 1, slots: 'one' }, (r) =>
        r.all<{ n: number }>(`SELECT toInt64(count()) AS n FROM ${table}`),
      );
      expect(Number(count[0]!.n), table).toBe(duck!.n);
    }
  });

  it('a write sends the organization to DuckDB until it is replicated; no answer is ever stale', async () => {
    const before = (await campaignsReport()).json.campaigns.find((c: { id: number }) => c.id === campaignId);
    const rate = 0.25;
    const markup = await jsonRequest(server, token, 'POST', `${P}/accounts/id/${accountId}/markups`, {
      markup: { rate, startDate: from, endDate: to },
    });
    expect(markup.status, markup.text).toBe(201);
    // Right after the write: whichever engine answers, the markup is in the answer.
    const right = await campaignsReport();
    expect(['duckdb', 'clickhouse']).toContain(right.headers['x-report-engine']);
    const rightRow = right.json.campaigns.find((c: { id: number }) => c.id === campaignId);
    expect(rightRow.statistics.costWithMarkup).toBeCloseTo(before.statistics.cost * (1 + rate), 6);
    await replicated();
    const after = await campaignsReport();
    expect(after.headers['x-report-engine']).toBe('clickhouse');
    const afterRow = after.json.campaigns.find((c: { id: number }) => c.id === campaignId);
    expect(afterRow.statistics.costWithMarkup).toBeCloseTo(before.statistics.cost * (1 + rate), 6);
  });

  it('an FX import (a write for every organization) is replicated before ClickHouse answers again, converted at the new rate', async () => {
    const day = addDays(today, -2);
    const query = `/reporting/v0/campaigns?startDate=${day}&endDate=${day}&statistics=cost&currency=USD&filter=${encodeURIComponent(`accountId == ${accountId}`)}`;
    const before = (await server.http.get(query, auth)).json.campaigns.find((c: { id: number }) => c.id === campaignId);
    const [rate] = await server.service.db.read((r) =>
      r.all<{ usd: number }>(
        "SELECT units_per_eur::DOUBLE AS usd FROM fx_rates WHERE currency = 'USD' AND day = $1::DATE",
        [day],
      ),
    );
    // USD twice as many units per EUR that day: money converted into USD doubles.
    await importFxRates(server.service.db, `date,currency,unitsPerEur\n${day},USD,${rate!.usd * 2}\n`);
    await replicated();
    const after = await server.http.get(query, auth);
    expect(after.headers['x-report-engine']).toBe('clickhouse');
    const row = after.json.campaigns.find((c: { id: number }) => c.id === campaignId);
    expect(before.statistics.cost).toBeGreaterThan(0);
    expect(row.statistics.cost).toBeCloseTo(before.statistics.cost * 2, 4);
  });

  it('says how complete the data is from DuckDB (statistics_sources, jobs) while ClickHouse computes the rows', async () => {
    await waitForIdleJobs(server, token);
    await replicated();
    const res = await campaignsReport();
    expect(res.status, res.text).toBe(200);
    expect(res.headers['x-report-engine']).toBe('clickhouse');
    const [source] = await server.service.db.read((r) =>
      r.all<{ id: number; syncedThrough: string; syncedAtMs: number }>(
        `SELECT s.adplatform_account_id::INTEGER AS id, strftime(s.synced_through, '%Y-%m-%d') AS "syncedThrough", epoch_ms(s.synced_at)::DOUBLE AS "syncedAtMs"
           FROM statistics_sources s JOIN campaigns c ON c.adplatform_account_id = s.adplatform_account_id WHERE c.id = $1`,
        [campaignId],
      ),
    );
    // By hand: the last synced day whose end lies 14 days (the sandbox's conversion lag) before the sync.
    let complete = source!.syncedThrough;
    while (Date.parse(`${addDays(complete, 1)}T00:00:00Z`) > source!.syncedAtMs - 14 * 24 * 3600_000)
      complete = addDays(complete, -1);
    expect(res.json.meta).toEqual({
      freshness: {
        completeThrough: complete,
        platformAccounts: [
          {
            id: source!.id,
            adPlatformType: 'GOOGLE_ADS',
            syncedThrough: source!.syncedThrough,
            lastSyncedAt: new Date(source!.syncedAtMs).toISOString(),
            completeThrough: complete,
            backfillRunning: false,
          },
        ],
      },
    });
    expect(res.headers['x-data-complete-through']).toBe(complete);
    // The range ends yesterday, after the complete day.
    expect(res.json.warnings.map((w: { code: string }) => w.code)).toContain('incomplete_data');
  });

  it('names the engine on exports, markups, call details and 304s', async () => {
    const csv = await server.http.get(`/reporting/v0/campaigns?startDate=${from}&endDate=${to}&format=csv`, auth);
    expect(csv.status).toBe(200);
    expect(csv.headers['x-report-engine']).toBe('clickhouse');
    const lines = csv.text.trim().split('\n');
    const json = await server.http.get(`/reporting/v0/campaigns?startDate=${from}&endDate=${to}&limit=10000`, auth);
    expect(lines.length - 1).toBe(Number(json.headers['x-totalcount']));
    const again = await server.http.get(`/reporting/v0/campaigns?startDate=${from}&endDate=${to}&limit=10000`, {
      ...auth,
      'if-none-match': json.headers.etag!,
    });
    expect(again.status).toBe(304);
    expect(again.headers['x-report-engine']).toBe('clickhouse');
    const markups = await server.http.get(`/reporting/v0/markups?accountId=${accountId}`, auth);
    expect(markups.status, markups.text).toBe(200);
    expect(markups.headers['x-report-engine']).toBe('clickhouse');
    const calls = await server.http.get(`/reporting/v0/call-details?startDate=${from}&endDate=${to}`, auth);
    expect(calls.status, calls.text).toBe(200);
    expect(calls.headers['x-report-engine']).toBe('clickhouse');
  });
});
