import { describe, expect, it } from 'vitest';
import { CALL_DETAIL_FIELDS, CALL_DETAIL_LABELS, CALL_DETAIL_UNITS } from '../../src/catalog/call-details.js';
import { SEGMENTS } from '../../src/catalog/segments.js';
import {
  FORMULA_TYPE_UNITS,
  FORMULA_TYPES,
  MONEY_MEASURES,
  STATISTICS,
  UNITS,
  type StatisticDefinition,
  type Unit,
} from '../../src/catalog/statistics.js';

/**
 * Issue 43: every statistic says how a person reads it. The unit follows from the type and the
 * formula, written here independently of the catalogue's literal units: a sum of money is money,
 * a count counts; a ratio of money over a count is money per thing (Avg. CPC), of money over money
 * a plain multiple (ROAS); a share or a ratio of a part over its whole (clicks of impressions) a
 * percent; any other ratio of counts a multiple (frequency).
 */
const PARTS_OF: Record<string, string> = { clicks: 'impressions', conversions: 'clicks' };

function expectedUnit(s: StatisticDefinition): Unit {
  const f = s.formula;
  if (s.type === 'Money') return 'money';
  if (s.type === 'Integer' || s.type === 'Decimal') return 'count';
  if (f.kind === 'share') return 'percent';
  if (f.kind !== 'ratio') throw new Error(`a Ratio statistic that is no ratio: ${s.name}`);
  const moneyOver = MONEY_MEASURES.has(f.numerator);
  const moneyUnder = MONEY_MEASURES.has(f.denominator);
  if (moneyOver && moneyUnder) return 'ratio';
  if (moneyOver) return 'money';
  if (moneyUnder) return 'ratio';
  return PARTS_OF[f.numerator] === f.denominator ? 'percent' : 'ratio';
}

describe('the units and labels of the catalogue', () => {
  it('every statistic has a unit of UNITS and a short label', () => {
    for (const s of STATISTICS) {
      expect(UNITS, s.name).toContain(s.unit);
      expect(s.label.length, s.name).toBeGreaterThan(0);
      expect(s.label.length, s.name).toBeLessThanOrEqual(24);
    }
    expect(new Set(STATISTICS.map((s) => s.label)).size, 'labels are distinct').toBe(STATISTICS.length);
  });

  it("each statistic's unit follows from its type and formula", () => {
    for (const s of STATISTICS) expect(s.unit, s.name).toBe(expectedUnit(s));
  });

  it('the units an analyst expects of the well-known statistics', () => {
    const unit = new Map(STATISTICS.map((s) => [s.name, s.unit]));
    const label = new Map(STATISTICS.map((s) => [s.name, s.label]));
    expect(
      [
        'cost',
        'conversionValue',
        'costWithMarkup',
        'averageCpc',
        'averageCpm',
        'costPerConversion',
        'valuePerConversion',
      ].map((n) => unit.get(n)),
    ).toEqual(Array(7).fill('money'));
    expect(
      ['ctr', 'conversionRate', 'searchImpressionShare', 'searchBudgetLostImpressionShare'].map((n) => unit.get(n)),
    ).toEqual(Array(4).fill('percent'));
    expect(['roas', 'frequency'].map((n) => unit.get(n))).toEqual(['ratio', 'ratio']);
    expect(
      ['impressions', 'clicks', 'conversions', 'calls', 'reach', 'totalConversions'].map((n) => unit.get(n)),
    ).toEqual(Array(6).fill('count'));
    expect(
      ['impressions', 'ctr', 'averageCpc', 'costPerConversion', 'conversionRate', 'roas'].map((n) => label.get(n)),
    ).toEqual(['Impressions', 'CTR', 'Avg. CPC', 'Cost / conv.', 'Conv. rate', 'ROAS']);
  });

  it('a formula type maps to a unit', () => {
    expect(Object.keys(FORMULA_TYPE_UNITS).sort()).toEqual([...FORMULA_TYPES].sort());
    expect(FORMULA_TYPE_UNITS).toEqual({ Integer: 'count', Decimal: 'count', Money: 'money', Percentage: 'percent' });
  });

  it('every segment has a label, distinct from the others', () => {
    for (const s of SEGMENTS) expect(s.label.length, s.name).toBeGreaterThan(0);
    expect(new Set(SEGMENTS.map((s) => s.label)).size).toBe(SEGMENTS.length);
    expect(SEGMENTS.find((s) => s.name === 'DeviceType')!.label).toBe('Device');
    expect(SEGMENTS.find((s) => s.name === 'HourOfDay')!.label).toBe('Hour of day');
  });

  it('every call-detail field has a label; durationSeconds is a duration', () => {
    for (const name of Object.keys(CALL_DETAIL_FIELDS)) expect(CALL_DETAIL_LABELS[name], name).toBeTruthy();
    expect(Object.keys(CALL_DETAIL_LABELS).sort()).toEqual(Object.keys(CALL_DETAIL_FIELDS).sort());
    expect(CALL_DETAIL_UNITS).toEqual({ durationSeconds: 'duration' });
  });
});
