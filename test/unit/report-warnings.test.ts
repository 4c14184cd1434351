import { describe, expect, it } from 'vitest';
import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { STATISTICS } from '../../src/catalog/statistics.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import type { ReportRequest } from '../../src/planner/report-plan.js';
import { completeThroughOf, incompleteData } from '../../src/reporting/data-freshness.js';
import { inCurrency, moneySortKeys } from '../../src/reporting/money-sort.js';
import { mixedCurrencySort, unknownLabels, warningsHeader } from '../../src/reporting/report-warnings.js';
import { filteredLabelNames } from '../../src/sql/compile-report.js';
import { reportRequestOf } from '../helpers/report-request.js';

/* Issue 36 items 13, 14, 16: the pure parts of the new warnings. */
const NOW = new Date('2026-11-22T10:00:00Z');
const plan = (endpoint: string, overrides: Partial<ReportRequest>) =>
  buildPlan(ENDPOINT_BY_PATH.get(endpoint)!, reportRequestOf(overrides), NOW);

describe('money sort keys (item 14)', () => {
  it('a statistic is in a currency when it is money, or a ratio with money on one side only', () => {
    // Written out by hand from the statistics' definitions (README, statistics).
    const expected = [
      'cost',
      'costWithMarkup',
      'conversionValue',
      'averageCpc',
      'averageCpm',
      'costPerConversion',
      'valuePerConversion',
    ];
    expect(STATISTICS.filter(inCurrency).map((s) => s.name)).toEqual(expected);
  });

  it('names the sort keys in a currency, as sort= names them', () => {
    expect(moneySortKeys(plan('campaigns', { sort: '-statistics.cost,statistics.clicks' }))).toEqual([
      'statistics.cost',
    ]);
    expect(moneySortKeys(plan('campaigns', { sort: '-statistics.roas,-statistics.ctr' }))).toEqual([]);
    expect(moneySortKeys(plan('campaigns', { sort: '-statistics.averageCpc,statistics.cost' }))).toEqual([
      'statistics.averageCpc',
      'statistics.cost',
    ]);
    const formulas = ['cpa:statistics.cost / statistics.conversions:Decimal', 'twice:statistics.clicks * 2:Money'];
    const both = ['plain:statistics.clicks * 2:Integer', ...formulas];
    expect(
      moneySortKeys(plan('campaigns', { formulas: both, sort: 'formulas.plain,-formulas.cpa,formulas.twice' })),
    ).toEqual(['formulas.cpa', 'formulas.twice']);
  });

  it('compare: the compared amount is money, its change is not', () => {
    const compared = plan('campaigns', {
      compare: 'PREVIOUS_PERIOD',
      sort: '-change.statistics.cost,comparison.statistics.cost',
    });
    expect(moneySortKeys(compared)).toEqual(['comparison.statistics.cost']);
  });

  it('nothing with currency=: every amount is converted into one currency', () => {
    expect(moneySortKeys(plan('campaigns', { sort: '-statistics.cost', currency: 'EUR' }))).toEqual([]);
  });

  it('the warning and its header member', () => {
    const warning = mixedCurrencySort(['statistics.cost'], ['EUR', 'MXN', 'PLN']);
    expect(warning.message).toContain('statistics.cost');
    expect(warning.message).toContain('EUR, MXN, PLN');
    expect(warningsHeader([warning])).toBe('mixed_currency_sort;currencies="EUR MXN PLN"');
  });
});

describe('label names of a filter (item 16)', () => {
  it('only the names the filter spells, once each; not those of sort or embeds', () => {
    expect(
      filteredLabelNames(
        plan('accounts', {
          filter: "labels.region == 'EMEA' && (labels.tier != 'x' || labels.region == null) && statistics.clicks > 0",
          sort: 'labels.other',
          embed: ['labels'],
        }),
      ),
    ).toEqual(['region', 'tier']);
    expect(filteredLabelNames(plan('accounts', { filter: 'statistics.clicks > 0' }))).toEqual([]);
  });

  it('the warning names every unknown label and hints a name spelt in another case', () => {
    const warning = unknownLabels(['region', 'nope'], 'account', new Map([['region', ['Region']]]));
    expect(warning).toMatchObject({ code: 'unknown_labels', labels: ['region', 'nope'] });
    expect(warning.message).toContain('No account of this organization has a label named region, nope');
    expect(warning.message).toContain('Did you mean labels.Region (not labels.region)?');
    expect(warningsHeader([warning])).toBe('unknown_labels;labels="region nope"');
  });
});

describe('freshness with a never synced platform account (item 13)', () => {
  const account = (id: number, completeThrough: string | null) => ({
    id,
    adPlatformType: 'GOOGLE_ADS',
    syncedThrough: completeThrough,
    lastSyncedAt: null,
    completeThrough,
    backfillRunning: false,
  });

  it('the complete day is that of the synced accounts; null only when none was synced', () => {
    expect(completeThroughOf([account(1, '2026-11-10'), account(2, null), account(3, '2026-11-08')])).toBe(
      '2026-11-08',
    );
    expect(completeThroughOf([account(2, null)])).toBeNull();
    expect(completeThroughOf([])).toBeNull();
  });

  it('counts the never synced apart from those not final yet', () => {
    const platformAccounts = [account(1, '2026-11-10'), account(2, null), account(3, '2026-11-08')];
    const freshness = { completeThrough: completeThroughOf(platformAccounts), platformAccounts };
    // Through the complete day: only the never synced one.
    const inside = incompleteData(freshness, '2026-11-08')!;
    expect(inside).toMatchObject({ platformAccountIds: [2], neverSyncedIds: [2], completeThrough: '2026-11-08' });
    expect(inside.message).toMatch(/^1 of the 3 platform accounts of this report was never synced \(id 2\)/);
    // Past one account's complete day: that one may change, the never synced one is said apart.
    const past = incompleteData(freshness, '2026-11-09')!;
    expect(past).toMatchObject({ platformAccountCount: 2, platformAccountIds: [2, 3], neverSyncedCount: 1 });
    expect(past.message).toContain('1 of the 3 platform accounts of this report may still change');
    expect(warningsHeader([past])).toBe('incomplete_data;through="2026-11-08";accounts=2;never_synced=1');
    // All synced and final: nothing to say.
    const synced = [account(1, '2026-11-10')];
    expect(incompleteData({ completeThrough: '2026-11-10', platformAccounts: synced }, '2026-11-10')).toBeUndefined();
  });
});
