import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DailyImpressionShare } from '../../src/platforms/connector.js';
import type { ReachSelection } from '../../src/platforms/sandbox/statistics.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import { rewriteRollups } from '../../src/statistics/rollups.js';
import { waitForIdleJobs } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The FACEBOOK reach endpoints against the sandbox's own count of distinct people
 * (SandboxPlatforms.trueReach, person by person from its audience model), and the Google Ads
 * impression-share endpoint against a hand computation over the platform's report rows. The data
 * is the demo organization's, synced from the sandbox over 75 days.
 */
const R = '/reporting/v0';
let server: TestServer;
let auth: Record<string, string>;

type Row = Record<string, any> & { id: number; statistics: Record<string, number | null> };

const today = isoDate(new Date());
/** The last day surely complete in every account's time zone. */
const LAST = addDays(today, -3);
const mondayOf = (day: string) => addDays(day, -((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7));
const WEEK_START = mondayOf(addDays(LAST, -7));
const WEEK_END = addDays(WEEK_START, 6);
const lastMonthStart = (() => {
  const d = new Date(`${LAST.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - 1);
  return isoDate(d);
})();
const MONTH_START = lastMonthStart;
const MONTH_END = addDays(`${LAST.slice(0, 7)}-01`, -1);
const RANGES: ReadonlyArray<[string, string, string]> = [
  ['a single day', LAST, LAST],
  ['another single day', addDays(LAST, -40), addDays(LAST, -40)],
  ['an ISO week', WEEK_START, WEEK_END],
  ['a calendar month', MONTH_START, MONTH_END],
  ['an odd 17-day range', addDays(LAST, -24), addDays(LAST, -8)],
];

beforeAll(async () => {
  server = await startTestServer({ demoData: true, statistics: { backfillDays: 75 }, jobs: { pollMs: 100 } });
  const token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  await waitForIdleJobs(server, token);
}, 480_000);
afterAll(() => server.close());

async function rows(
  path: string,
  query: Record<string, string>,
): Promise<{ rows: Row[]; total: number; totals?: Record<string, number | null> }> {
  const res = await server.http.get(`${R}/${path}?${new URLSearchParams({ limit: '10000', ...query })}`, auth);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  const key = Object.keys(res.json).find((k) => k !== 'totals')!;
  return { rows: res.json[key], total: Number(res.headers['x-totalcount']), totals: res.json.totals };
}

async function refusal(path: string, query: Record<string, string>) {
  const res = await server.http.get(`${R}/${path}?${new URLSearchParams(query)}`, auth);
  expect(res.status, res.text).toBe(400);
  return res.json.error as { message: string; details: Array<{ field: string; code: string }> };
}

/** Our ids -> the platform's, for the sandbox oracle. */
async function platformIds(
  table: 'adplatform_accounts' | 'campaigns' | 'ads',
  ids: number[],
): Promise<Map<number, string>> {
  const found = await server.service.db.read((r) =>
    r.all<{ id: number; pid: string }>(
      `SELECT id, ad_platform_id AS pid FROM ${table} WHERE id IN (SELECT unnest($1::BIGINT[]))`,
      [ids.map(String)],
    ),
  );
  return new Map(found.map((row) => [Number(row.id), row.pid]));
}

/** The platform account (its platform id) of each campaign or ad. */
async function accountOf(table: 'campaigns' | 'ads', id: number): Promise<string> {
  const sql =
    table === 'campaigns'
      ? `SELECT p.ad_platform_id AS pid FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE c.id = $1`
      : `SELECT p.ad_platform_id AS pid FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
           JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE a.id = $1`;
  return (await server.service.db.read((r) => r.one<{ pid: string }>(sql, [id])))!.pid;
}

/** The platform ids of the campaigns imported from a platform account (AUTO_IMPORT leaves REMOVED ones out). */
async function importedCampaigns(adPlatformAccountId: string): Promise<string[]> {
  const found = await server.service.db.read((r) =>
    r.all<{ pid: string }>(
      `SELECT c.ad_platform_id AS pid FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE p.ad_platform_id = $1 AND p.organization_id = 1`,
      [adPlatformAccountId],
    ),
  );
  return found.map((row) => row.pid);
}

/** The sandbox's count of distinct people; a whole account means its imported campaigns, which are all we report. */
async function truth(account: string, selection: ReachSelection, from: string, to: string): Promise<number> {
  const chosen = Object.keys(selection).length > 0 ? selection : { campaignIds: await importedCampaigns(account) };
  return server.service.platforms.trueReach(1, account, chosen, from, to);
}

describe('FACEBOOK reach endpoints', () => {
  it("list FACEBOOK entities only, with the plain endpoints' figures for the usual statistics", async () => {
    const range = { startDate: addDays(LAST, -20), endDate: LAST };
    for (const level of ['adplatform-accounts', 'campaigns', 'ads']) {
      const special = await rows(`${level}/facebook`, range);
      const plain = await rows(level, { ...range, filter: "adPlatformType == 'FACEBOOK'" });
      expect(special.rows.length).toBeGreaterThan(0);
      expect(special.total).toBe(plain.total);
      expect(new Set(special.rows.map((r) => r.adPlatformType ?? r.adPlatformAccountType))).toEqual(
        new Set(['FACEBOOK']),
      );
      const plainById = new Map(plain.rows.map((r) => [r.id, r]));
      for (const row of special.rows) {
        const { reach, frequency, ...usual } = row.statistics;
        expect(usual).toEqual(plainById.get(row.id)!.statistics);
        expect(reach).toEqual(expect.any(Number));
        expect(reach! <= row.statistics.impressions!).toBe(true);
        if (reach === 0) expect(frequency).toBeNull();
        else expect(frequency).toBeCloseTo(row.statistics.impressions! / reach!, 12);
      }
    }
  });

  for (const [label, from, to] of RANGES) {
    it(`match the sandbox's true reach for ${label} (${from}..${to}) on every level`, async () => {
      const range = { startDate: from, endDate: to, statistics: 'reach,impressions' };
      const accounts = (await rows('adplatform-accounts/facebook', range)).rows;
      expect(accounts.length).toBeGreaterThan(0);
      for (const account of accounts)
        expect(account.statistics.reach).toBe(await truth(account.adPlatformId, {}, from, to));
      expect(accounts.some((a) => a.statistics.reach! > 0)).toBe(true);

      // The five campaigns and ads that reached most, and the smallest one that reached anyone.
      for (const [level, table, key] of [
        ['campaigns', 'campaigns', 'campaignIds'],
        ['ads', 'ads', 'adIds'],
      ] as const) {
        const listed = (
          await rows(`${level}/facebook`, { ...range, sort: '-statistics.reach', filter: 'statistics.reach > 0' })
        ).rows;
        expect(listed.length).toBeGreaterThan(0);
        const picked = [...listed.slice(0, 5), listed.at(-1)!];
        const pids = await platformIds(
          table,
          picked.map((r) => r.id),
        );
        for (const row of picked) {
          const expected = await truth(await accountOf(table, row.id), { [key]: [pids.get(row.id)!] }, from, to);
          expect(row.statistics.reach, `${level} ${row.id}`).toBe(expected);
        }
      }
    });
  }

  it('deduplicate a week over its days: each Day bucket and the Week bucket are true, max(days) <= week <= sum(days)', async () => {
    const top = (
      await rows('campaigns/facebook', {
        startDate: WEEK_START,
        endDate: WEEK_END,
        sort: '-statistics.reach',
        limit: '3',
      })
    ).rows;
    const pids = await platformIds(
      'campaigns',
      top.map((r) => r.id),
    );
    for (const campaign of top) {
      const account = await accountOf('campaigns', campaign.id);
      const selection = { campaignIds: [pids.get(campaign.id)!] };
      const filter = `id == ${campaign.id}`;
      const days = (
        await rows('campaigns/facebook', {
          startDate: WEEK_START,
          endDate: WEEK_END,
          segments: 'Day',
          filter,
          statistics: 'reach',
        })
      ).rows;
      const week = (
        await rows('campaigns/facebook', {
          startDate: WEEK_START,
          endDate: WEEK_END,
          segments: 'Week',
          filter,
          statistics: 'reach',
        })
      ).rows;
      expect(days.length).toBeGreaterThan(1);
      expect(week.map((r) => r.segments.week)).toEqual([WEEK_START]);
      for (const day of days)
        expect(day.statistics.reach).toBe(await truth(account, selection, day.segments.day, day.segments.day));
      const reaches = days.map((d) => d.statistics.reach!);
      const weekReach = week[0]!.statistics.reach!;
      expect(weekReach).toBe(await truth(account, selection, WEEK_START, WEEK_END));
      expect(weekReach).toBeGreaterThanOrEqual(Math.max(...reaches));
      expect(weekReach).toBeLessThanOrEqual(reaches.reduce((a, b) => a + b, 0));
      // People come back on later days: the week is strictly less than the sum of its days.
      expect(weekReach).toBeLessThan(reaches.reduce((a, b) => a + b, 0));
    }
  });

  it('deduplicate Month buckets within the range and DayOfWeek buckets across weeks', async () => {
    const from = addDays(MONTH_START, 10);
    const to = LAST;
    const [account] = (
      await rows('adplatform-accounts/facebook', {
        startDate: from,
        endDate: to,
        sort: '-statistics.reach',
        limit: '1',
      })
    ).rows;
    const months = (
      await rows('adplatform-accounts/facebook', {
        startDate: from,
        endDate: to,
        segments: 'Month',
        filter: `id == ${account!.id}`,
        statistics: 'reach',
      })
    ).rows;
    expect(months.length).toBe(2);
    for (const month of months) {
      const first = month.segments.month === from.slice(0, 7) ? from : `${month.segments.month}-01`;
      const last = month.segments.month === to.slice(0, 7) ? to : MONTH_END;
      expect(month.statistics.reach).toBe(await truth(account!.adPlatformId, {}, first, last));
    }
    const weekdays = (
      await rows('adplatform-accounts/facebook', {
        startDate: WEEK_START,
        endDate: addDays(WEEK_END, 7),
        segments: 'DayOfWeek',
        filter: `id == ${account!.id}`,
      })
    ).rows;
    const monday = weekdays.find((r) => r.segments.dayOfWeek === 'MONDAY')!;
    const twoMondays = [WEEK_START, addDays(WEEK_START, 7)];
    const each = await Promise.all(twoMondays.map((day) => truth(account!.adPlatformId, {}, day, day)));
    expect(monday.statistics.reach).toBeGreaterThanOrEqual(Math.max(...each));
    expect(monday.statistics.reach).toBeLessThanOrEqual(each[0]! + each[1]!);
  });

  it('totals deduplicate over the whole filtered result, with and without segments', async () => {
    const from = addDays(LAST, -24);
    const to = LAST;
    const [account] = (
      await rows('adplatform-accounts/facebook', {
        startDate: from,
        endDate: to,
        sort: '-statistics.reach',
        limit: '1',
      })
    ).rows;
    const accountReach = account!.statistics.reach!;
    for (const segments of [undefined, 'Day', 'Week,DeviceType']) {
      const result = await rows('campaigns/facebook', {
        startDate: from,
        endDate: to,
        filter: `adPlatformAccountId == ${account!.id}`,
        totals: 'true',
        ...(segments ? { segments } : {}),
      });
      const sum = result.rows.reduce((a, r) => a + r.statistics.reach!, 0);
      expect(result.totals!.reach, String(segments)).toBe(accountReach);
      expect(result.totals!.reach!).toBeLessThan(sum);
      expect(result.totals!.frequency).toBeCloseTo(result.totals!.impressions! / accountReach, 12);
    }
    // A bucket filter keeps some campaigns: totals are the reach of exactly those together.
    const all = (
      await rows('campaigns/facebook', {
        startDate: from,
        endDate: to,
        filter: `adPlatformAccountId == ${account!.id} && statistics.reach > 0`,
        sort: 'statistics.reach',
      })
    ).rows;
    const threshold = all[Math.floor(all.length / 2)]!.statistics.reach!;
    const kept = await rows('campaigns/facebook', {
      startDate: from,
      endDate: to,
      filter: `adPlatformAccountId == ${account!.id} && statistics.reach >= ${threshold}`,
      totals: 'true',
    });
    expect(kept.rows.every((r) => r.statistics.reach! >= threshold)).toBe(true);
    const pids = await platformIds(
      'campaigns',
      kept.rows.map((r) => r.id),
    );
    expect(kept.totals!.reach).toBe(await truth(account!.adPlatformId, { campaignIds: [...pids.values()] }, from, to));
  });

  it('carry FACEBOOK rows as device UNKNOWN on network SOCIAL in segments and filters', async () => {
    const range = { startDate: addDays(LAST, -6), endDate: LAST };
    const plain = (await rows('adplatform-accounts/facebook', range)).rows;
    const byDevice = (await rows('adplatform-accounts/facebook', { ...range, segments: 'DeviceType' })).rows;
    expect(new Set(byDevice.map((r) => r.segments.deviceType))).toEqual(new Set(['UNKNOWN']));
    for (const row of byDevice) expect(row.statistics.reach).toBe(plain.find((p) => p.id === row.id)!.statistics.reach);
    const social = (
      await rows('adplatform-accounts/facebook', {
        ...range,
        filter: "segments.networkType == 'SOCIAL' && segments.deviceType == 'UNKNOWN'",
      })
    ).rows;
    expect(social.map((r) => r.statistics.reach)).toEqual(plain.map((r) => r.statistics.reach));
    const mobile = (await rows('adplatform-accounts/facebook', { ...range, filter: "segments.deviceType == 'MOBILE'" }))
      .rows;
    expect(mobile.map((r) => [r.statistics.reach, r.statistics.impressions])).toEqual(plain.map(() => [0, 0]));
  });

  it('filter, sort and compute formulas on reach and frequency', async () => {
    const range = { startDate: addDays(LAST, -13), endDate: LAST };
    const all = (await rows('ads/facebook', range)).rows;
    const threshold = [...all.map((r) => r.statistics.reach!)].sort((a, b) => a - b)[Math.floor(all.length / 2)]!;
    const kept = await rows('ads/facebook', {
      ...range,
      filter: `statistics.reach > ${threshold} && statistics.frequency >= 1`,
      sort: '-statistics.reach,id',
    });
    const expected = all
      .filter((r) => r.statistics.reach! > threshold)
      .sort((a, b) => b.statistics.reach! - a.statistics.reach! || a.id - b.id);
    expect(kept.rows.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    const withFormula = (
      await rows('ads/facebook', {
        ...range,
        formulas: 'perThousand:statistics.cost / statistics.reach * 1000:Money',
        limit: '20',
      })
    ).rows;
    for (const row of withFormula) {
      if (row.statistics.reach === 0) expect(row.formulas.perThousand).toBeNull();
      else expect(row.formulas.perThousand).toBeCloseTo((row.statistics.cost! / row.statistics.reach!) * 1000, 4);
    }
  });
});

/** Google's bounds as it reports them: shares under 0.1 as 0.0999, lost shares over 0.9 as 0.9001. */
const share = (a: number, b: number) => (b === 0 ? null : a / b < 0.1 ? 0.0999 : a / b);
const lostShare = (a: number, b: number) => (b === 0 ? null : a / b > 0.9 ? 0.9001 : a / b);

function expectedShares(list: readonly DailyImpressionShare[]) {
  const sum = (pick: (r: DailyImpressionShare) => number) => list.reduce((a, r) => a + pick(r), 0);
  const eligible = sum((r) => r.eligibleImpressions);
  return {
    searchImpressions: sum((r) => r.impressions),
    searchEligibleImpressions: eligible,
    searchImpressionShare: share(
      sum((r) => r.impressions),
      eligible,
    ),
    searchBudgetLostImpressionShare: lostShare(
      sum((r) => r.budgetLostImpressions),
      eligible,
    ),
    searchRankLostImpressionShare: lostShare(
      sum((r) => r.rankLostImpressions),
      eligible,
    ),
    searchTopImpressionShare: share(
      sum((r) => r.topImpressions),
      eligible,
    ),
    searchAbsoluteTopImpressionShare: share(
      sum((r) => r.absoluteTopImpressions),
      eligible,
    ),
  };
}

const SHARE_STATISTICS =
  'searchImpressions,searchEligibleImpressions,searchImpressionShare,searchBudgetLostImpressionShare,searchRankLostImpressionShare,searchTopImpressionShare,searchAbsoluteTopImpressionShare';

describe('Google Ads impression share endpoint', () => {
  it('lists GOOGLE_ADS platform accounts only, with the five shares by default', async () => {
    const res = await rows('adplatform-accounts/google-ads', {});
    const google = await rows('adplatform-accounts', { filter: "adPlatformType == 'GOOGLE_ADS'" });
    expect(res.total).toBe(google.total);
    expect(res.rows.length).toBeGreaterThan(0);
    for (const row of res.rows) {
      expect(row.adPlatformType).toBe('GOOGLE_ADS');
      expect(Object.keys(row.statistics)).toEqual(
        expect.arrayContaining([
          'impressions',
          'clicks',
          'searchImpressionShare',
          'searchBudgetLostImpressionShare',
          'searchRankLostImpressionShare',
          'searchTopImpressionShare',
          'searchAbsoluteTopImpressionShare',
        ]),
      );
    }
  });

  it("aggregates every bucket as sums over sums of the platform's report rows", async () => {
    const from = addDays(LAST, -45);
    const to = LAST;
    const accounts = (
      await rows('adplatform-accounts/google-ads', {
        startDate: from,
        endDate: to,
        statistics: `impressions,${SHARE_STATISTICS}`,
        segments: 'Month,DeviceType',
      })
    ).rows;
    expect(accounts.length).toBeGreaterThan(2);
    let checked = 0;
    let withShares = 0;
    for (const id of new Set(accounts.map((a) => a.id))) {
      const adPlatformId = accounts.find((a) => a.id === id)!.adPlatformId as string;
      const imported = new Set(await importedCampaigns(adPlatformId));
      const fetched = await server.service.platforms
        .connector(1, 'GOOGLE_ADS')
        .fetchDailyReport(adPlatformId, from, to);
      const report = { impressionShare: fetched.impressionShare.filter((r) => imported.has(r.campaignId)) };
      if (report.impressionShare.length > 0) withShares++;
      const whole = (
        await rows('adplatform-accounts/google-ads', {
          startDate: from,
          endDate: to,
          statistics: SHARE_STATISTICS,
          filter: `id == ${id}`,
        })
      ).rows[0]!;
      expect(whole.statistics).toEqual(expectedShares(report.impressionShare));
      for (const bucket of accounts.filter((a) => a.id === id)) {
        const inBucket = report.impressionShare.filter(
          (r) => r.date.slice(0, 7) === bucket.segments.month && r.device === bucket.segments.deviceType,
        );
        const { impressions, ...shares } = bucket.statistics;
        expect(shares, `${id} ${bucket.segments.month} ${bucket.segments.deviceType}`).toEqual(
          expectedShares(inBucket),
        );
        expect(shares.searchImpressions!).toBeLessThanOrEqual(impressions!);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(4);
    expect(withShares).toBeGreaterThan(0);
  });

  it("reports the platform's bounds, in statistics, formulas and filters alike", async () => {
    // Two days long before the backfill window, where no sync writes: a campaign losing 93% to budget, then an ordinary day.
    const [target] = await server.service.db.read((r) =>
      r.all<{ campaign: number; account: number; adGroup: number; ad: number }>(
        `SELECT c.id AS campaign, c.adplatform_account_id AS account, g.id AS "adGroup", a.id AS ad
           FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id JOIN ad_groups g ON g.campaign_id = c.id JOIN ads a ON a.ad_group_id = g.id
          WHERE p.ad_platform_type = 'GOOGLE_ADS' ORDER BY c.id, a.id LIMIT 1`,
      ),
    );
    const day1 = { impressions: 50, eligible: 1000, budgetLost: 930, rankLost: 20, top: 40, absoluteTop: 10 };
    const day2 = { impressions: 600, eligible: 1000, budgetLost: 100, rankLost: 300, top: 420, absoluteTop: 200 };
    await server.service.db.write('all-organizations', async (tx) => {
      for (const [day, d] of [
        ['2024-01-01', day1],
        ['2024-01-02', day2],
      ] as const) {
        await tx.run(
          `INSERT INTO fact_impression_share_daily VALUES (1, $1::DATE, $2, $3, 'DESKTOP', 'SEARCH', $4, $5, $6, $7, $8, $9)`,
          [
            day,
            target!.account,
            target!.campaign,
            d.impressions,
            d.eligible,
            d.budgetLost,
            d.rankLost,
            d.top,
            d.absoluteTop,
          ],
        );
        // The ad row of the same impressions: a segmented report lists the buckets with activity.
        await tx.run(
          `INSERT INTO fact_ad_daily (organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id, device, network, impressions, clicks,
                                      cost, conversions, conversion_value, calls, call_conversions, call_conversions_fractional)
           VALUES (1, $1::DATE, $2, $3, $4, $5, 'DESKTOP', 'SEARCH', $6, 1, 1, 0, 0, 0, 0, 0)`,
          [day, target!.account, target!.campaign, target!.adGroup, target!.ad, d.impressions],
        );
      }
      // As every fact writer does: the rollups of the rows just written, in the same transaction.
      await rewriteRollups(tx, { organizationId: 1, from: '2024-01-01', to: '2024-01-02', hoursFrom: '2024-01-01' });
    });
    const query = {
      statistics: SHARE_STATISTICS,
      filter: `id == ${target!.account}`,
      formulas: 'pct:statistics.searchImpressionShare * 100:Decimal',
    };
    const first = (
      await rows('adplatform-accounts/google-ads', { ...query, startDate: '2024-01-01', endDate: '2024-01-01' })
    ).rows[0]!;
    expect(first.statistics).toEqual({
      searchImpressions: 50,
      searchEligibleImpressions: 1000,
      searchImpressionShare: 0.0999,
      searchBudgetLostImpressionShare: 0.9001,
      searchRankLostImpressionShare: 0.02,
      searchTopImpressionShare: 0.0999,
      searchAbsoluteTopImpressionShare: 0.0999,
    });
    expect(first.formulas.pct).toBeCloseTo(9.99, 10);
    const both = (
      await rows('adplatform-accounts/google-ads', { ...query, startDate: '2024-01-01', endDate: '2024-01-02' })
    ).rows[0]!;
    // Sums over sums, never an average of the days' reported shares ((0.0999 + 0.6) / 2).
    expect(both.statistics.searchImpressionShare).toBeCloseTo(650 / 2000, 12);
    expect(both.statistics.searchBudgetLostImpressionShare).toBeCloseTo(1030 / 2000, 12);
    expect(both.statistics.searchRankLostImpressionShare).toBeCloseTo(320 / 2000, 12);
    expect(both.statistics.searchTopImpressionShare).toBeCloseTo(460 / 2000, 12);
    expect(both.statistics.searchAbsoluteTopImpressionShare).toBeCloseTo(210 / 2000, 12);
    const filtered = await rows('adplatform-accounts/google-ads', {
      ...query,
      startDate: '2024-01-01',
      endDate: '2024-01-01',
      filter: `id == ${target!.account} && statistics.searchImpressionShare == 0.0999`,
    });
    expect(filtered.rows.map((r) => r.id)).toEqual([target!.account]);
    const days = await rows('adplatform-accounts/google-ads', {
      ...query,
      startDate: '2024-01-01',
      endDate: '2024-01-02',
      segments: 'Day',
      totals: 'true',
    });
    expect(days.rows.map((r) => r.statistics.searchImpressionShare)).toEqual([0.0999, 0.6]);
    expect(days.totals!.searchImpressionShare).toBeCloseTo(650 / 2000, 12);
  });
});

describe('statistics an endpoint does not offer', () => {
  it.each([
    [
      'adplatform-accounts/google-ads',
      { statistics: 'reach' },
      'statistics',
      'reach',
      '/reporting/v0/adplatform-accounts/facebook',
    ],
    [
      'campaigns/facebook',
      { statistics: 'clicks,searchImpressionShare' },
      'statistics',
      'searchImpressionShare',
      '/reporting/v0/adplatform-accounts/google-ads',
    ],
    ['campaigns', { statistics: 'frequency' }, 'statistics', 'frequency', '/reporting/v0/campaigns/facebook'],
    ['ads', { filter: 'statistics.reach > 1' }, 'filter', 'reach', '/reporting/v0/ads/facebook'],
    ['campaigns', { sort: '-statistics.reach' }, 'sort', 'reach', '/reporting/v0/campaigns/facebook'],
    ['keywords', { formulas: 'f:statistics.reach * 2:Integer' }, 'formulas', 'reach', '/reporting/v0/ads/facebook'],
    [
      'adplatform-accounts',
      { statistics: 'searchTopImpressionShare' },
      'statistics',
      'searchTopImpressionShare',
      '/reporting/v0/adplatform-accounts/google-ads',
    ],
  ] as const)('%s %j: 400 on %s saying where %s is reported', async (path, query, field, statistic, where) => {
    const error = await refusal(path, query);
    expect(error.details[0]).toMatchObject({ field });
    expect(error.message).toContain(`statistics.${statistic} is not available on /reporting/v0/${path}`);
    expect(error.message).toContain(where);
  });

  it('still names unknown statistics as unknown, and has no FACEBOOK endpoint for other levels', async () => {
    const error = await refusal('ads/facebook', { statistics: 'reech' });
    expect(error.details[0]).toMatchObject({ field: 'statistics', code: 'unknown_statistic' });
    expect(error.message).toContain('reach, frequency');
    expect((await server.http.get(`${R}/keywords/facebook`, auth)).status).toBe(404);
  });

  it('lists each endpoint with its own statistics in /fields', async () => {
    const { endpoints } = (await server.http.get(`${R}/fields`, auth)).json as {
      endpoints: Array<{ path: string; statistics?: Array<{ name: string; additive: boolean; default: boolean }> }>;
    };
    const names = (path: string) => endpoints.find((e) => e.path === `${R}/${path}`)!.statistics!.map((s) => s.name);
    for (const path of ['adplatform-accounts/facebook', 'campaigns/facebook', 'ads/facebook']) {
      expect(names(path)).toEqual(expect.arrayContaining(['impressions', 'reach', 'frequency']));
      expect(names(path)).not.toContain('searchImpressionShare');
    }
    expect(names('adplatform-accounts/google-ads')).toEqual(
      expect.arrayContaining(['clicks', 'searchImpressionShare', 'searchAbsoluteTopImpressionShare']),
    );
    expect(names('adplatform-accounts/google-ads')).not.toContain('reach');
    expect(names('campaigns')).not.toContain('reach');
    const reach = endpoints
      .find((e) => e.path === `${R}/campaigns/facebook`)!
      .statistics!.find((s) => s.name === 'reach')!;
    expect(reach).toMatchObject({ additive: false, default: true });
  });
});
