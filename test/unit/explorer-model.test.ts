import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketStart, chartModel, MAX_BARS, MAX_LINES } from '../../src/explorer/chart-data.js';
import type { SegmentField } from '../../src/explorer/report-fields.js';
import { exportQuery, formulaText, formulaTypes, pageQuery, typedPosition } from '../../src/explorer/report-query.js';
import { DEFAULT_STATE, hashOfState, stateFromHash, type ReportState } from '../../src/explorer/report-state.js';

/**
 * The explorer's pure parts, outside the browser: the URL fragment that keeps a report's state,
 * the query it becomes, where a formula error lands in the formulas box, and what the chart draws.
 * (test/browser/explorer-browser.test.ts drives the whole page in Chromium against a real service.)
 */

const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,10}$/);
const day = fc
  .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const freeText = fc.string({ unit: 'grapheme', maxLength: 40 });
const limit = fc.constantFrom(25, 50, 100, 500, 1000, 7);

const stateArbitrary: fc.Arbitrary<ReportState> = fc
  .record({
    endpoint: fc.constantFrom('campaigns', 'accounts', 'campaigns/facebook', 'adplatform-accounts/google-ads'),
    preset: fc.option(fc.constantFrom('LAST_7_DAYS', 'THIS_MONTH', 'LAST_YEAR'), { nil: undefined }),
    startDate: day,
    endDate: fc.option(day, { nil: '' }),
    segments: fc.uniqueArray(fc.constantFrom('Day', 'Week', 'DeviceType', 'NetworkType'), { maxLength: 3 }),
    statistics: fc.uniqueArray(name, { maxLength: 4 }),
    filter: freeText,
    sort: freeText,
    formulas: freeText,
    currency: fc.constantFrom('', 'EUR', 'CHF'),
    limit,
    page: fc.nat(20),
    chart: fc.option(
      name.map((n) => `statistics.${n}`),
      { nil: undefined },
    ),
    compare: fc.option(
      fc.oneof(
        fc.constantFrom('PREVIOUS_PERIOD', 'PREVIOUS_YEAR'),
        fc.tuple(day, day).map(([a, b]) => `${a}..${b}`),
      ),
      { nil: undefined },
    ),
    drill: fc.array(
      fc.record({
        endpoint: fc.constantFrom('accounts', 'campaigns', 'adgroups', 'campaigns/facebook'),
        id: fc.integer({ min: 1, max: 2 ** 40 }),
        name: freeText,
      }),
      { maxLength: 3 },
    ),
  })
  .map((r) => ({
    endpoint: r.endpoint,
    dateRange: r.preset,
    startDate: r.preset === undefined ? r.startDate : '',
    endDate: r.preset === undefined ? r.endDate : '',
    segments: r.segments,
    statistics: r.statistics,
    filter: r.filter,
    sort: r.sort,
    formulas: r.formulas,
    currency: r.currency,
    limit: r.limit,
    offset: r.page * r.limit,
    chart: r.chart,
    // Issue 43: members a state has only when set.
    ...(r.compare === undefined ? {} : { compare: r.compare }),
    ...(r.drill.length === 0 ? {} : { drill: r.drill }),
  }));

describe('the URL fragment', () => {
  it('gives back every state it was made from, whatever the text of filter, sort and formulas', () => {
    fc.assert(
      fc.property(stateArbitrary, (state) => {
        expect(stateFromHash(`#${hashOfState(state)}`)).toEqual(state);
      }),
      { numRuns: 500 },
    );
  });

  it('is text a URL carries as it is: no space, no raw reserved character of a fragment', () => {
    fc.assert(
      fc.property(stateArbitrary, (state) => {
        expect(hashOfState(state)).toMatch(/^[A-Za-z0-9\-._~%!$'()*+,;=:@/?&]*$/);
      }),
    );
  });

  it('leaves defaults out, and an empty fragment is the default report', () => {
    expect(hashOfState(DEFAULT_STATE)).toBe('endpoint=campaigns&dateRange=LAST_30_DAYS');
    expect(stateFromHash('')).toEqual(DEFAULT_STATE);
  });

  it('reads what it cannot use as the default: bad numbers, dates, an offset off the page grid', () => {
    const state = stateFromHash('#limit=-3&offset=abc&startDate=2026-13&endDate=x');
    expect(state.limit).toBe(DEFAULT_STATE.limit);
    expect(state.offset).toBe(0);
    expect(state.dateRange).toBe(DEFAULT_STATE.dateRange);
    expect(stateFromHash('#limit=50&offset=120').offset).toBe(100);
  });

  it('custom dates win over a preset named beside them', () => {
    const state = stateFromHash('#dateRange=LAST_7_DAYS&startDate=2026-01-01&endDate=2026-01-31');
    expect(state).toMatchObject({ dateRange: undefined, startDate: '2026-01-01', endDate: '2026-01-31' });
  });
});

describe('the report query', () => {
  it('asks a page with totals, per bucket when segmented; an export without paging or totals', () => {
    const state: ReportState = {
      ...DEFAULT_STATE,
      segments: ['Day'],
      statistics: ['clicks'],
      filter: "name == 'a'",
      limit: 25,
      offset: 50,
    };
    expect(pageQuery(state)).toEqual({
      dateRange: 'LAST_30_DAYS',
      segments: ['Day'],
      statistics: ['clicks'],
      filter: "name == 'a'",
      limit: 25,
      offset: 50,
      totals: 'segments',
    });
    expect(pageQuery({ ...state, segments: [] }).totals).toBe('true');
    expect(exportQuery(state)).toEqual({
      dateRange: 'LAST_30_DAYS',
      segments: ['Day'],
      statistics: ['clicks'],
      filter: "name == 'a'",
    });
    expect(exportQuery({ ...state, dateRange: undefined, startDate: '2026-01-01', endDate: '' })).toMatchObject({
      startDate: '2026-01-01',
    });
    expect(exportQuery({ ...state, currency: 'EUR' }).currency).toBe('EUR');
    expect(exportQuery(state)).not.toHaveProperty('currency');
  });
});

describe('formulas: one per line in the box, one comma list on the wire', () => {
  it('joins the non-blank lines, trimmed, with commas', () => {
    expect(formulaText('  a:statistics.clicks:Integer \n\n b:statistics.cost / 2:Money\n').value).toBe(
      'a:statistics.clicks:Integer,b:statistics.cost / 2:Money',
    );
    expect(formulaText(' \n ').value).toBe('');
  });

  it("carries every position of the sent text back to the same character of the box's text", () => {
    const line = fc
      .tuple(
        fc.stringMatching(/^[ \t]{0,3}$/),
        fc.stringMatching(/^[a-z:.() ]{0,12}[a-z]$/),
        fc.stringMatching(/^[ \t]{0,3}$/),
      )
      .map(([before, text, after]) => `${before}${text}${after}`);
    fc.assert(
      fc.property(fc.array(fc.oneof(line, fc.constant('')), { minLength: 1, maxLength: 6 }), (lines) => {
        const typed = lines.join('\n');
        const formulas = formulaText(typed);
        for (let position = 0; position < formulas.value.length; position++) {
          if (formulas.value[position] === ',') continue;
          expect(typed[typedPosition(formulas, position)]).toBe(formulas.value[position]);
        }
      }),
    );
  });

  it("reads each formula's type for the table, and none from a line that is not one formula", () => {
    const types = formulaTypes(
      formulaText(
        ' cpa : statistics.cost / statistics.conversions : Money\nshare:statistics.clicks / 2:Percentage\nbad line',
      ),
    );
    expect([...types]).toEqual([
      ['cpa', 'Money'],
      ['share', 'Percentage'],
    ]);
  });

  it('puts a position at the end of the text at the end of the last formula', () => {
    const typed = 'a:statistics.clicks:Integer\nb:statistics.cost +';
    const formulas = formulaText(typed);
    expect(typedPosition(formulas, formulas.value.length)).toBe(typed.length);
  });
});

const segment = (name: string, key: string): SegmentField => ({ name, key: `segments.${key}`, description: '' });
const DAY = segment('Day', 'day');
const DEVICE = segment('DeviceType', 'deviceType');

describe('the chart', () => {
  it('draws a time segment as a line over the bucket starts, from the segment totals', () => {
    const model = chartModel({
      segments: [DAY],
      measure: 'statistics.ctr',
      measureLabel: 'ctr',
      rows: [],
      segmentTotals: [
        { segments: { day: '2026-11-02' }, ctr: 0.5 },
        { segments: { day: '2026-11-01' }, ctr: null },
        { segments: { day: '2026-11-04' }, ctr: 0.25 },
      ],
      nameField: 'name',
      mixedCurrencies: false,
    });
    expect(model).toEqual({
      kind: 'line',
      title: 'ctr by Day',
      unit: 'Day',
      xs: [Date.UTC(2026, 10, 1) / 1000, Date.UTC(2026, 10, 2) / 1000, Date.UTC(2026, 10, 4) / 1000],
      series: [{ label: 'ctr', values: [null, 0.5, 0.25] }],
    });
  });

  it('draws a line per value of the other segments, with gaps where a bucket had no activity', () => {
    const model = chartModel({
      segments: [DEVICE, DAY],
      measure: 'statistics.clicks',
      measureLabel: 'clicks',
      rows: [],
      segmentTotals: [
        { segments: { day: '2026-11-01', deviceType: 'MOBILE' }, clicks: 3 },
        { segments: { day: '2026-11-01', deviceType: 'DESKTOP' }, clicks: 4 },
        { segments: { day: '2026-11-02', deviceType: 'MOBILE' }, clicks: 5 },
      ],
      nameField: 'name',
      mixedCurrencies: false,
    });
    expect(model).toMatchObject({
      kind: 'line',
      title: 'clicks by Day and DeviceType',
      series: [
        { label: 'MOBILE', values: [3, 5] },
        { label: 'DESKTOP', values: [4, null] },
      ],
    });
  });

  it(`draws at most ${MAX_LINES} lines`, () => {
    const segmentTotals = Array.from({ length: MAX_LINES + 5 }, (_, i) => ({
      segments: { day: '2026-11-01', deviceType: `D${i}` },
      clicks: i,
    }));
    const model = chartModel({
      segments: [DAY, DEVICE],
      measure: 'statistics.clicks',
      measureLabel: 'clicks',
      rows: [],
      segmentTotals,
      nameField: 'name',
      mixedCurrencies: false,
    });
    expect(model.kind === 'line' && model.series.length).toBe(MAX_LINES);
  });

  it('draws other segments as bars per bucket, and an unsegmented page as bars per row', () => {
    expect(
      chartModel({
        segments: [DEVICE],
        measure: 'statistics.cost',
        measureLabel: 'cost',
        rows: [],
        segmentTotals: [
          { segments: { deviceType: 'DESKTOP' }, cost: 1.5 },
          { segments: { deviceType: 'MOBILE' }, cost: null },
        ],
        nameField: 'name',
        mixedCurrencies: false,
      }),
    ).toEqual({ kind: 'bars', title: 'cost by DeviceType', labels: ['DESKTOP', 'MOBILE'], values: [1.5, null] });
    const rows = Array.from({ length: MAX_BARS + 3 }, (_, i) => ({ id: i, text: `kw ${i}`, formulas: { f: i * 2 } }));
    const model = chartModel({
      segments: [],
      measure: 'formulas.f',
      measureLabel: 'f',
      rows,
      segmentTotals: undefined,
      nameField: 'text',
      mixedCurrencies: false,
    });
    expect(model.kind).toBe('bars');
    if (model.kind !== 'bars') return;
    expect(model.labels).toEqual(rows.slice(0, MAX_BARS).map((r) => r.text));
    expect(model.values).toEqual(rows.slice(0, MAX_BARS).map((r) => r.formulas.f));
    expect(model.title).toContain(`first ${MAX_BARS} rows`);
  });

  it("draws a formula from the segment totals' formulas, not from a statistic of the same name", () => {
    const model = chartModel({
      segments: [DAY, DEVICE],
      measure: 'formulas.clicks',
      measureLabel: 'clicks',
      rows: [],
      segmentTotals: [
        { segments: { day: '2026-11-01', deviceType: 'MOBILE' }, clicks: 3, formulas: { clicks: 0.75 } },
        { segments: { day: '2026-11-02', deviceType: 'MOBILE' }, clicks: 5, formulas: { clicks: null } },
        { segments: { day: '2026-11-02', deviceType: 'DESKTOP' }, clicks: 4, formulas: { clicks: 1.5 } },
      ],
      nameField: 'name',
      mixedCurrencies: false,
    });
    expect(model).toEqual({
      kind: 'line',
      title: 'clicks by Day and DeviceType',
      unit: 'Day',
      xs: [Date.UTC(2026, 10, 1) / 1000, Date.UTC(2026, 10, 2) / 1000],
      series: [
        { label: 'MOBILE', values: [0.75, null] },
        { label: 'DESKTOP', values: [null, 1.5] },
      ],
    });
    expect(
      chartModel({
        segments: [DEVICE],
        measure: 'formulas.cpa',
        measureLabel: 'cpa',
        rows: [],
        segmentTotals: [{ segments: { deviceType: 'TABLET' }, formulas: { cpa: 2.25 } }],
        nameField: 'name',
        mixedCurrencies: false,
      }),
    ).toEqual({ kind: 'bars', title: 'cpa by DeviceType', labels: ['TABLET'], values: [2.25] });
  });

  it('says why it draws nothing: a formula without a total, no activity, only nulls', () => {
    const base = { segments: [DAY], rows: [], nameField: 'name', mixedCurrencies: false };
    expect(
      chartModel({ ...base, measure: 'formulas.cpa', measureLabel: 'cpa', segmentTotals: [{ segments: {} }] }).kind,
    ).toBe('none');
    expect(chartModel({ ...base, measure: 'statistics.clicks', measureLabel: 'clicks', segmentTotals: [] })).toEqual({
      kind: 'none',
      reason: 'No activity in this range.',
    });
    const nullMoney = [{ segments: { day: '2026-11-01' }, cost: null }];
    expect(chartModel({ ...base, measure: 'statistics.cost', measureLabel: 'cost', segmentTotals: nullMoney })).toEqual(
      {
        kind: 'none',
        reason: 'cost has no value to draw.',
      },
    );
    const mixed = chartModel({
      ...base,
      mixedCurrencies: true,
      measure: 'statistics.cost',
      measureLabel: 'cost',
      segmentTotals: nullMoney,
    });
    expect(mixed.kind === 'none' && mixed.reason).toContain('several currencies');
  });

  it('starts each time bucket on its first day (UTC)', () => {
    expect(bucketStart('Day', '2024-02-29')).toBe(Date.UTC(2024, 1, 29) / 1000);
    expect(bucketStart('Week', '2026-11-23')).toBe(Date.UTC(2026, 10, 23) / 1000);
    expect(bucketStart('Month', '2026-11')).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(bucketStart('Quarter', '2026-Q4')).toBe(Date.UTC(2026, 9, 1) / 1000);
    expect(bucketStart('Year', 2026)).toBe(Date.UTC(2026, 0, 1) / 1000);
    expect(bucketStart('Month', '2026-11-01')).toBeUndefined();
    expect(bucketStart('Quarter', '2026-Q5')).toBeUndefined();
    // Issue 40: the Sunday-first week, and an hour of the account's day.
    expect(bucketStart('WeekSunday', '2026-11-22')).toBe(Date.UTC(2026, 10, 22) / 1000);
    expect(bucketStart('Hour', '2026-11-22T07:00')).toBe(Date.UTC(2026, 10, 22, 7) / 1000);
    expect(bucketStart('Hour', '2026-11-22')).toBeUndefined();
  });
});
