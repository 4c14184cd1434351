import { describe, expect, it } from 'vitest';
import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import { DATE_PRESETS } from '../../src/planner/date-presets.js';
import type { ReportRequest } from '../../src/planner/report-plan.js';
import { ApiError } from '../../src/shared/errors.js';
import { reportRequestOf } from '../helpers/report-request.js';

/**
 * dateRange presets resolved by the planner at fixed clocks (issue 23 item 1). Every expected
 * range below was worked out by hand from a calendar (weekdays checked with `date -u -d`), not
 * from the code: LAST_n_DAYS end yesterday, weeks are ISO weeks (Monday..Sunday), THIS_* run to
 * today, LAST_* are the whole previous period, all in UTC days.
 */

type Range = readonly [from: string, to: string];
type Expected = Readonly<Record<(typeof DATE_PRESETS)[number], Range>>;

const CLOCKS: ReadonlyArray<{ readonly now: string; readonly why: string; readonly expected: Expected }> = [
  {
    now: '2026-01-01T00:00:00.000Z',
    why: '1 January (a Thursday): year, quarter and month start; this ISO week began in December',
    expected: {
      TODAY: ['2026-01-01', '2026-01-01'],
      YESTERDAY: ['2025-12-31', '2025-12-31'],
      LAST_7_DAYS: ['2025-12-25', '2025-12-31'],
      LAST_14_DAYS: ['2025-12-18', '2025-12-31'],
      LAST_30_DAYS: ['2025-12-02', '2025-12-31'],
      LAST_90_DAYS: ['2025-10-03', '2025-12-31'],
      THIS_WEEK: ['2025-12-29', '2026-01-01'],
      LAST_WEEK: ['2025-12-22', '2025-12-28'],
      THIS_MONTH: ['2026-01-01', '2026-01-01'],
      LAST_MONTH: ['2025-12-01', '2025-12-31'],
      THIS_QUARTER: ['2026-01-01', '2026-01-01'],
      LAST_QUARTER: ['2025-10-01', '2025-12-31'],
      THIS_YEAR: ['2026-01-01', '2026-01-01'],
      LAST_YEAR: ['2025-01-01', '2025-12-31'],
    },
  },
  {
    now: '2026-11-22T23:59:59.999Z',
    why: 'a Sunday, the last millisecond of the UTC day: the week is Monday 16 to today',
    expected: {
      TODAY: ['2026-11-22', '2026-11-22'],
      YESTERDAY: ['2026-11-21', '2026-11-21'],
      LAST_7_DAYS: ['2026-11-15', '2026-11-21'],
      LAST_14_DAYS: ['2026-11-08', '2026-11-21'],
      LAST_30_DAYS: ['2026-10-23', '2026-11-21'],
      LAST_90_DAYS: ['2026-08-24', '2026-11-21'],
      THIS_WEEK: ['2026-11-16', '2026-11-22'],
      LAST_WEEK: ['2026-11-09', '2026-11-15'],
      THIS_MONTH: ['2026-11-01', '2026-11-22'],
      LAST_MONTH: ['2026-10-01', '2026-10-31'],
      THIS_QUARTER: ['2026-10-01', '2026-11-22'],
      LAST_QUARTER: ['2026-07-01', '2026-09-30'],
      THIS_YEAR: ['2026-01-01', '2026-11-22'],
      LAST_YEAR: ['2025-01-01', '2025-12-31'],
    },
  },
  {
    now: '2026-11-23T00:00:00.000Z',
    why: 'a Monday, its first millisecond: this week is today alone, last week ended yesterday',
    expected: {
      TODAY: ['2026-11-23', '2026-11-23'],
      YESTERDAY: ['2026-11-22', '2026-11-22'],
      LAST_7_DAYS: ['2026-11-16', '2026-11-22'],
      LAST_14_DAYS: ['2026-11-09', '2026-11-22'],
      LAST_30_DAYS: ['2026-10-24', '2026-11-22'],
      LAST_90_DAYS: ['2026-08-25', '2026-11-22'],
      THIS_WEEK: ['2026-11-23', '2026-11-23'],
      LAST_WEEK: ['2026-11-16', '2026-11-22'],
      THIS_MONTH: ['2026-11-01', '2026-11-23'],
      LAST_MONTH: ['2026-10-01', '2026-10-31'],
      THIS_QUARTER: ['2026-10-01', '2026-11-23'],
      LAST_QUARTER: ['2026-07-01', '2026-09-30'],
      THIS_YEAR: ['2026-01-01', '2026-11-23'],
      LAST_YEAR: ['2025-01-01', '2025-12-31'],
    },
  },
  {
    now: '2024-02-29T12:00:00.000Z',
    why: '29 February of a leap year (a Thursday)',
    expected: {
      TODAY: ['2024-02-29', '2024-02-29'],
      YESTERDAY: ['2024-02-28', '2024-02-28'],
      LAST_7_DAYS: ['2024-02-22', '2024-02-28'],
      LAST_14_DAYS: ['2024-02-15', '2024-02-28'],
      LAST_30_DAYS: ['2024-01-30', '2024-02-28'],
      LAST_90_DAYS: ['2023-12-01', '2024-02-28'],
      THIS_WEEK: ['2024-02-26', '2024-02-29'],
      LAST_WEEK: ['2024-02-19', '2024-02-25'],
      THIS_MONTH: ['2024-02-01', '2024-02-29'],
      LAST_MONTH: ['2024-01-01', '2024-01-31'],
      THIS_QUARTER: ['2024-01-01', '2024-02-29'],
      LAST_QUARTER: ['2023-10-01', '2023-12-31'],
      THIS_YEAR: ['2024-01-01', '2024-02-29'],
      LAST_YEAR: ['2023-01-01', '2023-12-31'],
    },
  },
  {
    now: '2024-03-01T06:00:00.000Z',
    why: 'the day after 29 February (a Friday): last month ends on the 29th',
    expected: {
      TODAY: ['2024-03-01', '2024-03-01'],
      YESTERDAY: ['2024-02-29', '2024-02-29'],
      LAST_7_DAYS: ['2024-02-23', '2024-02-29'],
      LAST_14_DAYS: ['2024-02-16', '2024-02-29'],
      LAST_30_DAYS: ['2024-01-31', '2024-02-29'],
      LAST_90_DAYS: ['2023-12-02', '2024-02-29'],
      THIS_WEEK: ['2024-02-26', '2024-03-01'],
      LAST_WEEK: ['2024-02-19', '2024-02-25'],
      THIS_MONTH: ['2024-03-01', '2024-03-01'],
      LAST_MONTH: ['2024-02-01', '2024-02-29'],
      THIS_QUARTER: ['2024-01-01', '2024-03-01'],
      LAST_QUARTER: ['2023-10-01', '2023-12-31'],
      THIS_YEAR: ['2024-01-01', '2024-03-01'],
      LAST_YEAR: ['2023-01-01', '2023-12-31'],
    },
  },
  {
    now: '2026-09-30T08:00:00.000Z',
    why: 'the last day of a quarter (a Wednesday): this quarter is the whole of it',
    expected: {
      TODAY: ['2026-09-30', '2026-09-30'],
      YESTERDAY: ['2026-09-29', '2026-09-29'],
      LAST_7_DAYS: ['2026-09-23', '2026-09-29'],
      LAST_14_DAYS: ['2026-09-16', '2026-09-29'],
      LAST_30_DAYS: ['2026-08-31', '2026-09-29'],
      LAST_90_DAYS: ['2026-07-02', '2026-09-29'],
      THIS_WEEK: ['2026-09-28', '2026-09-30'],
      LAST_WEEK: ['2026-09-21', '2026-09-27'],
      THIS_MONTH: ['2026-09-01', '2026-09-30'],
      LAST_MONTH: ['2026-08-01', '2026-08-31'],
      THIS_QUARTER: ['2026-07-01', '2026-09-30'],
      LAST_QUARTER: ['2026-04-01', '2026-06-30'],
      THIS_YEAR: ['2026-01-01', '2026-09-30'],
      LAST_YEAR: ['2025-01-01', '2025-12-31'],
    },
  },
  {
    now: '2027-01-03T15:30:00.000Z',
    why: 'a Sunday three days into a year: this ISO week began in the old year, last week lies wholly in it',
    expected: {
      TODAY: ['2027-01-03', '2027-01-03'],
      YESTERDAY: ['2027-01-02', '2027-01-02'],
      LAST_7_DAYS: ['2026-12-27', '2027-01-02'],
      LAST_14_DAYS: ['2026-12-20', '2027-01-02'],
      LAST_30_DAYS: ['2026-12-04', '2027-01-02'],
      LAST_90_DAYS: ['2026-10-05', '2027-01-02'],
      THIS_WEEK: ['2026-12-28', '2027-01-03'],
      LAST_WEEK: ['2026-12-21', '2026-12-27'],
      THIS_MONTH: ['2027-01-01', '2027-01-03'],
      LAST_MONTH: ['2026-12-01', '2026-12-31'],
      THIS_QUARTER: ['2027-01-01', '2027-01-03'],
      LAST_QUARTER: ['2026-10-01', '2026-12-31'],
      THIS_YEAR: ['2027-01-01', '2027-01-03'],
      LAST_YEAR: ['2026-01-01', '2026-12-31'],
    },
  },
];

const campaigns = ENDPOINT_BY_PATH.get('campaigns')!;
const request = (overrides: Partial<ReportRequest>): ReportRequest =>
  reportRequestOf({ organizationId: 7, ...overrides });

function refusal(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('dateRange presets resolved at fixed clocks', () => {
  for (const clock of CLOCKS) {
    it(`${clock.now}: ${clock.why}`, () => {
      const now = new Date(clock.now);
      const got = Object.fromEntries(
        DATE_PRESETS.map((preset) => {
          const plan = buildPlan(campaigns, request({ dateRange: preset }), now);
          return [preset, [plan.from, plan.to]];
        }),
      );
      expect(got).toEqual(clock.expected);
    });
  }

  it('lists the fourteen presets of the issue, in its order', () => {
    expect(DATE_PRESETS).toEqual([
      'TODAY',
      'YESTERDAY',
      'LAST_7_DAYS',
      'LAST_14_DAYS',
      'LAST_30_DAYS',
      'LAST_90_DAYS',
      'THIS_WEEK',
      'LAST_WEEK',
      'THIS_MONTH',
      'LAST_MONTH',
      'THIS_QUARTER',
      'LAST_QUARTER',
      'THIS_YEAR',
      'LAST_YEAR',
    ]);
  });

  it('a preset plans exactly what its dates plan: the same plan, so the same SQL and ETag', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const byPreset = buildPlan(campaigns, request({ dateRange: 'LAST_MONTH', segments: ['Day'] }), now);
    const byDates = buildPlan(
      campaigns,
      request({ startDate: '2026-10-01', endDate: '2026-10-31', segments: ['Day'] }),
      now,
    );
    expect(byPreset).toEqual(byDates);
    // LAST_30_DAYS is the default range.
    expect(buildPlan(campaigns, request({ dateRange: 'LAST_30_DAYS' }), now)).toEqual(
      buildPlan(campaigns, request({}), now),
    );
  });

  it('with startDate or endDate as well: a 400 naming dateRange', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    for (const dates of [
      { startDate: '2026-11-01' },
      { endDate: '2026-11-10' },
      { startDate: '2026-11-01', endDate: '2026-11-10' },
    ]) {
      const error = refusal(() => buildPlan(campaigns, request({ dateRange: 'LAST_7_DAYS', ...dates }), now));
      expect(error.status).toBe(400);
      expect(error.code).toBe('invalid_parameter');
      expect(error.details).toEqual([expect.objectContaining({ field: 'dateRange' })]);
      expect(error.message).toMatch(/startDate|endDate/);
    }
  });

  it('an unknown preset (wrong case, a number of days not offered, empty): a 400 listing every preset', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    for (const dateRange of ['last_7_days', 'LAST_3_DAYS', 'ALL_TIME', '', 'TODAY ', 'x'.repeat(500)]) {
      const error = refusal(() => buildPlan(campaigns, request({ dateRange }), now));
      expect(error.status, dateRange).toBe(400);
      expect(error.details).toEqual([expect.objectContaining({ field: 'dateRange' })]);
      for (const preset of DATE_PRESETS) expect(error.message, dateRange).toContain(preset);
      // The echo of the value is cut short.
      expect(error.message.length).toBeLessThan(400);
    }
  });
});
