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

/**
 * How a person reads a value (issue 43; `GET /reporting/v0/fields` gives each statistic's):
 * `count` a number of things, fractional ones included (conversions); `money` an amount in the
 * row's currency (`currency`); `percent` a fraction shown as a percentage (the value stays the
 * fraction: 0.0215 is 2.15 %); `ratio` a plain multiple (roas 3.2, frequency 1.8); `duration`
 * seconds (the call details' durationSeconds).
 */
export const UNITS = ['count', 'money', 'ratio', 'percent', 'duration'] as const;
export type Unit = (typeof UNITS)[number];

/** The unit of a formula's declared type: Integer and Decimal count, Money is money, Percentage a fraction shown as a percent. */
export const FORMULA_TYPE_UNITS: Readonly<Record<FormulaType, Unit>> = {
  Integer: 'count',
  Decimal: 'count',
  Money: 'money',
  Percentage: 'percent',
};

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
  /** How a person reads it (see UNITS); test/unit/catalog-units.test.ts holds it to the type and formula. */
  readonly unit: Unit;
  /** A short column label ("Avg. CPC", "Conv. rate"). */
  readonly label: string;
}

const additive = (
  name: FactMeasure | ShareMeasure,
  type: StatisticType,
  label: string,
  description: string,
): StatisticDefinition => ({
  name,
  type,
  additive: true,
  formula: { kind: 'measure', measure: name },
  description,
  // A sum is an amount of money or a count.
  unit: type === 'Money' ? 'money' : 'count',
  label,
});

const ratioOf = (
  name: string,
  unit: Unit,
  label: string,
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
  unit,
  label,
});

/** A share is a fraction of the eligible impressions: shown as a percent. */
const shareOf = (
  name: string,
  label: string,
  description: string,
  numerator: ShareMeasure,
  clamp: 'floor' | 'ceiling',
): StatisticDefinition => ({
  name,
  type: 'Ratio',
  additive: false,
  formula: { kind: 'share', numerator, denominator: 'searchEligibleImpressions', clamp },
  description,
  unit: 'percent',
  label,
});

export const STATISTICS: readonly StatisticDefinition[] = [
  additive('impressions', 'Integer', 'Impressions', 'times an ad was shown'),
  additive('clicks', 'Integer', 'Clicks', 'clicks on ads'),
  additive('cost', 'Money', 'Cost', 'cost in the row currency'),
  additive('costWithMarkup', 'Money', 'Cost w/ markup', 'cost x (1 + markup rate of the day)'),
  additive('conversions', 'Decimal', 'Conversions', 'conversions, fractional (data-driven attribution)'),
  additive('conversionValue', 'Money', 'Conv. value', 'value of the conversions'),
  additive('calls', 'Integer', 'Calls', 'phone calls from ads'),
  additive('callConversions', 'Integer', 'Call conv.', 'calls counted as conversions'),
  additive('callConversionsFractional', 'Decimal', 'Call conv. (frac.)', 'fractional call conversions'),
  {
    name: 'totalConversions',
    type: 'Decimal',
    additive: true,
    formula: { kind: 'sum', measures: ['conversions', 'callConversionsFractional'] },
    description: 'conversions + callConversionsFractional',
    unit: 'count',
    label: 'All conv.',
  },
  ratioOf('ctr', 'percent', 'CTR', 'clicks / impressions', 'clicks', 'impressions'),
  ratioOf('averageCpc', 'money', 'Avg. CPC', 'cost / clicks', 'cost', 'clicks'),
  ratioOf('averageCpm', 'money', 'Avg. CPM', '1000 x cost / impressions', 'cost', 'impressions', 1000),
  ratioOf('conversionRate', 'percent', 'Conv. rate', 'conversions / clicks', 'conversions', 'clicks'),
  ratioOf('costPerConversion', 'money', 'Cost / conv.', 'cost / conversions', 'cost', 'conversions'),
  ratioOf(
    'valuePerConversion',
    'money',
    'Value / conv.',
    'conversionValue / conversions',
    'conversionValue',
    'conversions',
  ),
  ratioOf('roas', 'ratio', 'ROAS', 'conversionValue / cost', 'conversionValue', 'cost'),
  {
    name: 'reach',
    type: 'Integer',
    additive: false,
    formula: { kind: 'measure', measure: 'reach' },
    description:
      'distinct people reached, deduplicated over the row: its period, segments and entities (FACEBOOK); never a sum over days or ads',
    unit: 'count',
    label: 'Reach',
  },
  ratioOf(
    'frequency',
    'ratio',
    'Frequency',
    'impressions / reach: how often each person reached saw an ad',
    'impressions',
    'reach',
  ),
  additive(
    'searchImpressions',
    'Integer',
    'Search impr.',
    'impressions on Google Search, the numerator of searchImpressionShare',
  ),
  additive(
    'searchEligibleImpressions',
    'Integer',
    'Search eligible impr.',
    "impressions the campaigns were eligible for on Google Search (the platform's estimate), the denominator of the shares",
  ),
  shareOf(
    'searchImpressionShare',
    'Search impr. share',
    'searchImpressions / searchEligibleImpressions; under 0.1 reported as 0.0999',
    'searchImpressions',
    'floor',
  ),
  shareOf(
    'searchBudgetLostImpressionShare',
    'Search lost IS (budget)',
    'eligible impressions lost to budget / searchEligibleImpressions; over 0.9 reported as 0.9001',
    'searchBudgetLostImpressions',
    'ceiling',
  ),
  shareOf(
    'searchRankLostImpressionShare',
    'Search lost IS (rank)',
    'eligible impressions lost to ad rank / searchEligibleImpressions; over 0.9 reported as 0.9001',
    'searchRankLostImpressions',
    'ceiling',
  ),
  shareOf(
    'searchTopImpressionShare',
    'Search top IS',
    'impressions above the organic results / searchEligibleImpressions; under 0.1 reported as 0.0999',
    'searchTopImpressions',
    'floor',
  ),
  shareOf(
    'searchAbsoluteTopImpressionShare',
    'Search abs. top IS',
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
