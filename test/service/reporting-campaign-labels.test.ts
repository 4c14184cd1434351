import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, approx, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

let fx: ReportingFixture;
let token: string;
let orgId: number;
let from: string;
let to: string;

// Every answer the same with rollups on (the default) and off (ADREPORT_ROLLUPS=false): one generated file, a copy each.
describe.each([true, false])('ADREPORT_ROLLUPS=%s', (rollups) => {
  beforeAll(async () => {
    fx = await startReportingFixture({ world: 'small-2orgs-30d', service: { rollups } });
    token = fx.orgs[0]!.token;
    orgId = fx.orgs[0]!.id;
    to = fx.yesterday;
    from = addDays(to, -13);
    // One account in another currency, so the per-day FX conversion is exercised.
    const [first] = await fx.sql<{ id: number }>(
      'SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id LIMIT 1',
      [orgId],
    );
    const patched = await fx.json(
      'PATCH',
      `/provisioning/v0/accounts/id/${first!.id}`,
      token,
      { account: { currency: 'USD' } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
  }, 300_000);
  afterAll(() => fx.close());

  interface Expected {
    id: number;
    value: string;
    impressions: number;
    clicks: number;
    cost: number;
  }

  /** The oracle: plain SQL over the facts of the labelled campaigns, converted per day into the account currency. */
  async function expected(labelName: string): Promise<Expected[]> {
    return fx.sql<Expected>(
      `WITH lv AS (
       SELECT DISTINCT l.account_id, cl.value FROM account_adplatform_links l
         JOIN campaigns c ON c.adplatform_account_id = l.adplatform_account_id
         JOIN campaign_labels cl ON cl.campaign_id = c.id AND cl.name = $1
         JOIN accounts a ON a.id = l.account_id WHERE a.organization_id = $2),
     facts AS (
       SELECT l.account_id, cl.value, sum(f.impressions) AS impressions, sum(f.clicks) AS clicks,
              sum(f.cost::DOUBLE * ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE) AS cost
         FROM fact_ad_daily f
         JOIN campaign_labels cl ON cl.campaign_id = f.campaign_id AND cl.name = $1
         JOIN account_adplatform_links l ON l.adplatform_account_id = f.adplatform_account_id
         JOIN accounts a ON a.id = l.account_id
         JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
         JOIN fx_rates ra ON ra.day = f.day AND ra.currency = a.currency
         JOIN fx_rates rp ON rp.day = f.day AND rp.currency = p.currency
        WHERE f.organization_id = $2 AND f.day BETWEEN $3::DATE AND $4::DATE
        GROUP BY ALL)
     SELECT lv.account_id AS id, lv.value, coalesce(facts.impressions, 0)::BIGINT AS impressions,
            coalesce(facts.clicks, 0)::BIGINT AS clicks, coalesce(facts.cost, 0) AS cost
       FROM lv LEFT JOIN facts ON facts.account_id = lv.account_id AND facts.value = lv.value
      ORDER BY id, value`,
      [labelName, orgId, from, to],
    );
  }

  describe('GET /reporting/v0/accounts/campaign-labels/name/{name}', () => {
    it.each([
      ['team', 'team'],
      ['campaignGroup', 'sys.campaignGroup'],
    ])(
      'one row per (account, value of %s), statistics over those campaigns only, equal to plain SQL',
      async (name, stored) => {
        const want = await expected(stored);
        expect(want.length).toBeGreaterThan(1);
        const res = await fx.get(
          `/reporting/v0/accounts/campaign-labels/name/${name}?startDate=${from}&endDate=${to}&statistics=impressions,clicks,cost&limit=1000`,
          token,
        );
        expect(res.status).toBe(200);
        expect(res.headers['x-totalcount']).toBe(String(want.length));
        const rows = res.json.accounts as Array<{
          id: number;
          campaignLabel: { name: string; value: string };
          statistics: Record<string, number>;
        }>;
        expect(rows.map((r) => [r.id, r.campaignLabel.name, r.campaignLabel.value])).toEqual(
          want.map((w) => [w.id, name, w.value]),
        );
        rows.forEach((row, i) => {
          expect(row.statistics.impressions).toBe(want[i]!.impressions);
          expect(row.statistics.clicks).toBe(want[i]!.clicks);
          expect(approx(row.statistics.cost, want[i]!.cost)).toBe(true);
        });
      },
    );

    it('the rows of one account sum to at most its /accounts figures (campaigns without the label are left out)', async () => {
      const labelled = (
        await fx.get(
          `/reporting/v0/accounts/campaign-labels/name/team?startDate=${from}&endDate=${to}&statistics=clicks&limit=1000`,
          token,
        )
      ).json.accounts as Array<{ id: number; statistics: { clicks: number } }>;
      const all = (
        await fx.get(`/reporting/v0/accounts?startDate=${from}&endDate=${to}&statistics=clicks&limit=1000`, token)
      ).json.accounts as Array<{ id: number; statistics: { clicks: number } }>;
      for (const account of all) {
        const sum = labelled.filter((r) => r.id === account.id).reduce((s, r) => s + r.statistics.clicks, 0);
        expect(sum).toBeLessThanOrEqual(account.statistics.clicks);
      }
    });

    it('takes the accounts parameters (filter, sort, segments, totals) and refuses a bad label name', async () => {
      const res = await fx.get(
        `/reporting/v0/accounts/campaign-labels/name/team?startDate=${from}&endDate=${to}&segments=Week&sort=-statistics.clicks&totals=true&filter=${encodeURIComponent('statistics.clicks > 0')}`,
        token,
      );
      expect(res.status).toBe(200);
      expect(res.json.totals).toBeDefined();
      const clicks = (res.json.accounts as Array<{ statistics: { clicks: number } }>).map((r) => r.statistics.clicks);
      expect(clicks).toEqual([...clicks].sort((a, b) => b - a));
      expect((await fx.get('/reporting/v0/accounts/campaign-labels/name/nope', token)).json.accounts).toEqual([]);
      const bad = await fx.get(`/reporting/v0/accounts/campaign-labels/name/${encodeURIComponent("x' OR 1=1")}`, token);
      expect(bad.status).toBe(400);
      expect(bad.json.error.details[0].field).toBe('name');
      // Another organization sees only its own accounts.
      const theirs = (await fx.get('/reporting/v0/accounts/campaign-labels/name/team?limit=1000', fx.orgs[1]!.token))
        .json.accounts as Array<{ id: number }>;
      const ours = new Set(
        (await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1', [orgId])).map((r) => r.id),
      );
      expect(theirs.some((r) => ours.has(r.id))).toBe(false);
      expect(fx.errors).toEqual([]);
    });
  });
});
