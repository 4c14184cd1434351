/**
 * The statistics catalogue (supplement 5): additive sums over the fact tables and ratios computed
 * from the sums of a bucket, never averaged. SQL is written over the bucket's base sums, whose
 * column names the compiler passes in; nothing here is user text.
 */
export type StatisticType = 'Integer' | 'Decimal' | 'Money' | 'Ratio';

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

export interface StatisticDefinition {
  readonly name: string;
  readonly type: StatisticType;
  /** Additive statistics may be summed over buckets; ratios must be recomputed from sums. */
  readonly additive: boolean;
  /** SQL over the bucket's base sums; `sum(m)` gives the column of base measure m. */
  sql(sum: (measure: BaseMeasure) => string): string;
  readonly description: string;
}

const additive = (name: FactMeasure | ShareMeasure, type: StatisticType, description: string): StatisticDefinition => ({
  name,
  type,
  additive: true,
  sql: (sum) => sum(name),
  description,
});

/** a / b as a double, null when b is 0 (supplement 5: a ratio over a zero denominator is null). */
const ratio = (a: string, b: string) => `(${a})::DOUBLE / nullif((${b})::DOUBLE, 0)`;

const ratioOf = (name: string, description: string, sql: (sum: (m: BaseMeasure) => string) => string): StatisticDefinition => ({
  name,
  type: 'Ratio',
  additive: false,
  sql,
  description,
});

/** Google reports shares under 0.1 as 0.0999 and lost shares over 0.9 as 0.9001; so do we, on every bucket. */
const shareOf = (a: string, b: string) => `(CASE WHEN (${ratio(a, b)}) < 0.1 THEN 0.0999 ELSE (${ratio(a, b)}) END)`;
const lostShareOf = (a: string, b: string) => `(CASE WHEN (${ratio(a, b)}) > 0.9 THEN 0.9001 ELSE (${ratio(a, b)}) END)`;

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
    sql: (sum) => `(${sum('conversions')} + ${sum('callConversionsFractional')})`,
    description: 'conversions + callConversionsFractional',
  },
  ratioOf('ctr', 'clicks / impressions', (sum) => ratio(sum('clicks'), sum('impressions'))),
  ratioOf('averageCpc', 'cost / clicks', (sum) => ratio(sum('cost'), sum('clicks'))),
  ratioOf('averageCpm', '1000 x cost / impressions', (sum) => ratio(`1000 * ${sum('cost')}`, sum('impressions'))),
  ratioOf('conversionRate', 'conversions / clicks', (sum) => ratio(sum('conversions'), sum('clicks'))),
  ratioOf('costPerConversion', 'cost / conversions', (sum) => ratio(sum('cost'), sum('conversions'))),
  ratioOf('valuePerConversion', 'conversionValue / conversions', (sum) => ratio(sum('conversionValue'), sum('conversions'))),
  ratioOf('roas', 'conversionValue / cost', (sum) => ratio(sum('conversionValue'), sum('cost'))),
  {
    name: 'reach',
    type: 'Integer',
    additive: false,
    sql: (sum) => sum('reach'),
    description: 'distinct people reached, deduplicated over the row: its period, segments and entities (FACEBOOK); never a sum over days or ads',
  },
  ratioOf('frequency', 'impressions / reach: how often each person reached saw an ad', (sum) => ratio(sum('impressions'), sum('reach'))),
  additive('searchImpressions', 'Integer', 'impressions on Google Search, the numerator of searchImpressionShare'),
  additive('searchEligibleImpressions', 'Integer', 'impressions the campaigns were eligible for on Google Search (the platform\'s estimate), the denominator of the shares'),
  ratioOf('searchImpressionShare', 'searchImpressions / searchEligibleImpressions; under 0.1 reported as 0.0999', (sum) =>
    shareOf(sum('searchImpressions'), sum('searchEligibleImpressions')),
  ),
  ratioOf('searchBudgetLostImpressionShare', 'eligible impressions lost to budget / searchEligibleImpressions; over 0.9 reported as 0.9001', (sum) =>
    lostShareOf(sum('searchBudgetLostImpressions'), sum('searchEligibleImpressions')),
  ),
  ratioOf('searchRankLostImpressionShare', 'eligible impressions lost to ad rank / searchEligibleImpressions; over 0.9 reported as 0.9001', (sum) =>
    lostShareOf(sum('searchRankLostImpressions'), sum('searchEligibleImpressions')),
  ),
  ratioOf('searchTopImpressionShare', 'impressions above the organic results / searchEligibleImpressions; under 0.1 reported as 0.0999', (sum) =>
    shareOf(sum('searchTopImpressions'), sum('searchEligibleImpressions')),
  ),
  ratioOf('searchAbsoluteTopImpressionShare', 'impressions in the very first position / searchEligibleImpressions; under 0.1 reported as 0.0999', (sum) =>
    shareOf(sum('searchAbsoluteTopImpressions'), sum('searchEligibleImpressions')),
  ),
];

/** Measures in a currency: converted per day with the FX rates, never summed across currencies. */
export const MONEY_MEASURES: ReadonlySet<BaseMeasure> = new Set<BaseMeasure>(['cost', 'costWithMarkup', 'conversionValue']);

/** Money statistics and the ratios over money (averageCpc, roas, ...): meaningless over rows in several currencies. */
export function readsMoney(statistic: StatisticDefinition): boolean {
  return [...measuresOf(statistic)].some((m) => MONEY_MEASURES.has(m));
}

/** The base measures a statistic's SQL reads. */
export function measuresOf(statistic: StatisticDefinition): ReadonlySet<BaseMeasure> {
  const used = new Set<BaseMeasure>();
  statistic.sql((m) => {
    used.add(m);
    return '0';
  });
  return used;
}

export const STATISTIC_BY_NAME: ReadonlyMap<string, StatisticDefinition> = new Map(STATISTICS.map((s) => [s.name, s]));

/** Returned when a request names no statistics (supplement 5: "the nine"); special endpoints add their own. */
export const DEFAULT_STATISTICS = ['impressions', 'clicks', 'cost', 'conversions', 'conversionValue', 'ctr', 'averageCpc', 'conversionRate', 'costPerConversion'] as const;
export const REACH_DEFAULTS = ['reach', 'frequency'] as const;
export const SHARE_DEFAULTS = [
  'searchImpressionShare',
  'searchBudgetLostImpressionShare',
  'searchRankLostImpressionShare',
  'searchTopImpressionShare',
  'searchAbsoluteTopImpressionShare',
] as const;

/** Money and decimals are rounded once, at the edge (DESIGN D6); ratios keep full precision. */
export const OUTPUT_DECIMALS: Readonly<Record<StatisticType, number | undefined>> = { Integer: 0, Decimal: 6, Money: 6, Ratio: undefined };
