import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import { waitForIdleJobs } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const P = '/provisioning/v0';
let server: TestServer;
let auth: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer({ demoData: true, statistics: { backfillDays: 30 }, jobs: { pollMs: 100 } });
  const token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  await waitForIdleJobs(server, token);
}, 360_000);
afterAll(() => server.close());

describe('serve --demo with demo data', () => {
  it('keeps 400 days of history by default', () => {
    expect(serviceConfigSchema.parse({}).statistics.backfillDays).toBe(400);
  });

  it('makes demo accounts linked to every platform, with labels, custom fields and markups', async () => {
    const accounts = (await server.http.get(`${P}/accounts`, auth)).json.accounts as Array<Record<string, any>>;
    expect(accounts.length).toBeGreaterThanOrEqual(3);
    const platforms = new Set(
      accounts.flatMap((a) => a.linkedAdPlatformAccounts.map((p: { adPlatformType: string }) => p.adPlatformType)),
    );
    expect([...platforms].sort()).toEqual(['FACEBOOK', 'GOOGLE_ADS', 'MICROSOFT_ADVERTISING']);
    expect(new Set(accounts.map((a) => a.currency)).size).toBeGreaterThan(1);
    for (const account of accounts) {
      expect(account.autoImport).toBe(true);
      expect(Object.keys(account.labels).length).toBeGreaterThan(0);
      expect(account.field1).toEqual(expect.any(String));
      expect(account.field21).toEqual(expect.any(Number));
    }
    const markups = await Promise.all(
      accounts.map(async (a) => (await server.http.get(`${P}/accounts/id/${a.id}/markups`, auth)).json.markups),
    );
    expect(markups.flat().length).toBeGreaterThan(0);
  });

  it('imports every campaign and fills the fact tables over the backfill window, every job succeeded', async () => {
    const jobs = (await server.http.get(`${P}/jobs?limit=100`, auth)).json.jobs as Array<{
      type: string;
      status: string;
    }>;
    expect(jobs.filter((job) => job.status !== 'SUCCEEDED')).toEqual([]);
    expect(jobs.some((job) => job.type === 'SYNC_STATISTICS')).toBe(true);
    const perPlatform = await server.service.db.read((r) =>
      r.all<{ type: string; adRows: number; firstDay: string; lastDay: string; campaigns: number; withRows: number }>(
        `SELECT p.ad_platform_type AS type, count(f.day)::INT AS "adRows", strftime(min(f.day), '%Y-%m-%d') AS "firstDay", strftime(max(f.day), '%Y-%m-%d') AS "lastDay",
                (SELECT count(*) FROM campaigns c WHERE c.adplatform_account_id IN (SELECT id FROM adplatform_accounts q WHERE q.ad_platform_type = p.ad_platform_type))::INT AS campaigns,
                count(DISTINCT f.campaign_id)::INT AS "withRows"
           FROM adplatform_accounts p JOIN fact_ad_daily f ON f.adplatform_account_id = p.id
          GROUP BY p.ad_platform_type ORDER BY type`,
      ),
    );
    expect(perPlatform.map((p) => p.type)).toEqual(['FACEBOOK', 'GOOGLE_ADS', 'MICROSOFT_ADVERTISING']);
    const today = isoDate(new Date());
    for (const platform of perPlatform) {
      expect(platform.adRows).toBeGreaterThan(0);
      expect(platform.withRows).toBeGreaterThan(0);
      // The window is the 30 days before today; the account's time zone decides its last complete day.
      expect(platform.firstDay >= addDays(today, -30)).toBe(true);
      expect(platform.lastDay <= today).toBe(true);
      expect(platform.lastDay >= addDays(today, -2)).toBe(true);
    }
    const special = await server.service.db.read((r) =>
      r.one<{ runs: number; shares: number; calls: number; keywords: number }>(
        `SELECT (SELECT count(*) FROM fact_audience_runs)::INT AS runs, (SELECT count(*) FROM fact_impression_share_daily)::INT AS shares,
                (SELECT count(*) FROM call_details)::INT AS calls, (SELECT count(*) FROM fact_keyword_daily)::INT AS keywords`,
      ),
    );
    expect(special!.runs).toBeGreaterThan(0);
    expect(special!.shares).toBeGreaterThan(0);
    expect(special!.calls).toBeGreaterThan(0);
    expect(special!.keywords).toBeGreaterThan(0);
  });
});
