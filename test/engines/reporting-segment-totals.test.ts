import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  audienceRuns,
  changeClose,
  compareRowProblems,
  entitiesOf,
  factDaily,
  pairBuckets,
  rowKey,
  SEGMENT_KEY,
  statistic,
  unionLength,
  type DailyRow,
  type PairedBucket,
  type Period,
  type SegmentName,
} from '../helpers/period-oracle.js';
import {
  addDays,
  approx,
  encodeQuery,
  LEVELS,
  startReportingFixture,
  type Level,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * Totals per segment (issue 23 item 4, contract D): `totals=segments` gives, besides `totals`,
 * `segmentTotals`, one entry per bucket of the whole filtered result. Checked against plain SQL
 * over the facts (sums per bucket, ratios of the summed sums, reach as the union of the
 * bucket's audience runs) and metamorphically: a Day entry is the totals of the same request
 * over that day alone, a DeviceType entry the totals of the request filtered to that device.
 * Organization 1 (index 0) has campaigns in EUR and CHF (and accounts in both), organization 2
 * only NOK.
 */

let fx: ReportingFixture;
let Y: string;

const level = (path: Level['path']) => LEVELS.find((l) => l.path === path)!;
const WIDE = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversionValue',
  'ctr',
  'averageCpc',
  'conversionRate',
  'costPerConversion',
  'calls',
  'callConversionsFractional',
  'totalConversions',
  'averageCpm',
  'roas',
];

interface Case {
  readonly path: Level['path'];
  readonly org: number;
  readonly range: Period;
  readonly segments: readonly SegmentName[];
  readonly statistics?: readonly string[];
  readonly currency?: string;
  readonly query?: QueryInput;
}

/** The report with totals=segments, all of it in one page. */
async function segmentTotalsOf(c: Case, extra: QueryInput = {}) {
  const lv = level(c.path);
  const res = await fx.report(lv.path, fx.orgs[c.org]!.token, {
    ...c.query,
    startDate: c.range.from,
    endDate: c.range.to,
    segments: c.segments.join(','),
    statistics: (c.statistics ?? WIDE).join(','),
    currency: c.currency,
    totals: 'segments',
    limit: 10_000,
    ...extra,
  });
  expect(res.status, res.text.slice(0, 400)).toBe(200);
  expect(Array.isArray(res.json.segmentTotals), JSON.stringify(Object.keys(res.json))).toBe(true);
  return res;
}

/** The oracle's buckets of the whole result (no entity), and whether each holds several currencies. */
async function expectedBuckets(c: Case): Promise<{ buckets: PairedBucket[]; mixed: (b: PairedBucket) => boolean }> {
  const lv = level(c.path);
  const org = fx.orgs[c.org]!;
  const [daily, entities] = await Promise.all([
    factDaily(fx, lv, org.id, c.range.from, c.range.to, { currency: c.currency }),
    entitiesOf(fx, lv, org.id),
  ]);
  const currencyOf = new Map(entities.map((e) => [e.id, e.currency]));
  const buckets = pairBuckets(daily, [], c.segments, { current: c.range, compared: c.range }, { byEntity: false });
  const mixed = (b: PairedBucket) =>
    c.currency === undefined && new Set([...b.currentIds].map((id) => currencyOf.get(id))).size > 1;
  return { buckets, mixed };
}

async function fetchAllRows(path: string, token: string, query: QueryInput): Promise<any[]> {
  const res = await fx.report(path, token, { ...query, limit: 10_000 });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  const plural = Object.keys(res.json)[0]!;
  expect(Number(res.headers['x-totalcount'])).toBe(res.json[plural].length);
  return res.json[plural];
}

function currenciesOf(warnings: any[] | undefined): string[][] {
  return (warnings ?? []).filter((w) => w.code === 'mixed_currencies').map((w) => w.currencies);
}

describe.each(['duckdb', 'clickhouse'] as const)('report engine %s', (engine) => {
  beforeAll(async () => {
    fx = await startReportingFixture({ world: 'scale2-60d', service: { reportEngine: engine } });
    Y = fx.yesterday;
  }, 360_000);
  afterAll(async () => {
    await fx?.close();
  });

  describe('segmentTotals against plain SQL over the facts', () => {
    const cases: Array<[string, () => Case]> = [
      [
        'campaigns per Day (one currency)',
        () => ({ path: 'campaigns', org: 1, range: { from: addDays(Y, -13), to: Y }, segments: ['Day'] }),
      ],
      [
        'adgroups per DeviceType',
        () => ({ path: 'adgroups', org: 1, range: { from: addDays(Y, -20), to: Y }, segments: ['DeviceType'] }),
      ],
      [
        'keywords per Day and DeviceType',
        () => ({ path: 'keywords', org: 1, range: { from: addDays(Y, -5), to: Y }, segments: ['Day', 'DeviceType'] }),
      ],
      [
        'campaigns per Week',
        () => ({ path: 'campaigns', org: 1, range: { from: addDays(Y, -25), to: Y }, segments: ['Week'] }),
      ],
      [
        'ads per DeviceType and Month',
        () => ({ path: 'ads', org: 1, range: { from: addDays(Y, -40), to: Y }, segments: ['DeviceType', 'Month'] }),
      ],
    ];
    for (const [label, make] of cases) {
      it(`${label}: one entry per bucket in segment order, statistics of the summed sums`, async () => {
        const c = make();
        const res = await segmentTotalsOf(c);
        const { buckets, mixed } = await expectedBuckets(c);
        expect(buckets.length).toBeGreaterThan(1);
        const entries = res.json.segmentTotals;
        for (const entry of entries) {
          expect(Object.keys(entry.segments).sort()).toEqual(c.segments.map((s) => SEGMENT_KEY[s]).sort());
          expect(entry.currency).toBe('NOK');
          expect(entry.comparison).toBeUndefined();
        }
        expect(compareRowProblems(entries, buckets, WIDE, { flat: true, compared: false, moneyNull: mixed })).toEqual(
          [],
        );
        // totals is there as with totals=true.
        const plain = await fx.report(c.path, fx.orgs[c.org]!.token, {
          startDate: c.range.from,
          endDate: c.range.to,
          segments: c.segments.join(','),
          statistics: WIDE.join(','),
          totals: 'true',
          limit: 1,
        });
        expect(res.json.totals).toEqual(plain.json.totals);
      });
    }

    it("ratios are ratios of the summed sums, never averages of the rows' ratios", async () => {
      const c: Case = { path: 'campaigns', org: 1, range: { from: addDays(Y, -6), to: Y }, segments: ['Day'] };
      const res = await segmentTotalsOf(c);
      const rows = res.json.campaigns as any[];
      let differs = 0;
      for (const entry of res.json.segmentTotals) {
        const dayRows = rows.filter((r) => r.segments.day === entry.segments.day && r.statistics.impressions > 0);
        const clicks = dayRows.reduce((s, r) => s + r.statistics.clicks, 0);
        const impressions = dayRows.reduce((s, r) => s + r.statistics.impressions, 0);
        expect(approx(entry.ctr, clicks / impressions, 1e-9, 1e-12)).toBe(true);
        const mean = dayRows.reduce((s, r) => s + r.statistics.ctr, 0) / dayRows.length;
        if (!approx(entry.ctr, mean, 1e-6, 0)) differs++;
      }
      expect(differs, "the mean of the rows' ctr is another number").toBeGreaterThan(0);
    });

    it('paging does not cut them: limit=1 at any offset gives the same segmentTotals, and the JSON members come in order', async () => {
      const c: Case = {
        path: 'adgroups',
        org: 1,
        range: { from: addDays(Y, -9), to: Y },
        segments: ['Day', 'DeviceType'],
      };
      const whole = await segmentTotalsOf(c);
      const { buckets } = await expectedBuckets(c);
      expect(whole.json.segmentTotals).toHaveLength(buckets.length);
      for (const offset of [0, 7, 500]) {
        const page = await segmentTotalsOf(c, { limit: 1, offset });
        expect(page.json.adGroups.length).toBeLessThanOrEqual(1);
        expect(page.json.segmentTotals).toEqual(whole.json.segmentTotals);
        expect(page.json.totals).toEqual(whole.json.totals);
      }
      const keys = Object.keys(whole.json);
      expect(keys.slice(0, 3)).toEqual(['adGroups', 'totals', 'segmentTotals']);
    });

    it('with a filter: over the filtered rows of all pages', async () => {
      const c: Case = {
        path: 'campaigns',
        org: 1,
        range: { from: addDays(Y, -9), to: Y },
        segments: ['Day'],
        query: { filter: 'statistics.clicks >= 3' },
      };
      const res = await segmentTotalsOf(c, { limit: 2 });
      const lv = level(c.path);
      const daily = await factDaily(fx, lv, fx.orgs[1]!.id, c.range.from, c.range.to);
      // Rows are (campaign, day) sums; the filter keeps those with 3 clicks or more.
      const perRow = new Map<string, DailyRow>();
      for (const r of daily) {
        const key = `${r.id}|${r.day}`;
        const found = perRow.get(key);
        if (!found) perRow.set(key, { ...r, device: '' });
        else
          for (const k of [
            'impressions',
            'clicks',
            'cost',
            'conversions',
            'conversionValue',
            'calls',
            'callConversions',
            'callConversionsFractional',
          ] as const)
            found[k] += r[k];
      }
      const kept = [...perRow.values()].filter((r) => r.clicks >= 3);
      expect(kept.length).toBeLessThan(perRow.size);
      const buckets = pairBuckets(kept, [], ['Day'], { current: c.range, compared: c.range }, { byEntity: false });
      expect(compareRowProblems(res.json.segmentTotals, buckets, WIDE, { flat: true, compared: false })).toEqual([]);
    });

    it('an empty result: no entries, zero totals', async () => {
      const res = await segmentTotalsOf(
        {
          path: 'campaigns',
          org: 1,
          range: { from: addDays(Y, -3), to: Y },
          segments: ['Day'],
          statistics: ['clicks', 'ctr'],
        },
        { filter: 'id < 0' },
      );
      expect(res.json.campaigns).toEqual([]);
      expect(res.json.segmentTotals).toEqual([]);
      expect(res.json.totals).toMatchObject({ clicks: 0, ctr: null });
    });
  });

  describe('segmentTotals are the totals of narrower requests', () => {
    it('each Day entry equals totals of the same request over that day alone (with a filter)', async () => {
      for (const org of [0, 1]) {
        const range = { from: addDays(Y, -4), to: Y };
        const query: QueryInput = { filter: 'statistics.impressions > 10' };
        const res = await segmentTotalsOf({ path: 'campaigns', org, range, segments: ['Day'], query });
        expect(res.json.segmentTotals.map((e: any) => e.segments.day)).toEqual(
          [0, 1, 2, 3, 4].map((i) => addDays(range.from, i)),
        );
        for (const entry of res.json.segmentTotals) {
          const day = entry.segments.day;
          const alone = await fx.report('campaigns', fx.orgs[org]!.token, {
            ...query,
            startDate: day,
            endDate: day,
            statistics: WIDE.join(','),
            totals: 'true',
            limit: 1,
          });
          expect(alone.status).toBe(200);
          const { segments, ...figures } = entry;
          expect(figures, day).toEqual(alone.json.totals);
          expect(segments).toEqual({ day });
        }
      }
    });

    it('each DeviceType entry equals totals of the request filtered by segments.deviceType', async () => {
      const range = { from: addDays(Y, -13), to: Y };
      for (const [path, org] of [
        ['campaigns', 1],
        ['accounts', 1],
        ['keywords', 1],
      ] as const) {
        const res = await segmentTotalsOf({ path, org, range, segments: ['DeviceType'] });
        expect(res.json.segmentTotals.length).toBeGreaterThan(2);
        for (const entry of res.json.segmentTotals) {
          const device = entry.segments.deviceType;
          const alone = await fx.report(path, fx.orgs[org]!.token, {
            startDate: range.from,
            endDate: range.to,
            filter: `segments.deviceType == '${device}'`,
            statistics: WIDE.join(','),
            totals: 'true',
            limit: 1,
          });
          expect(alone.status).toBe(200);
          const { segments: _segments, ...figures } = entry;
          for (const name of WIDE)
            expect(approx(figures[name], alone.json.totals[name], 1e-9, 1.01e-6), `${path} ${device} ${name}`).toBe(
              true,
            );
          expect(figures.currency).toBe(alone.json.totals.currency);
        }
      }
    });
  });

  describe('reach per bucket, deduplicated', () => {
    const STATS = ['impressions', 'reach', 'frequency'];

    it("campaigns/facebook per Day: each entry's reach is the union of the day's runs and the one-day request's totals reach", async () => {
      const range = { from: addDays(Y, -6), to: Y };
      const org = fx.orgs[0]!;
      const res = await fx.report('campaigns/facebook', org.token, {
        startDate: range.from,
        endDate: range.to,
        segments: 'Day',
        statistics: STATS.join(','),
        totals: 'segments',
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const runs = await audienceRuns(fx, org.id, range.from, range.to);
      expect(res.json.segmentTotals).toHaveLength(7);
      for (const entry of res.json.segmentTotals) {
        const day = entry.segments.day;
        const reach = unionLength(runs.filter((r) => r.day === day));
        expect(entry.reach, day).toBe(reach);
        expect(
          approx(entry.frequency, statistic('impressions', { ...zeroSums(), impressions: entry.impressions })! / reach),
        ).toBe(true);
        const alone = await fx.report('campaigns/facebook', org.token, {
          startDate: day,
          endDate: day,
          statistics: STATS.join(','),
          totals: 'true',
          limit: 1,
        });
        expect(entry.reach).toBe(alone.json.totals.reach);
      }
      // People reached on two days count once in the week's totals: less than the days' sum.
      expect(res.json.totals.reach).toBe(unionLength(runs));
      const daysSum = res.json.segmentTotals.reduce((s: number, e: any) => s + e.reach, 0);
      expect(res.json.totals.reach).toBeLessThan(daysSum);
    });

    it("ads/facebook per Week and DeviceType: the one (UNKNOWN) device bucket per week, reach of the week's runs", async () => {
      const range = { from: addDays(Y, -20), to: Y };
      const org = fx.orgs[0]!;
      const res = await fx.report('ads/facebook', org.token, {
        startDate: range.from,
        endDate: range.to,
        segments: 'Week,DeviceType',
        statistics: STATS.join(','),
        totals: 'segments',
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const runs = await audienceRuns(fx, org.id, range.from, range.to);
      const weeks = [...new Set(res.json.segmentTotals.map((e: any) => e.segments.week))];
      expect(weeks.length).toBe(res.json.segmentTotals.length);
      for (const entry of res.json.segmentTotals) {
        expect(entry.segments.deviceType).toBe('UNKNOWN');
        const week = entry.segments.week as string;
        const ofWeek = runs.filter((r) => r.day >= week && r.day <= addDays(week, 6));
        expect(entry.reach, week).toBe(unionLength(ofWeek));
        // Deduplicated over the week's days, not the sum of each day's reach.
        const days = [...new Set(ofWeek.map((r) => r.day))];
        if (days.length > 1)
          expect(entry.reach).toBeLessThan(
            days.reduce((s, day) => s + unionLength(ofWeek.filter((r) => r.day === day)), 0),
          );
      }
    });
  });

  function zeroSums() {
    return {
      impressions: 0,
      clicks: 0,
      cost: 0,
      conversions: 0,
      conversionValue: 0,
      calls: 0,
      callConversions: 0,
      callConversionsFractional: 0,
    };
  }

  describe('currencies in a bucket', () => {
    it('several currencies without currency=: money null in each mixed entry, one mixed_currencies warning', async () => {
      for (const [path, segments] of [
        ['campaigns', ['Day']],
        ['accounts', ['DeviceType']],
      ] as const) {
        const c: Case = { path, org: 0, range: { from: addDays(Y, -6), to: Y }, segments };
        const res = await segmentTotalsOf(c);
        const { buckets, mixed } = await expectedBuckets(c);
        expect(buckets.filter(mixed).length, 'mixed buckets').toBeGreaterThan(0);
        expect(
          compareRowProblems(res.json.segmentTotals, buckets, WIDE, { flat: true, compared: false, moneyNull: mixed }),
        ).toEqual([]);
        for (const [i, entry] of res.json.segmentTotals.entries()) {
          expect(entry.currency, rowKey(entry)).toBe(mixed(buckets[i]!) ? null : entry.currency);
          if (mixed(buckets[i]!)) expect(entry.cost).toBeNull();
        }
        expect(currenciesOf(res.json.warnings)).toEqual([['CHF', 'EUR']]);
        const keys = Object.keys(res.json);
        expect(keys.slice(0, 4)).toEqual([level(path).plural, 'totals', 'segmentTotals', 'warnings']);
      }
    });

    it("currency=USD: every entry in USD, money converted at each day's rates", async () => {
      for (const [path, segments] of [
        ['campaigns', ['Day']],
        ['accounts', ['Day', 'DeviceType']],
      ] as const) {
        const c: Case = { path, org: 0, range: { from: addDays(Y, -6), to: Y }, segments, currency: 'USD' };
        const res = await segmentTotalsOf(c);
        const { buckets, mixed } = await expectedBuckets(c);
        expect(
          compareRowProblems(res.json.segmentTotals, buckets, WIDE, { flat: true, compared: false, moneyNull: mixed }),
        ).toEqual([]);
        for (const entry of res.json.segmentTotals) expect(entry.currency).toBe('USD');
        expect(currenciesOf(res.json.warnings)).toEqual([]);
      }
    });
  });

  describe('segmentTotals with compare', () => {
    it('each entry carries comparison and change: the compared bucket at the same position (the oracle and the separate request)', async () => {
      const range = { from: addDays(Y, -9), to: Y };
      const compared = { from: addDays(Y, -19), to: addDays(Y, -10) };
      const org = fx.orgs[1]!;
      const lv = level('campaigns');
      const res = await segmentTotalsOf(
        { path: 'campaigns', org: 1, range, segments: ['Day'] },
        { compare: 'PREVIOUS_PERIOD' },
      );
      const [cur, cmp] = await Promise.all([
        factDaily(fx, lv, org.id, range.from, range.to),
        factDaily(fx, lv, org.id, compared.from, compared.to),
      ]);
      const buckets = pairBuckets(cur, cmp, ['Day'], { current: range, compared }, { byEntity: false });
      expect(compareRowProblems(res.json.segmentTotals, buckets, WIDE, { flat: true })).toEqual([]);
      // The separate request over the compared range: its i-th entry is the i-th entry's comparison.
      const alone = await segmentTotalsOf({ path: 'campaigns', org: 1, range: compared, segments: ['Day'] });
      expect(alone.json.segmentTotals).toHaveLength(res.json.segmentTotals.length);
      res.json.segmentTotals.forEach((entry: any, i: number) => {
        const { segments: _s, ...figures } = alone.json.segmentTotals[i];
        for (const name of WIDE) {
          expect(approx(entry.comparison[name], figures[name], 1e-9, 1.01e-6), `${i} ${name}`).toBe(true);
          expect(changeClose(entry.change[name], entry[name], entry.comparison[name]), `${i} change ${name}`).toBe(
            true,
          );
        }
      });
      expect(res.json.totals.comparison).toBeDefined();
    });

    it('per DeviceType against PREVIOUS_YEAR-free explicit range: devices pair by value', async () => {
      const range = { from: addDays(Y, -6), to: Y };
      const compared = { from: addDays(Y, -40), to: addDays(Y, -30) };
      const org = fx.orgs[1]!;
      const lv = level('adgroups');
      const res = await segmentTotalsOf(
        { path: 'adgroups', org: 1, range, segments: ['DeviceType'] },
        { compare: `${compared.from}..${compared.to}` },
      );
      const [cur, cmp] = await Promise.all([
        factDaily(fx, lv, org.id, range.from, range.to),
        factDaily(fx, lv, org.id, compared.from, compared.to),
      ]);
      const buckets = pairBuckets(cur, cmp, ['DeviceType'], { current: range, compared }, { byEntity: false });
      expect(compareRowProblems(res.json.segmentTotals, buckets, WIDE, { flat: true })).toEqual([]);
    });
  });

  describe('segmentTotals with compare: buckets of either period, reach of each period', () => {
    it('a bucket active only in the compared period has an entry: the current bucket at its position, zero current figures', async () => {
      const first = addDays(Y, -59); // the first generated day
      const range = { from: addDays(first, -3), to: addDays(first, 4) };
      const compared = { from: addDays(first, 10), to: addDays(first, 17) };
      const org = fx.orgs[1]!;
      const lv = level('campaigns');
      const res = await segmentTotalsOf(
        { path: 'campaigns', org: 1, range, segments: ['Day'] },
        { compare: `${compared.from}..${compared.to}` },
      );
      const [cur, cmp] = await Promise.all([
        factDaily(fx, lv, org.id, range.from, range.to),
        factDaily(fx, lv, org.id, compared.from, compared.to),
      ]);
      expect(cur.some((r) => r.day < first)).toBe(false);
      const buckets = pairBuckets(cur, cmp, ['Day'], { current: range, compared }, { byEntity: false });
      expect(buckets).toHaveLength(8);
      expect(compareRowProblems(res.json.segmentTotals, buckets, WIDE, { flat: true })).toEqual([]);
      for (const entry of res.json.segmentTotals.slice(0, 3)) {
        expect(entry).toMatchObject({ impressions: 0, clicks: 0, ctr: null });
        expect(entry.comparison.impressions).toBeGreaterThan(0);
        expect(entry.change.impressions).toBe(-1);
      }
    });

    it("campaigns/facebook per Day, PREVIOUS_PERIOD: each entry's comparison.reach is the union of the compared day's runs", async () => {
      const range = { from: addDays(Y, -4), to: Y };
      const compared = { from: addDays(Y, -9), to: addDays(Y, -5) };
      const org = fx.orgs[0]!;
      const res = await fx.report('campaigns/facebook', org.token, {
        startDate: range.from,
        endDate: range.to,
        segments: 'Day',
        statistics: 'impressions,reach,frequency',
        totals: 'segments',
        compare: 'PREVIOUS_PERIOD',
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const [curRuns, cmpRuns] = await Promise.all([
        audienceRuns(fx, org.id, range.from, range.to),
        audienceRuns(fx, org.id, compared.from, compared.to),
      ]);
      expect(res.json.segmentTotals).toHaveLength(5);
      res.json.segmentTotals.forEach((entry: any, i: number) => {
        expect(entry.segments.day).toBe(addDays(range.from, i));
        expect(entry.reach).toBe(unionLength(curRuns.filter((r) => r.day === addDays(range.from, i))));
        const reach = unionLength(cmpRuns.filter((r) => r.day === addDays(compared.from, i)));
        expect(entry.comparison.reach, `day ${i}`).toBe(reach);
        expect(changeClose(entry.change.reach, entry.reach, reach)).toBe(true);
      });
      expect(res.json.totals.reach).toBe(unionLength(curRuns));
      expect(res.json.totals.comparison.reach).toBe(unionLength(cmpRuns));
    });

    it('with a filter on change: each entry (and totals) sums the kept rows of its bucket in both periods', async () => {
      const org = fx.orgs[1]!;
      const query: QueryInput = {
        startDate: addDays(Y, -6),
        endDate: Y,
        compare: 'PREVIOUS_PERIOD',
        segments: 'Day',
        statistics: 'impressions,clicks,ctr',
      };
      const all = await fetchAllRows('campaigns', org.token, query);
      const kept = all.filter((r) => r.change.statistics.clicks !== null && r.change.statistics.clicks > 0);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(all.length);
      const res = await fx.report('campaigns', org.token, {
        ...query,
        filter: 'change.statistics.clicks > 0',
        totals: 'segments',
        limit: 3,
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const days = [...new Set(kept.map((r) => r.segments.day as string))].sort();
      expect(res.json.segmentTotals.map((e: any) => e.segments.day)).toEqual(days);
      const sum = (rows: any[], f: (r: any) => number) => rows.reduce((t, r) => t + f(r), 0);
      for (const entry of res.json.segmentTotals) {
        const rows = kept.filter((r) => r.segments.day === entry.segments.day);
        for (const name of ['impressions', 'clicks']) {
          expect(entry[name], `${entry.segments.day} ${name}`).toBe(sum(rows, (r) => r.statistics[name]));
          expect(entry.comparison[name], `${entry.segments.day} comparison.${name}`).toBe(
            sum(rows, (r) => r.comparison.statistics[name]),
          );
        }
        expect(changeClose(entry.change.clicks, entry.clicks, entry.comparison.clicks)).toBe(true);
      }
      expect(res.json.totals.clicks).toBe(sum(kept, (r) => r.statistics.clicks));
      expect(res.json.totals.comparison.clicks).toBe(sum(kept, (r) => r.comparison.statistics.clicks));
    });

    it("campaigns/facebook with a filter on change: totals reach of each period is the union of the kept campaigns' runs", async () => {
      const org = fx.orgs[0]!;
      const range = { from: addDays(Y, -6), to: Y };
      const compared = { from: addDays(Y, -13), to: addDays(Y, -7) };
      const query: QueryInput = {
        startDate: range.from,
        endDate: range.to,
        compare: 'PREVIOUS_PERIOD',
        statistics: 'impressions,reach',
      };
      const all = await fetchAllRows('campaigns/facebook', org.token, query);
      const changes = all
        .map((r) => r.change.statistics.impressions)
        .filter((c): c is number => c !== null)
        .sort((a, b) => a - b);
      expect(changes.length).toBeGreaterThan(2);
      const cut = Number(((changes[0]! + changes[changes.length - 1]!) / 2).toPrecision(6));
      const kept = new Set(
        all
          .filter((r) => r.change.statistics.impressions !== null && r.change.statistics.impressions > cut)
          .map((r) => r.id),
      );
      expect(kept.size).toBeGreaterThan(0);
      expect(kept.size).toBeLessThan(all.length);
      const res = await fx.report('campaigns/facebook', org.token, {
        ...query,
        filter: `change.statistics.impressions > ${cut}`,
        totals: 'true',
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(new Set(res.json.campaigns.map((r: any) => r.id))).toEqual(kept);
      const [curRuns, cmpRuns] = await Promise.all([
        audienceRuns(fx, org.id, range.from, range.to),
        audienceRuns(fx, org.id, compared.from, compared.to),
      ]);
      expect(res.json.totals.reach).toBe(unionLength(curRuns.filter((r) => kept.has(r.campaignId))));
      expect(res.json.totals.comparison.reach).toBe(unionLength(cmpRuns.filter((r) => kept.has(r.campaignId))));
    });

    it('campaigns/facebook per Day with a filter on change: reach of each period over the kept (campaign, day) buckets only', async () => {
      const org = fx.orgs[0]!;
      const range = { from: addDays(Y, -5), to: Y };
      const compared = { from: addDays(Y, -40), to: addDays(Y, -35) };
      const query: QueryInput = {
        startDate: range.from,
        endDate: range.to,
        compare: `${compared.from}..${compared.to}`,
        segments: 'Day',
        statistics: 'impressions,reach',
      };
      const all = await fetchAllRows('campaigns/facebook', org.token, query);
      const changes = all
        .map((r) => r.change.statistics.impressions)
        .filter((c): c is number => c !== null)
        .sort((a, b) => a - b);
      expect(changes.length).toBeGreaterThan(4);
      const cut = Number(changes[Math.floor(changes.length / 2)]!.toPrecision(8));
      const kept = all.filter((r) => r.change.statistics.impressions !== null && r.change.statistics.impressions > cut);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(all.length);
      const keptKeys = new Set(kept.map((r) => `${r.id}|${r.segments.day}`));
      const res = await fx.report('campaigns/facebook', org.token, {
        ...query,
        filter: `change.statistics.impressions > ${cut}`,
        totals: 'segments',
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(res.json.campaigns.map((r: any) => `${r.id}|${r.segments.day}`)).toEqual([...keptKeys]);
      const [curRuns, cmpRuns] = await Promise.all([
        audienceRuns(fx, org.id, range.from, range.to),
        audienceRuns(fx, org.id, compared.from, compared.to),
      ]);
      // A compared run's day is moved to the report's day at the same position.
      const shift = (day: string) => addDays(range.from, (Date.parse(day) - Date.parse(compared.from)) / 86_400_000);
      const curKept = curRuns.filter((r) => keptKeys.has(`${r.campaignId}|${r.day}`));
      const cmpKept = cmpRuns.filter((r) => keptKeys.has(`${r.campaignId}|${shift(r.day)}`));
      expect(res.json.totals.reach).toBe(unionLength(curKept));
      expect(res.json.totals.comparison.reach).toBe(unionLength(cmpKept));
      for (const entry of res.json.segmentTotals) {
        const day = entry.segments.day as string;
        expect(entry.reach, day).toBe(unionLength(curKept.filter((r) => r.day === day)));
        expect(entry.comparison.reach, `${day} compared`).toBe(
          unionLength(cmpKept.filter((r) => shift(r.day) === day)),
        );
      }
    });

    it('totals=segments and totals=true have different ETags; a totals=true ETag does not answer 304 to totals=segments', async () => {
      const org = fx.orgs[1]!;
      const query: QueryInput = { startDate: addDays(Y, -3), endDate: Y, segments: 'Day', statistics: 'clicks' };
      const get = (q: QueryInput, etag?: string) =>
        fx.http.get(`/reporting/v0/campaigns?${encodeQuery(q)}`, {
          authorization: `Bearer ${org.token}`,
          ...(etag ? { 'if-none-match': etag } : {}),
        });
      const plain = await get({ ...query, totals: 'true' });
      const perSegment = await get({ ...query, totals: 'segments' });
      expect(plain.headers.etag).toBeDefined();
      expect(perSegment.headers.etag).not.toBe(plain.headers.etag);
      const stale = await get({ ...query, totals: 'segments' }, String(plain.headers.etag));
      expect(stale.status).toBe(200);
      expect(stale.json.segmentTotals).toHaveLength(4);
    });
  });

  describe('bad totals input: 400 with the error envelope', () => {
    async function bad(query: QueryInput, field: string) {
      const res = await fx.report('campaigns', fx.orgs[0]!.token, query);
      expect(res.status, `${JSON.stringify(query)}: ${res.text.slice(0, 300)}`).toBe(400);
      const error = res.json?.error;
      expect(error).toMatchObject({
        status: 400,
        code: expect.any(String),
        message: expect.any(String),
        requestId: expect.any(String),
      });
      expect(error.details?.[0]?.field, JSON.stringify(error)).toBe(field);
      return error as { message: string; details: Array<{ message: string }> };
    }

    it('totals=segments without segments', async () => {
      const error = await bad({ totals: 'segments' }, 'totals');
      expect(`${error.message} ${error.details.map((d) => d.message).join(' ')}`).toContain('segments');
      await bad({ totals: 'segments', segments: '' }, 'segments');
    });

    it('totals=segments with an export format', async () => {
      for (const format of ['csv', 'ndjson', 'parquet'])
        await bad({ totals: 'segments', segments: 'Day', format }, 'totals');
    });

    it('totals=bogus and other spellings', async () => {
      for (const totals of ['bogus', 'SEGMENTS', 'segment', '', '1']) await bad({ totals, segments: 'Day' }, 'totals');
    });

    it('nothing logged as a server error on the way', () => {
      expect(fx.errors).toEqual([]);
    });
  });
});
