import { assertNever } from '../shared/assert-never.js';

/**
 * The statistics catalogue (supplement 5): additive sums over the fact tables and ratios computed
 * from the sums of a bucket, never averaged. Each statistic says what it computes from the
 * bucket's base sums as a small formula; the SQL compiler renders it in its dialect.
 */
export type StatisticType = 'Integer' | 'Decimal' | 'Money' | 'Ratio';
/** The types a request's formulas may declare. */
export const FORMULA_TYPES = ['Integer', 'Decimal', 'Money', 'Percentage'] as const;
export type FormulaType = (typeof FORMULA_TYPES)[number];

/** Sums of the ad or keyword facts (costWithMarkup: of cost at the day's markup). */
export const FACT_MEASURES = [
  'impressions',
  'clicks',
  'cost',
  'costWithMarkup',
  'conversions',
  'conversionValue',
  'calls',
  'callConversions',
  'callConversionsFractional',
] as const;
/** Sums of GOOGLE_ADS impression-share counts (fact_impression_share_daily, Google Search only). */
export const SHARE_MEASURES = [
  'searchImpressions',
  'searchEligibleImpressions',
  'searchBudgetLostImpressions',
  'searchRankLostImpressions',
  'searchTopImpressions',
  'searchAbsoluteTopImpressions',
] as const;
export type FactMeasure = (typeof FACT_MEASURES)[number];
export type ShareMeasure = (typeof SHARE_MEASURES)[number];
/** `reach` is no sum: the length of the union of the bucket's FACEBOOK audience runs. */
export type BaseMeasure = FactMeasure | ShareMeasure | 'reach';

/** Where a measure comes from; an endpoint offers the statistics of its sources only. */
export type MeasureSource = 'facts' | 'impressionShare' | 'reach';

export function sourceOf(measure: BaseMeasure): MeasureSource {
  if (measure === 'reach') return 'reach';
  return (SHARE_MEASURES as readonly string[]).includes(measure) ? 'impressionShare' : 'facts';
}

/**
 * What a statistic computes from a bucket's base sums. `ratio` is a / b (x scale), null when b is
 * 0 (supplement 5); `share` is a ratio as Google reports it: under 0.1 as 0.0999 (`floor`), or
 * over 0.9 as 0.9001 (`ceiling`, the lost shares).
 */
export type StatisticFormula =
  | { readonly kind: 'measure'; readonly measure: BaseMeasure }
  | { readonly kind: 'sum'; readonly measures: readonly BaseMeasure[] }
  | {
      readonly kind: 'ratio';
      readonly numerator: BaseMeasure;
      readonly denominator: BaseMeasure;
      readonly scale?: number;
    }
  | {
      readonly kind: 'share';
      readonly numerator: BaseMeasure;
      readonly denominator: BaseMeasure;
      readonly clamp: 'floor' | 'ceiling';
    };

export interface StatisticDefinition {
  readonly name: string;
  readonly type: StatisticType;
  /** Additive statistics may be summed over buckets; ratios must be recomputed from sums. */
  readonly additive: boolean;
  readonly formula: StatisticFormula;
  readonly description: string;
}

const additive = (name: FactMeasure | ShareMeasure, type: StatisticType, description: string): StatisticDefinition => ({
  name,
  type,
  additive: true,
  formula: { kind: 'measure', measure: name },
  description,
});

const ratioOf = (
  name: string,
  description: string,
  numerator: BaseMeasure,
  denominator: BaseMeasure,
  scale?: number,
): StatisticDefinition => ({
  name,
  type: 'Ratio',
  additive: false,
  formula: { kind: 'ratio', numerator, denominator, ...(scale === undefined ? {} : { scale }) },
  description,
});

const shareOf = (
  name: string,
  description: string,
  numerator: ShareMeasure,
  clamp: 'floor' | 'ceiling',
): StatisticDefinition => ({
  name,
  type: 'Ratio',
  additive: false,
  formula: { kind: 'share', numerator, denominator: 'searchEligibleImpressions', clamp },
  description,
});

export const STATISTICS: readonly StatisticDefinition[] = [
  additive('impressions', 'Integer', 'times an ad was shown'),
  additive('clicks', 'Integer', 'clicks on ads'),
  additive('cost', 'Money', 'cost in the row currency'),
  additive('costWithMarkup', 'Money', 'cost x (1 + markup rate of the day)'),
  additive('conversions', 'Decimal', 'conversions, fractional (data-driven attribution)'),
  additive('conversionValue', 'Money', 'value of the conversions'),
  additive('calls', 'Integer', 'phone calls from ads'),
  additive('callConversions', 'Integer', 'calls counted as conversions'),
  additive('callConversionsFractional', 'Decimal', 'fractional call conversions'),
  {
    name: 'totalConversions',
    type: 'Decimal',
    additive: true,
    formula: { kind: 'sum', measures: ['conversions', 'callConversionsFractional'] },
    description: 'conversions + callConversionsFractional',
  },
  ratioOf('ctr', 'clicks / impressions', 'clicks', 'impressions'),
  ratioOf('averageCpc', 'cost / clicks', 'cost', 'clicks'),
  ratioOf('averageCpm', '1000 x cost / impressions', 'cost', 'impressions', 1000),
  ratioOf('conversionRate', 'conversions / clicks', 'conversions', 'clicks'),
  ratioOf('costPerConversion', 'cost / conversions', 'cost', 'conversions'),
  ratioOf('valuePerConversion', 'conversionValue / conversions', 'conversionValue', 'conversions'),
  ratioOf('roas', 'conversionValue / cost', 'conversionValue', 'cost'),
  {
    name: 'reach',
    type: 'Integer',
    additive: false,
    formula: { kind: 'measure', measure: 'reach' },
    description:
      'distinct people reached, deduplicated over the row: its period, segments and entities (FACEBOOK); never a sum over days or ads',
  },
  ratioOf('frequency', 'impressions / reach: how often each person reached saw an ad', 'impressions', 'reach'),
  additive('searchImpressions', 'Integer', 'impressions on Google Search, the numerator of searchImpressionShare'),
  additive(
    'searchEligibleImpressions',
    'Integer',
    "impressions the campaigns were eligible for on Google Search (the platform's estimate), the denominator of the shares",
  ),
  shareOf(
    'searchImpressionShare',
    'searchImpressions / searchEligibleImpressions; under 0.1 reported as 0.0999',
    'searchImpressions',
    'floor',
  ),
  shareOf(
    'searchBudgetLostImpressionShare',
    'eligible impressions lost to budget / searchEligibleImpressions; over 0.9 reported as 0.9001',
    'searchBudgetLostImpressions',
    'ceiling',
  ),
  shareOf(
    'searchRankLostImpressionShare',
    'eligible impressions lost to ad rank / searchEligibleImpressions; over 0.9 reported as 0.9001',
    'searchRankLostImpressions',
    'ceiling',
  ),
  shareOf(
    'searchTopImpressionShare',
    'impressions above the organic results / searchEligibleImpressions; under 0.1 reported as 0.0999',
    'searchTopImpressions',
    'floor',
  ),
  shareOf(
    'searchAbsoluteTopImpressionShare',
    'impressions in the very first position / searchEligibleImpressions; under 0.1 reported as 0.0999',
    'searchAbsoluteTopImpressions',
    'floor',
  ),
];

/** Measures in a currency: converted per day with the FX rates, never summed across currencies. */
export const MONEY_MEASURES: ReadonlySet<BaseMeasure> = new Set<BaseMeasure>([
  'cost',
  'costWithMarkup',
  'conversionValue',
]);

/** Money statistics and the ratios over money (averageCpc, roas, ...): meaningless over rows in several currencies. */
export function readsMoney(statistic: StatisticDefinition): boolean {
  return [...measuresOf(statistic)].some((m) => MONEY_MEASURES.has(m));
}

/** The base measures a statistic reads. */
export function measuresOf(statistic: StatisticDefinition): ReadonlySet<BaseMeasure> {
  const formula = statistic.formula;
  switch (formula.kind) {
    case 'measure':
      return new Set([formula.measure]);
    case 'sum':
      return new Set(formula.measures);
    case 'ratio':
    case 'share':
      return new Set([formula.numerator, formula.denominator]);
    default:
      return assertNever(formula, 'statistic formula');
  }
}

export const STATISTIC_BY_NAME: ReadonlyMap<string, StatisticDefinition> = new Map(STATISTICS.map((s) => [s.name, s]));

/** The definition of a name the planner has already checked. */
export function statisticOf(name: string): StatisticDefinition {
  const statistic = STATISTIC_BY_NAME.get(name);
  if (statistic === undefined) throw new Error(`not a statistic of the catalogue: ${name}`);
  return statistic;
}

/** Returned when a request names no statistics (supplement 5: "the nine"); special endpoints add their own. */
export const DEFAULT_STATISTICS = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversionValue',
  'ctr',
  'averageCpc',
  'conversionRate',
  'costPerConversion',
] as const;
export const REACH_DEFAULTS = ['reach', 'frequency'] as const;
export const SHARE_DEFAULTS = [
  'searchImpressionShare',
  'searchBudgetLostImpressionShare',
  'searchRankLostImpressionShare',
  'searchTopImpressionShare',
  'searchAbsoluteTopImpressionShare',
] as const;

/** Money and decimals are rounded once, at the edge (DESIGN D6); ratios keep full precision. */
export const OUTPUT_DECIMALS: Readonly<Record<StatisticType, number | undefined>> = {
  Integer: 0,
  Decimal: 6,
  Money: 6,
  Ratio: undefined,
};
