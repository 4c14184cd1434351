import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addDays,
  approx,
  fetchAll,
  startReportingFixture,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * The segments Quarter and NetworkType (issue 23 item 3) through HTTP: against plain SQL over the
 * fact tables (quarters made from days here in JS), metamorphic relations (a quarter's sums are
 * its months' sums; NetworkType buckets sum to the unsegmented row), combinations with Day,
 * DeviceType and each other, filters and sorts on segments.quarter / segments.networkType, CSV,
 * with the rollups on and off.
 */

let fx: ReportingFixture;
let Y: string;
let token: string;
let orgId: number;
/** The generated days: 100 ending yesterday, so two quarters and four or five months. */
let FROM: string;

const NETWORKS = ['DISPLAY', 'SEARCH', 'SEARCH_PARTNERS', 'SOCIAL'];
const quarterOf = (day: string) => `${day.slice(0, 4)}-Q${Math.ceil(Number(day.slice(5, 7)) / 3)}`;

interface Daily {
  id: number;
  day: string;
  device: string;
  network: string;
  impressions: number;
  clicks: number;
  cost: number;
  conversions: number;
}
const SUMS = ['impressions', 'clicks', 'cost', 'conversions'] as const;
const STATISTICS = 'impressions,clicks,cost,conversions,ctr,averageCpc';
type Sums = Record<(typeof SUMS)[number], number> & { n: number };

/** Daily sums per entity, day, device and network of a level's fact table, in the entity's own currency. */
async function dailyFacts(table: string, key: string, from: string, to: string): Promise<Daily[]> {
  const rows = await fx.sql<Daily>(
    `SELECT ${key} AS id, strftime(day, '%Y-%m-%d') AS day, device::VARCHAR AS device, network::VARCHAR AS network,
            sum(impressions)::DOUBLE AS impressions, sum(clicks)::DOUBLE AS clicks, sum(cost)::DOUBLE AS cost,
            sum(conversions)::DOUBLE AS conversions
       FROM ${table} WHERE organization_id = $1 AND day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL`,
    [orgId, from, to],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

function bucket<T extends Record<(typeof SUMS)[number], number>>(
  rows: T[],
  key: (row: T) => string,
): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const row of rows) {
    const k = key(row);
    let sums = out.get(k);
    if (!sums) out.set(k, (sums = { impressions: 0, clicks: 0, cost: 0, conversions: 0, n: 0 }));
    sums.n++;
    for (const s of SUMS) sums[s] += Number(row[s]);
  }
  return out;
}

/** Differences between API rows and expected sums per key: integers exact, money within a half micro per part. */
function differences(rows: any[], expected: Map<string, Sums>, key: (row: any) => string, label: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const k = key(row);
    seen.add(k);
    const want = expected.get(k);
    if (!want) {
      problems.push(`${label}: unexpected row ${k}`);
      continue;
    }
    for (const s of SUMS) {
      const ok =
        s === 'impressions' || s === 'clicks'
          ? row.statistics[s] === want[s]
          : approx(row.statistics[s], want[s], 1e-9, (want.n + 1) * 1e-6);
      if (!ok) problems.push(`${label} ${k}: ${s} = ${row.statistics[s]}, expected ${want[s]}`);
    }
    const ctr = want.impressions === 0 ? null : want.clicks / want.impressions;
    if (!approx(row.statistics.ctr, ctr, 1e-6, 1e-9))
      problems.push(`${label} ${k}: ctr ${row.statistics.ctr} vs ${ctr}`);
    if (problems.length > 20) break;
  }
  for (const k of expected.keys()) if (!seen.has(k)) problems.push(`${label}: missing row ${k}`);
  return problems.slice(0, 25);
}

const LOWER = [
  { path: 'campaigns', plural: 'campaigns', table: 'fact_ad_daily', key: 'campaign_id' },
  { path: 'adplatform-accounts', plural: 'adPlatformAccounts', table: 'fact_ad_daily', key: 'adplatform_account_id' },
  { path: 'keywords', plural: 'keywords', table: 'fact_keyword_daily', key: 'keyword_id' },
] as const;

async function all(path: string, plural: string, query: QueryInput): Promise<any[]> {
  return (await fetchAll(fx, path, token, query, plural)).rows;
}

describe.each([true, false])('ADREPORT_ROLLUPS=%s', (rollups) => {
  beforeAll(async () => {
    fx = await startReportingFixture({ world: 'long-100d', service: { rollups } });
    Y = fx.yesterday;
    FROM = addDays(Y, -99);
    token = fx.orgs[0]!.token;
    orgId = fx.orgs[0]!.id;
  }, 480_000);
  afterAll(async () => {
    await fx?.close();
  });

  describe('against plain SQL over the facts', () => {
    for (const level of LOWER) {
      it(`${level.path}: Quarter, NetworkType, Quarter+NetworkType, NetworkType+DeviceType, DeviceType+Quarter`, async () => {
        const facts = await dailyFacts(level.table, level.key, FROM, Y);
        expect(new Set(facts.map((f) => quarterOf(f.day))).size).toBeGreaterThanOrEqual(2);
        const cases: Array<[segments: string, key: (f: Daily) => string, apiKey: (r: any) => string]> = [
          ['Quarter', (f) => `${f.id} ${quarterOf(f.day)}`, (r) => `${r.id} ${r.segments.quarter}`],
          ['NetworkType', (f) => `${f.id} ${f.network}`, (r) => `${r.id} ${r.segments.networkType}`],
          [
            'Quarter,NetworkType',
            (f) => `${f.id} ${quarterOf(f.day)} ${f.network}`,
            (r) => `${r.id} ${r.segments.quarter} ${r.segments.networkType}`,
          ],
          [
            'NetworkType,DeviceType',
            (f) => `${f.id} ${f.network} ${f.device}`,
            (r) => `${r.id} ${r.segments.networkType} ${r.segments.deviceType}`,
          ],
          [
            'DeviceType,Quarter',
            (f) => `${f.id} ${f.device} ${quarterOf(f.day)}`,
            (r) => `${r.id} ${r.segments.deviceType} ${r.segments.quarter}`,
          ],
        ];
        for (const [segments, key, apiKey] of cases) {
          const rows = await all(level.path, level.plural, {
            startDate: FROM,
            endDate: Y,
            segments,
            statistics: STATISTICS,
          });
          expect(rows.length, segments).toBeGreaterThan(0);
          expect(Object.keys(rows[0].segments), segments).toEqual(
            segments
              .split(',')
              .map((s) => (s === 'NetworkType' ? 'networkType' : s === 'DeviceType' ? 'deviceType' : 'quarter')),
          );
          for (const row of rows) {
            if (row.segments.quarter !== undefined) expect(row.segments.quarter).toMatch(/^\d{4}-Q[1-4]$/);
            if (row.segments.networkType !== undefined) expect(NETWORKS).toContain(row.segments.networkType);
          }
          expect(differences(rows, bucket(facts, key), apiKey, `${level.path} ${segments}`)).toEqual([]);
        }
      });
    }

    it('campaigns: Day,NetworkType over ten days, and NetworkType over a range inside one quarter', async () => {
      const from = addDays(Y, -9);
      const facts = await dailyFacts('fact_ad_daily', 'campaign_id', from, Y);
      const rows = await all('campaigns', 'campaigns', {
        startDate: from,
        endDate: Y,
        segments: 'Day,NetworkType',
        statistics: STATISTICS,
      });
      expect(
        differences(
          rows,
          bucket(facts, (f) => `${f.id} ${f.day} ${f.network}`),
          (r) => `${r.id} ${r.segments.day} ${r.segments.networkType}`,
          'Day,NetworkType',
        ),
      ).toEqual([]);
    });

    it('Google Ads impression-share sums per NetworkType come from the share facts, per network', async () => {
      const expected = await fx.sql<{ id: number; network: string; imp: number; eligible: number }>(
        `SELECT adplatform_account_id AS id, network::VARCHAR AS network, sum(impressions)::DOUBLE AS imp,
                sum(eligible_impressions)::DOUBLE AS eligible
           FROM fact_impression_share_daily WHERE organization_id = $1 AND day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL`,
        [orgId, FROM, Y],
      );
      expect(expected.length).toBeGreaterThan(0);
      const rows = await all('adplatform-accounts/google-ads', 'adPlatformAccounts', {
        startDate: FROM,
        endDate: Y,
        segments: 'NetworkType',
        statistics: 'clicks,searchImpressions,searchEligibleImpressions',
      });
      const byKey = new Map(rows.map((r) => [`${r.id} ${r.segments.networkType}`, r.statistics]));
      for (const e of expected) {
        const got = byKey.get(`${Number(e.id)} ${e.network}`);
        expect(got, `${e.id} ${e.network}`).toBeDefined();
        expect([got.searchImpressions, got.searchEligibleImpressions]).toEqual([e.imp, e.eligible]);
      }
    });
  });

  describe('metamorphic', () => {
    for (const [path, plural] of [
      ['accounts', 'accounts'],
      ['campaigns', 'campaigns'],
      ['keywords', 'keywords'],
    ] as const) {
      it(`${path}: a quarter's sums are the sums of its months (and its ratios the ratios of those sums)`, async () => {
        const query = { startDate: FROM, endDate: Y, statistics: STATISTICS };
        const quarters = await all(path, plural, { ...query, segments: 'Quarter' });
        const months = await all(path, plural, { ...query, segments: 'Month' });
        const monthKey = new Map(months.map((r) => [r, `${r.id} ${quarterOf(`${r.segments.month}-01`)}`]));
        const expected = bucket(
          months.map((r) => ({ ...r.statistics, row: r })),
          (s) => monthKey.get(s.row)!,
        );
        expect(differences(quarters, expected, (r) => `${r.id} ${r.segments.quarter}`, `${path} Quarter`)).toEqual([]);
      });

      it(`${path}: NetworkType buckets sum to the unsegmented row`, async () => {
        const query = { startDate: FROM, endDate: Y, statistics: STATISTICS };
        const whole = await all(path, plural, query);
        const parts = await all(path, plural, { ...query, segments: 'NetworkType' });
        const expected = bucket(
          parts.map((r) => ({ ...r.statistics, id: r.id })),
          (s) => String(s.id),
        );
        // Entities without any activity have no bucket: their unsegmented row is all zeros.
        const active = whole.filter((r) => expected.has(String(r.id)));
        for (const r of whole.filter((w) => !expected.has(String(w.id)))) expect(r.statistics.impressions).toBe(0);
        expect(active.length).toBeGreaterThan(0);
        expect(differences(active, expected, (r) => String(r.id), `${path} NetworkType`)).toEqual([]);
      });
    }

    it('FACEBOOK: every fact and reach run is SOCIAL, so the one bucket is the whole row, reach included', async () => {
      const query = { startDate: addDays(Y, -30), endDate: Y, statistics: 'impressions,clicks,cost,reach,frequency' };
      const whole = await all('ads/facebook', 'ads', query);
      const parts = await all('ads/facebook', 'ads', { ...query, segments: 'NetworkType' });
      expect(parts.length).toBeGreaterThan(0);
      const byId = new Map(whole.map((r) => [r.id, r.statistics]));
      for (const part of parts) {
        expect(part.segments).toEqual({ networkType: 'SOCIAL' });
        expect(part.statistics).toEqual(byId.get(part.id));
      }
      // Filtering the fact rows to SOCIAL changes nothing either; to SEARCH leaves no reach at all.
      const social = await all('ads/facebook', 'ads', { ...query, filter: "segments.networkType == 'SOCIAL'" });
      expect(social).toEqual(whole);
      const search = await all('ads/facebook', 'ads', { ...query, filter: "segments.networkType == 'SEARCH'" });
      for (const r of search) expect([r.statistics.impressions, r.statistics.reach]).toEqual([0, 0]);
    });
  });

  describe('filter and sort on the new segment keys', () => {
    // A getter: FROM and Y are set in beforeAll, after this describe is collected.
    const base = () => ({ startDate: FROM, endDate: Y, statistics: STATISTICS });

    it('segments.quarter filters the buckets; segments.networkType stays a fact filter, with or without the segment', async () => {
      const quarters = await all('campaigns', 'campaigns', { ...base(), segments: 'Quarter' });
      const last = quarterOf(Y);
      const filtered = await all('campaigns', 'campaigns', {
        ...base(),
        segments: 'Quarter',
        filter: `segments.quarter == '${last}'`,
      });
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered).toEqual(quarters.filter((r) => r.segments.quarter === last));
      const before = await all('campaigns', 'campaigns', {
        ...base(),
        segments: 'Quarter',
        filter: `segments.quarter < '${last}' && statistics.clicks > 0`,
      });
      expect(before).toEqual(quarters.filter((r) => r.segments.quarter < last && r.statistics.clicks > 0));

      const networks = await all('campaigns', 'campaigns', { ...base(), segments: 'NetworkType,Quarter' });
      const search = await all('campaigns', 'campaigns', {
        ...base(),
        segments: 'NetworkType,Quarter',
        filter: "segments.networkType in ['SEARCH', 'DISPLAY']",
      });
      expect(search.length).toBeGreaterThan(0);
      expect(search).toEqual(networks.filter((r) => ['SEARCH', 'DISPLAY'].includes(r.segments.networkType)));

      // Without the segment: the fact rows of the other networks are left out before summing.
      const facts = (await dailyFacts('fact_ad_daily', 'campaign_id', FROM, Y)).filter((f) => f.network !== 'SEARCH');
      const notSearch = await all('campaigns', 'campaigns', { ...base(), filter: "segments.networkType != 'SEARCH'" });
      const expected = bucket(facts, (f) => String(f.id));
      expect(
        differences(
          notSearch.filter((r) => expected.has(String(r.id))),
          expected,
          (r) => String(r.id),
          'networkType != SEARCH',
        ),
      ).toEqual([]);
    });

    it('sorts by segments.quarter and segments.networkType when requested; by default segments order as text', async () => {
      const rows = await all('campaigns', 'campaigns', {
        ...base(),
        segments: 'Quarter,NetworkType',
        sort: '-segments.quarter,segments.networkType,-statistics.clicks',
      });
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1].segments, rows[i].segments];
        expect(a.quarter >= b.quarter, `${i}`).toBe(true);
        if (a.quarter === b.quarter) expect(a.networkType <= b.networkType, `${i}`).toBe(true);
      }
      const natural = await all('campaigns', 'campaigns', { ...base(), segments: 'NetworkType,Quarter' });
      for (let i = 1; i < natural.length; i++) {
        const [a, b] = [natural[i - 1], natural[i]];
        if (a.id !== b.id) continue;
        expect(
          `${a.segments.networkType} ${a.segments.quarter}` < `${b.segments.networkType} ${b.segments.quarter}`,
          `${i}`,
        ).toBe(true);
      }
    });

    it('a filter or sort on a segment key that is not requested: 400 naming the parameter', async () => {
      for (const [query, parameter] of [
        [{ filter: "segments.quarter == '2026-Q4'" }, 'filter'],
        [{ sort: 'segments.quarter' }, 'sort'],
        [{ sort: 'segments.networkType' }, 'sort'],
        [{ segments: 'Quarter', sort: '-segments.networkType' }, 'sort'],
        // segments.networkType is tested on fact rows even when the segment is requested (as deviceType).
        [{ segments: 'NetworkType', filter: "segments.networkType == 'SEARCH' || statistics.clicks > 5" }, 'filter'],
      ] as const) {
        const res = await fx.report('campaigns', token, query);
        expect(res.status, JSON.stringify(query)).toBe(400);
        expect(res.json.error.details[0].field).toBe(parameter);
      }
    });
  });

  it('CSV: segments.quarter and segments.networkType columns, the JSON rows in the same order', async () => {
    const query = { startDate: addDays(Y, -40), endDate: Y, segments: 'Quarter,NetworkType', statistics: 'clicks' };
    const json = await all('adplatform-accounts', 'adPlatformAccounts', query);
    const csv = await fx.report('adplatform-accounts', token, { ...query, format: 'csv' });
    expect(csv.status).toBe(200);
    const records = parse(csv.text, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(records[0]!)).toEqual(expect.arrayContaining(['segments.quarter', 'segments.networkType']));
    expect(records.map((r) => `${r.id} ${r['segments.quarter']} ${r['segments.networkType']}`)).toEqual(
      json.map((r) => `${r.id} ${r.segments.quarter} ${r.segments.networkType}`),
    );
  });
});
