import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, approx, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/*
 * Issue 36 item 15: formulas have totals. A formula's total is the formula over the totals' sums
 * (as a ratio statistic is the ratio of the summed sums), in `totals.formulas` and in each
 * `segmentTotals` entry's `formulas`, with compare in `comparison.formulas` and `change.formulas`.
 * Expected values are the formulas evaluated here over sums of plain SQL on the fact table (or,
 * for reach and converted money, over the totals' own statistics).
 */
let fx: ReportingFixture;
let token: string;
let orgId: number;
let from: string;
let to: string;

interface Sums {
  clicks: number;
  impressions: number;
  conversions: number;
}

/** Sums of the organization's facts over a range, optionally per device, by plain SQL. */
async function factSums(start: string, end: string): Promise<Sums>;
async function factSums(start: string, end: string, byDevice: true): Promise<Map<string, Sums>>;
async function factSums(start: string, end: string, byDevice = false): Promise<Sums | Map<string, Sums>> {
  const rows = await fx.sql<Sums & { device: string }>(
    `SELECT ${byDevice ? 'f.device::VARCHAR' : "'all'"} AS device, coalesce(sum(f.clicks), 0)::DOUBLE AS clicks,
            coalesce(sum(f.impressions), 0)::DOUBLE AS impressions, coalesce(sum(f.conversions), 0)::DOUBLE AS conversions
       FROM fact_ad_daily f WHERE f.organization_id = $1 AND f.day BETWEEN $2::DATE AND $3::DATE
      GROUP BY ALL`,
    [orgId, start, end],
  );
  if (!byDevice) return rows[0] ?? { clicks: 0, impressions: 0, conversions: 0 };
  return new Map(rows.map((r) => [r.device, r]));
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
/** The formulas of the request below, evaluated over sums (division by zero: null). */
const FORMULAS = [
  'perMille:statistics.clicks * 1000 / statistics.impressions:Decimal',
  'ctrTimes100:statistics.ctr * 100:Decimal',
  'convPerClick:statistics.conversions / statistics.clicks:Percentage',
  'nothing:statistics.clicks / (statistics.impressions - statistics.impressions):Decimal',
  'clicks:statistics.clicks + 1:Integer',
];
function expectedFormulas(s: Sums): Record<string, number | null> {
  const div = (a: number, b: number) => (b === 0 ? null : a / b);
  const perMille = div(s.clicks * 1000, s.impressions);
  const ctr = div(s.clicks, s.impressions);
  return {
    perMille: perMille === null ? null : round6(perMille),
    ctrTimes100: ctr === null ? null : round6(ctr * 100),
    convPerClick: div(s.conversions, s.clicks),
    nothing: null,
    clicks: s.clicks + 1,
  };
}

function expectFormulasClose(actual: Record<string, unknown>, expected: Record<string, number | null>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, value] of Object.entries(expected))
    expect(approx(actual[name] as number | null, value), `${name}: ${String(actual[name])} vs ${value}`).toBe(true);
}

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'scale2-45d' });
  token = fx.orgs[0]!.token;
  orgId = fx.orgs[0]!.id;
  to = fx.yesterday;
  from = addDays(to, -13);
}, 300_000);
afterAll(() => fx.close());

describe('formula totals', () => {
  it('totals.formulas: each formula over the summed sums; a zero denominator is null', async () => {
    const res = await fx.report('campaigns', token, {
      startDate: from,
      endDate: to,
      statistics: 'clicks,impressions',
      formulas: FORMULAS,
      totals: true,
    });
    expect(res.status).toBe(200);
    const sums = await factSums(from, to);
    expect(sums.clicks).toBeGreaterThan(0);
    expectFormulasClose(res.json.totals.formulas, expectedFormulas(sums));
    // A formula named like a statistic does not replace the statistic's total.
    expect(res.json.totals.clicks).toBe(sums.clicks);
    expect(res.json.totals.formulas.clicks).toBe(sums.clicks + 1);
  });

  it("segmentTotals carry each bucket's formulas over its sums", async () => {
    const res = await fx.report('campaigns', token, {
      startDate: from,
      endDate: to,
      statistics: 'clicks',
      segments: 'DeviceType',
      formulas: FORMULAS,
      totals: 'segments',
    });
    expect(res.status).toBe(200);
    const byDevice = await factSums(from, to, true);
    const buckets = res.json.segmentTotals as Array<{
      segments: { deviceType: string };
      formulas: Record<string, unknown>;
    }>;
    expect(buckets.map((b) => b.segments.deviceType).sort()).toEqual([...byDevice.keys()].sort());
    for (const bucket of buckets)
      expectFormulasClose(bucket.formulas, expectedFormulas(byDevice.get(bucket.segments.deviceType)!));
    expectFormulasClose(res.json.totals.formulas, expectedFormulas(await factSums(from, to)));
  });

  it('with compare: comparison.formulas over the compared sums, change.formulas between the two', async () => {
    const res = await fx.report('campaigns', token, {
      startDate: addDays(to, -6),
      endDate: to,
      statistics: 'clicks',
      formulas: FORMULAS,
      compare: 'PREVIOUS_PERIOD',
      totals: true,
    });
    expect(res.status).toBe(200);
    const current = expectedFormulas(await factSums(addDays(to, -6), to));
    const compared = expectedFormulas(await factSums(addDays(to, -13), addDays(to, -7)));
    expectFormulasClose(res.json.totals.formulas, current);
    expectFormulasClose(res.json.totals.comparison.formulas, compared);
    // change is computed from the unrounded values: compare loosely.
    const change = res.json.totals.change.formulas as Record<string, number | null>;
    for (const name of ['perMille', 'ctrTimes100', 'convPerClick']) {
      const c = compared[name]!;
      expect(approx(change[name], (current[name]! - c) / c, 1e-5), name).toBe(true);
    }
    expect(change.nothing).toBeNull();
  });

  it("a formula over reach (not additive) is the formula over the totals' deduplicated reach", async () => {
    // An organization with FACEBOOK campaigns (the generator gives some to each world, not to every organization).
    const [withReach] = await fx.sql<{ id: number }>(
      `SELECT DISTINCT organization_id::INTEGER AS id FROM campaigns WHERE ad_platform_type = 'FACEBOOK' ORDER BY 1`,
    );
    const facebookToken = fx.orgs.find((o) => o.id === withReach!.id)!.token;
    const res = await fx.report('campaigns/facebook', facebookToken, {
      startDate: from,
      endDate: to,
      statistics: 'impressions,reach,frequency',
      formulas: ['twiceReach:statistics.reach * 2:Integer', 'freq:statistics.impressions / statistics.reach:Decimal'],
      totals: true,
    });
    expect(res.status).toBe(200);
    const { reach, impressions, frequency } = res.json.totals as {
      reach: number;
      impressions: number;
      frequency: number;
    };
    expect(reach).toBeGreaterThan(0);
    expect(res.json.totals.formulas.twiceReach).toBe(reach * 2);
    expect(approx(res.json.totals.formulas.freq, round6(impressions / reach))).toBe(true);
    expect(approx(res.json.totals.formulas.freq, frequency)).toBe(true);
  });

  it('a money formula: null over several currencies, the formula of the converted sums with currency=', async () => {
    // An organization whose campaigns are in several currencies.
    const mixedOrgs = await fx.sql<{ id: number }>(
      `SELECT c.organization_id::INTEGER AS id FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
        GROUP BY ALL HAVING count(DISTINCT p.currency) > 1 ORDER BY 1`,
    );
    expect(mixedOrgs.length).toBeGreaterThan(0);
    const mixedToken = fx.orgs.find((o) => o.id === mixedOrgs[0]!.id)!.token;
    const query = {
      startDate: from,
      endDate: to,
      statistics: 'clicks,cost',
      formulas: [
        'cpc:statistics.cost / statistics.clicks:Money',
        'perMille:statistics.clicks * 1000 / statistics.impressions:Decimal',
      ],
      totals: true,
    };
    const plain = await fx.report('campaigns', mixedToken, query);
    expect(plain.status).toBe(200);
    expect(plain.json.totals.currency).toBeNull();
    expect(plain.json.totals.formulas.cpc).toBeNull();
    // A formula without money keeps its total.
    expect(plain.json.totals.formulas.perMille).not.toBeNull();
    const converted = await fx.report('campaigns', mixedToken, { ...query, currency: 'EUR' });
    const totals = converted.json.totals as { cost: number; clicks: number; formulas: { cpc: number } };
    expect(totals.formulas.cpc).not.toBeNull();
    expect(approx(totals.formulas.cpc, round6(totals.cost / totals.clicks), 1e-6, 2e-6)).toBe(true);
  });

  it('without formulas, totals have no formulas member', async () => {
    const res = await fx.report('campaigns', token, {
      startDate: from,
      endDate: to,
      statistics: 'clicks',
      totals: true,
    });
    expect(res.status).toBe(200);
    expect(res.json.totals.formulas).toBeUndefined();
  });
});
