/**
 * The statistics catalogue (supplement 5): additive sums over the fact tables and ratios computed
 * from the sums of a bucket, never averaged. SQL is written over the bucket's base sums, whose
 * column names the compiler passes in; nothing here is user text.
 */
export type StatisticType = 'Integer' | 'Decimal' | 'Money' | 'Ratio';

export const BASE_MEASURES = [
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
export type BaseMeasure = (typeof BASE_MEASURES)[number];

export interface StatisticDefinition {
  readonly name: string;
  readonly type: StatisticType;
  /** Additive statistics may be summed over buckets; ratios must be recomputed from sums. */
  readonly additive: boolean;
  /** SQL over the bucket's base sums; `sum(m)` gives the column of base measure m. */
  sql(sum: (measure: BaseMeasure) => string): string;
  readonly description: string;
}

const additive = (name: BaseMeasure, type: StatisticType, description: string): StatisticDefinition => ({
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
];

export const STATISTIC_BY_NAME: ReadonlyMap<string, StatisticDefinition> = new Map(STATISTICS.map((s) => [s.name, s]));

/** Returned when a request names no statistics (supplement 5: "the nine"). */
export const DEFAULT_STATISTICS = ['impressions', 'clicks', 'cost', 'conversions', 'conversionValue', 'ctr', 'averageCpc', 'conversionRate', 'costPerConversion'] as const;

/** Money and decimals are rounded once, at the edge (DESIGN D6); ratios keep full precision. */
export const OUTPUT_DECIMALS: Readonly<Record<StatisticType, number | undefined>> = { Integer: 0, Decimal: 6, Money: 6, Ratio: undefined };
