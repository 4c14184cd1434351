import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/**
 * attributionWindows= (issue 40): Meta's attribution windows on the FACEBOOK endpoints. The facts
 * count the default setting (7-day click, 1-day view), so asking for it changes nothing; a window
 * counts its parts of the conversions once each (clicks nest); impressions, clicks, cost and reach
 * never change; the windows Meta stopped returning, unknown ones and the parameter where it is
 * not answered are 400s. Oracles: plain SQL over fact_ad_daily and the attribution parts.
 */

let fx: ReportingFixture;
let token: string;
let from: string;
let to: string;
const STATISTICS = 'impressions,clicks,cost,conversions,conversionValue,costPerConversion';

beforeAll(async () => {
  fx = await startReportingFixture({
    world: 'scale2-45d',
    service: { rateLimit: { ratePerSecond: 100_000, burst: 100_000, dbTimeMsPerSecond: 0 } },
  });
  token = fx.orgs[0]!.token;
  to = fx.yesterday;
  from = addDays(to, -13);
});
afterAll(async () => {
  await fx?.close();
});

type Row = { id: number; statistics: Record<string, number | null>; segments?: Record<string, unknown> };
async function campaigns(query: Record<string, string>): Promise<Row[]> {
  const res = await fx.report('campaigns/facebook', token, {
    startDate: from,
    endDate: to,
    statistics: STATISTICS,
    limit: '10000',
    ...query,
  });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.json.campaigns as Row[];
}
const byId = (rows: Row[]) => new Map(rows.map((r) => [r.id, r]));

/** Conversions per FACEBOOK campaign of the range under a set of parts, in plain SQL. */
async function conversionsOf(parts: string[]): Promise<Map<number, number>> {
  const rows = await fx.sql<{ id: number | bigint; c: number }>(
    `SELECT campaign_id AS id, sum(conversions)::DOUBLE AS c FROM fact_campaign_attribution_daily
      WHERE organization_id = $1 AND day BETWEEN $2::DATE AND $3::DATE
        AND attribution_part IN (SELECT unnest($4::VARCHAR[])) GROUP BY ALL`,
    [fx.orgs[0]!.id, from, to, parts],
  );
  return new Map(rows.map((r) => [Number(r.id), r.c]));
}

describe('attributionWindows', () => {
  it('the default setting answers exactly what the request without it answers', async () => {
    const plain = await campaigns({});
    expect(plain.length).toBeGreaterThan(0);
    expect(await campaigns({ attributionWindows: '7d_click,1d_view' })).toEqual(plain);
    expect(await campaigns({ attributionWindows: '1d_view,7d_click,1d_click' })).toEqual(plain);
  });

  it('the default parts sum exactly to the facts of every campaign day', async () => {
    const mismatched = await fx.sql<{ n: number | bigint }>(
      `WITH facts AS (SELECT organization_id, day, campaign_id, sum(conversions) AS c, sum(conversion_value) AS v, sum(clicks) AS k
                        FROM fact_ad_daily GROUP BY ALL),
            parts AS (SELECT organization_id, day, campaign_id,
                             sum(conversions) FILTER (WHERE attribution_part IN ('click_1d', 'click_7d', 'view_1d')) AS c,
                             sum(conversion_value) FILTER (WHERE attribution_part IN ('click_1d', 'click_7d', 'view_1d')) AS v,
                             sum(clicks) AS k
                        FROM fact_campaign_attribution_daily GROUP BY ALL)
       SELECT count(*) AS n FROM parts p JOIN facts f USING (organization_id, day, campaign_id)
        WHERE coalesce(p.c, 0) <> f.c OR coalesce(p.v, 0) <> f.v OR p.k <> f.k`,
    );
    expect(Number(mismatched[0]!.n)).toBe(0);
    // Every FACEBOOK campaign day with activity has its parts, and no other platform's has any.
    const platforms = await fx.sql<{ t: string }>(
      `SELECT DISTINCT p.ad_platform_type AS t FROM fact_campaign_attribution_daily a JOIN adplatform_accounts p ON p.id = a.adplatform_account_id`,
    );
    expect(platforms.map((p) => p.t)).toEqual(['FACEBOOK']);
  });

  it('each window counts its parts once; clicks nest; impressions, clicks and cost do not change', async () => {
    const plain = byId(await campaigns({}));
    const windows: Array<[string, string[]]> = [
      ['1d_click', ['click_1d']],
      ['7d_click', ['click_1d', 'click_7d']],
      ['28d_click', ['click_1d', 'click_7d', 'click_28d']],
      ['1d_view', ['view_1d']],
      ['1d_ev', ['engaged_view_1d']],
      ['28d_click,1d_view,1d_ev', ['click_1d', 'click_7d', 'click_28d', 'view_1d', 'engaged_view_1d']],
    ];
    const counted = new Map<string, Map<number, Row>>();
    for (const [asked, parts] of windows) {
      const rows = byId(await campaigns({ attributionWindows: asked }));
      counted.set(asked, rows);
      const oracle = await conversionsOf(parts);
      expect([...rows.keys()].sort()).toEqual([...plain.keys()].sort());
      for (const [id, row] of rows) {
        const base = plain.get(id)!;
        for (const name of ['impressions', 'clicks', 'cost'])
          expect(row.statistics[name], `${asked} ${id}`).toBe(base.statistics[name]);
        expect(row.statistics.conversions, `${asked} ${id}`).toBeCloseTo(oracle.get(id) ?? 0, 6);
      }
    }
    // Clicks nest: 1d <= 7d <= 28d, campaign by campaign; something falls beyond 7 days.
    let beyond = 0;
    for (const [id, row] of counted.get('7d_click')!) {
      const c1 = counted.get('1d_click')!.get(id)!.statistics.conversions!;
      const c28 = counted.get('28d_click')!.get(id)!.statistics.conversions!;
      expect(c1).toBeLessThanOrEqual(row.statistics.conversions! + 1e-9);
      expect(row.statistics.conversions!).toBeLessThanOrEqual(c28 + 1e-9);
      beyond += c28 - row.statistics.conversions!;
    }
    expect(beyond).toBeGreaterThan(0);
  });

  it('reach is unchanged, on the FACEBOOK platform accounts too, with totals', async () => {
    const query = { startDate: from, endDate: to, statistics: 'reach,clicks,conversions', totals: 'true' };
    const plain = await fx.report('adplatform-accounts/facebook', token, query);
    // The default's view window plus the clicks of 8-28 days: more conversions than the default.
    const windowed = await fx.report('adplatform-accounts/facebook', token, {
      ...query,
      attributionWindows: '28d_click,1d_view',
    });
    expect(windowed.status, windowed.text.slice(0, 300)).toBe(200);
    expect(windowed.json.totals.reach).toBe(plain.json.totals.reach);
    expect(windowed.json.totals.clicks).toBe(plain.json.totals.clicks);
    expect(windowed.json.totals.conversions).toBeGreaterThan(plain.json.totals.conversions);
  });

  it('refuses the removed windows with the date, unknown ones, and the endpoints that do not answer it', async () => {
    for (const window of ['7d_view', '28d_view']) {
      const res = await fx.report('campaigns/facebook', token, { attributionWindows: `1d_click,${window}` });
      expect(res.status).toBe(400);
      expect(res.json.error.details[0]).toMatchObject({
        field: 'attributionWindows',
        code: 'attribution_window_removed',
      });
      expect(res.json.error.details[0].message).toContain('2026-01-12');
    }
    for (const odd of ['constructor', '__proto__', '7D_CLICK'])
      expect(
        (await fx.report('campaigns/facebook', token, { attributionWindows: odd })).json.error.details[0].code,
      ).toBe('unknown_attribution_window');
    const unknown = await fx.report('campaigns/facebook', token, { attributionWindows: '3d_click' });
    expect(unknown.json.error.details[0]).toMatchObject({
      field: 'attributionWindows',
      code: 'unknown_attribution_window',
    });
    expect(unknown.json.error.details[0].message).toContain('28d_click');
    const ads = await fx.report('ads/facebook', token, { attributionWindows: '1d_click' });
    expect(ads.status).toBe(400);
    // Not answered per ad: the parameter is not there, as on the endpoints of every platform.
    expect(ads.json.error.details[0]).toMatchObject({ field: 'attributionWindows', code: 'unknown_parameter' });
    // With a breakdown or DeviceType, no source has both.
    for (const segments of ['Age', 'DeviceType'])
      expect(
        (await fx.report('campaigns/facebook', token, { attributionWindows: '1d_click', segments })).json.error
          .details[0],
      ).toMatchObject({ field: 'segments', code: 'segments_not_combinable' });
    const plain = await fx.report('campaigns', token, { attributionWindows: '1d_click' });
    expect(plain.status).toBe(400);
    expect(plain.json.error.details[0]).toMatchObject({ field: 'attributionWindows', code: 'unknown_parameter' });
    expect(fx.errors).toEqual([]);
  });
});
