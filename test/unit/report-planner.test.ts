import { describe, expect, it } from 'vitest';
import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import type { LevelPath } from '../../src/catalog/levels.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import type { ReportRequest } from '../../src/planner/report-plan.js';
import { ApiError } from '../../src/shared/errors.js';
import { compileReport } from '../../src/sql/compile-report.js';
import { reportRequestOf } from '../helpers/report-request.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const request = (overrides: Partial<ReportRequest> = {}): ReportRequest =>
  reportRequestOf({ organizationId: 7, ...overrides });
const plan = (path: LevelPath | `${LevelPath}/${'facebook' | 'google-ads'}`, overrides: Partial<ReportRequest> = {}) =>
  buildPlan(ENDPOINT_BY_PATH.get(path)!, request(overrides), NOW);

function refusal(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('planner: request -> plan', () => {
  it('defaults to the nine statistics and the 30 days ending yesterday', () => {
    const p = plan('campaigns');
    expect(p.statistics).toEqual([
      'impressions',
      'clicks',
      'cost',
      'conversions',
      'conversionValue',
      'ctr',
      'averageCpc',
      'conversionRate',
      'costPerConversion',
    ]);
    expect([p.from, p.to]).toEqual(['2026-10-23', '2026-11-21']);
  });

  it('places each filter conjunct where it can be evaluated', () => {
    const p = plan('campaigns', {
      filter:
        "segments.deviceType == 'MOBILE' && name != 'x' && statistics.clicks > 10 && (status == 'PAUSED' || statistics.ctr > 0.1)",
    });
    expect(p.factFilter).toMatchObject({ kind: 'compare', left: { operand: { kind: 'fact', column: 'device' } } });
    expect(p.entityFilter).toMatchObject({ kind: 'compare', left: { operand: { kind: 'dimension', column: 'name' } } });
    // The statistic conjunct and the mixed OR are evaluated on the buckets.
    expect(p.bucketFilter).toMatchObject({ kind: 'logical', op: 'and', right: { kind: 'logical', op: 'or' } });
  });

  it('maps the pre-rebranding platform names in comparisons and lists', () => {
    const p = plan('campaigns', { filter: "adPlatformType in ['ADWORDS', 'BING_ADS']" });
    expect(p.entityFilter).toMatchObject({ kind: 'in', list: ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'] });
  });

  it('knows fact fields by their own names only: segments.constructor is an unknown field, not a prototype member', () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      expect(refusal(() => plan('campaigns', { filter: `segments.${name} == 'x'` })).details[0]).toMatchObject({
        field: 'filter',
        code: 'invalid_expression',
      });
    }
  });

  it('refuses a device filter mixed with a statistic in one OR', () => {
    expect(
      refusal(() => plan('ads', { filter: "segments.deviceType == 'MOBILE' || statistics.clicks > 3" })).details[0],
    ).toMatchObject({ field: 'filter', code: 'unsupported_combination' });
  });

  it.each([
    [{ statistics: ['bogus'] }, 'statistics', /valid on \/campaigns: impressions, clicks/],
    [{ segments: ['Hourly'] }, 'segments', /valid: Day, Week/],
    // Issue 40: a segment the level's sources lack, and two breakdowns no one source has together.
    [{ segments: ['Age', 'Hour'] }, 'segments', /cannot be answered together/],
    [{ startDate: '2026-02-30' }, 'startDate', /not a date/],
    [{ startDate: '2026-05-02', endDate: '2026-05-01' }, 'endDate', /before startDate/],
    [{ startDate: '2020-01-01', endDate: '2026-01-02' }, 'endDate', /five years/],
    [{ filter: 'statistics.nope > 1' }, 'filter', /unknown field statistics\.nope at position 0/],
    [{ filter: "statistics.clicks > 'a'" }, 'filter', /cannot compare a number with a string/],
    [{ sort: 'customFields.field1' }, 'sort', /unknown sort key/],
    [{ embed: ['images'] }, 'embed', /cannot be embedded/],
    [{ formulas: ['a:statistics.clicks:Weird'] }, 'formulas', /type "Weird"/],
    [
      { formulas: [Array.from({ length: 21 }, (_, i) => `f${i}:statistics.clicks:Integer`).join(',')] },
      'formulas',
      /at most 20/,
    ],
  ] as const)('400 naming the parameter for %j', (overrides, field, message) => {
    const error = refusal(() => plan('campaigns', overrides as Partial<ReportRequest>));
    expect(error.status).toBe(400);
    expect(error.details[0]!.field).toBe(field);
    expect(error.message).toMatch(message);
  });
});

describe('compiler: plan -> SQL + parameters', () => {
  it('scopes every query to the organization and binds every value', () => {
    const hostile = "x'); DROP TABLE accounts; --";
    const compiled = compileReport(
      plan('accounts', {
        filter: `name == "${hostile}" && labels.tier == 'gold'`,
        name: 'A*',
        formulas: ['f:statistics.cost * 1.5:Money'],
        sort: '-formulas.f',
      }),
    ).page();
    expect(compiled.params[0]).toBe(7);
    expect(compiled.sql).toContain('a.organization_id = $1::BIGINT');
    expect(compiled.sql).toContain('f.organization_id = $1::BIGINT');
    expect(compiled.sql).not.toContain('DROP');
    expect(compiled.sql).not.toContain('gold');
    expect(compiled.sql).not.toContain('1.5');
    expect(compiled.params).toEqual(expect.arrayContaining([hostile, 'tier', 'gold', 1.5, 'A%']));
  });

  it('uses a LEFT JOIN without segments (every entity) and an inner join with them (active buckets)', () => {
    expect(compileReport(plan('campaigns')).page().sql).toMatch(/entities e LEFT JOIN sums s/);
    expect(compileReport(plan('campaigns', { segments: ['Day'] })).page().sql).toMatch(/entities e JOIN sums s/);
  });

  it('converts account money per day through fx_rates and only joins markups when costWithMarkup is asked', () => {
    const accounts = compileReport(plan('accounts')).page().sql;
    expect(accounts).toContain('fx_rates ra');
    expect(accounts).not.toContain('markups');
    expect(compileReport(plan('accounts', { statistics: ['costWithMarkup'] })).page().sql).toContain('markups mk');
    expect(compileReport(plan('campaigns', { filter: 'statistics.costWithMarkup > 1' })).page().sql).toContain(
      'markups mk',
    );
    expect(compileReport(plan('campaigns')).page().sql).not.toContain('fx_rates');
  });

  it('converts lower levels only with currency and money to convert; the code is a bound value; no currency, no FX join (issue 19)', () => {
    for (const path of ['campaigns', 'adgroups', 'keywords', 'ads', 'adplatform-accounts', 'ads/facebook'] as const) {
      expect(compileReport(plan(path)).page().sql, path).not.toMatch(/fx_rates|pa_rates|REPLACE/);
      expect(
        compileReport(plan(path, { statistics: ['costWithMarkup'], segments: ['Day'] })).page().sql,
        path,
      ).not.toMatch(/fx_rates|pa_rates/);
      const converted = compileReport(plan(path, { currency: "USD'; DROP TABLE fx_rates; --" })).page();
      expect(converted.sql, path).toContain('pa_rates');
      expect(converted.sql, path).not.toContain('DROP TABLE');
      expect(converted.params, path).toContain("USD'; DROP TABLE fx_rates; --");
    }
    // Counts only: nothing to convert, the rows merely say the currency.
    const counts = compileReport(plan('campaigns', { currency: 'USD', statistics: ['clicks', 'ctr'] })).page();
    expect(counts.sql).not.toMatch(/fx_rates|pa_rates/);
    expect(counts.sql).toMatch(/REPLACE \(\$\d+::VARCHAR AS currency\)/);
    // Accounts convert into the asked currency instead of each account's.
    expect(compileReport(plan('accounts', { currency: 'GBP' })).page().sql).toMatch(/ra\.currency = \$\d+::VARCHAR/);
    expect(compileReport(plan('accounts')).page().sql).toContain('ra.currency = e.currency');
    // The totals query learns the rows' currencies.
    expect(compileReport(plan('campaigns', { totals: true })).totals()?.sql).toContain('string_agg(DISTINCT currency');
  });

  it('reads audience runs and impression-share facts only on their endpoints and only when a statistic needs them', () => {
    const reach = compileReport(plan('campaigns/facebook')).page();
    expect(reach.sql).toContain('fact_audience_runs');
    expect(reach.params).toContain('FACEBOOK');
    expect(compileReport(plan('campaigns/facebook', { statistics: ['clicks'] })).page().sql).not.toContain(
      'fact_audience_runs',
    );
    expect(
      compileReport(plan('ads/facebook', { statistics: ['clicks'], filter: 'statistics.frequency > 2' })).page().sql,
    ).toContain('fact_audience_runs');
    const shares = compileReport(plan('adplatform-accounts/google-ads')).page();
    expect(shares.sql).toContain('fact_impression_share_daily');
    expect(shares.params).toContain('GOOGLE_ADS');
    expect(compileReport(plan('adplatform-accounts/google-ads', { statistics: ['cost'] })).page().sql).not.toContain(
      'fact_impression_share_daily',
    );
    expect(compileReport(plan('campaigns')).page().sql).not.toMatch(/fact_audience_runs|fact_impression_share_daily/);
  });

  it("defaults to the nine plus the endpoint's own statistics", () => {
    const names = (path: Parameters<typeof plan>[0]) => plan(path).statistics;
    expect(names('ads/facebook').slice(-2)).toEqual(['reach', 'frequency']);
    expect(names('adplatform-accounts/google-ads')).toHaveLength(14);
    expect(names('campaigns')).toHaveLength(9);
  });

  it('breaks sort ties by id and then segments, and adds a totals query only when asked', () => {
    const compiled = compileReport(plan('ads', { segments: ['Day'], sort: '-statistics.clicks' })).page();
    expect(compiled.sql).toMatch(/ORDER BY .* DESC NULLS LAST, r\.id ASC, r\.seg_0 ASC/s);
    expect(compileReport(plan('ads', { segments: ['Day'], sort: '-statistics.clicks' })).totals()).toBeUndefined();
    expect(compileReport(plan('ads', { totals: true })).totals()?.sql).toContain('FROM filtered');
  });
});
