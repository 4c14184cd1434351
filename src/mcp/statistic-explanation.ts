import { ENDPOINTS } from '../catalog/endpoints.js';
import { FACT_SOURCES } from '../catalog/fact-sources.js';
import {
  MONEY_MEASURES,
  measuresOf,
  OUTPUT_DECIMALS,
  readsMoney,
  STATISTICS,
  type StatisticDefinition,
} from '../catalog/statistics.js';
import { assertNever } from '../shared/assert-never.js';

/**
 * How a statistic is computed, from the catalogue the planner compiles (src/catalog): what it
 * sums or divides, the rules for nulls, currencies and rounding, and where it is offered. The
 * same words the README's statistics section and GET /reporting/v0/fields use.
 */
export interface StatisticExplanation {
  readonly name: string;
  /** The column label the explorer shows. */
  readonly label: string;
  readonly type: string;
  /** How a person reads the value: count, money (the row's currency), percent (a fraction: 0.0215 is 2.15 %), ratio. */
  readonly unit: string;
  readonly description: string;
  readonly additive: boolean;
  /** The computation over a row's bucket (its period, segments and entities). */
  readonly computation: string;
  readonly measures: readonly string[];
  readonly nulls: string;
  readonly currency: string;
  readonly rounding: string;
  readonly totals: string;
  /** The tables of daily figures that carry its measures. */
  readonly sources: ReadonlyArray<{ readonly name: string; readonly table: string; readonly description: string }>;
  readonly endpoints: ReadonlyArray<{ readonly path: string; readonly default: boolean }>;
}

function computationOf(statistic: StatisticDefinition): string {
  const formula = statistic.formula;
  switch (formula.kind) {
    case 'measure':
      return formula.measure === 'reach'
        ? 'the number of distinct people reached over the whole row (deduplicated across its days, segments and entities, as the platform reports audience runs); never a sum'
        : `the sum of the daily ${formula.measure} of the row's entities over its period and segment bucket`;
    case 'sum':
      return `the sum over the row of ${formula.measures.join(' + ')}`;
    case 'ratio':
      return `${formula.scale === undefined ? '' : `${formula.scale} x `}sum(${formula.numerator}) / sum(${formula.denominator}) over the row: computed from the row's sums, never an average of daily ratios`;
    case 'share':
      return `sum(${formula.numerator}) / sum(${formula.denominator}) over the row, as Google reports it: ${formula.clamp === 'floor' ? 'under 0.1 as 0.0999' : 'over 0.9 as 0.9001'}`;
    default:
      return assertNever(formula, 'statistic formula');
  }
}

export function explainStatistic(statistic: StatisticDefinition): StatisticExplanation {
  const measures = [...measuresOf(statistic)];
  const money = readsMoney(statistic);
  const decimals = OUTPUT_DECIMALS[statistic.type];
  const ratio = statistic.formula.kind === 'ratio' || statistic.formula.kind === 'share';
  return {
    name: statistic.name,
    label: statistic.label,
    type: statistic.type,
    unit: statistic.unit,
    description: statistic.description,
    additive: statistic.additive,
    computation: computationOf(statistic),
    measures,
    nulls: ratio
      ? 'null when the denominator is 0 (or null), never 0 or infinity'
      : money
        ? 'never null on a row (0 when nothing happened); null in totals over rows in several currencies without currency='
        : 'never null: 0 when nothing happened',
    currency: money
      ? statistic.type === 'Money'
        ? "in the row's currency (its platform account's); with currency=XXX converted day by day at that day's rate before summing; totals over rows in several currencies are null without currency= (warning mixed_currencies)"
        : `a ratio of money (${measures.filter((m) => MONEY_MEASURES.has(m)).join(', ')}): meaningful within one currency; null in totals over several currencies without currency=`
      : 'no currency',
    rounding:
      decimals === undefined
        ? 'full precision (a ratio is not rounded)'
        : decimals === 0
          ? 'an integer'
          : `rounded once, at the end, to ${decimals} decimals`,
    totals: statistic.additive
      ? 'totals=true sums it over the whole filtered result'
      : "totals=true computes it again from the whole result's sums (not the sum or average of the rows)",
    sources: FACT_SOURCES.filter((s) => measures.some((m) => s.measures.includes(m))).map((s) => ({
      name: s.name,
      table: s.table,
      description: s.description,
    })),
    endpoints: ENDPOINTS.filter((e) => e.statistics.includes(statistic)).map((e) => ({
      path: `/reporting/v0/${e.path}`,
      default: e.defaultStatistics.includes(statistic),
    })),
  };
}

export const STATISTIC_NAMES = STATISTICS.map((s) => s.name) as [string, ...string[]];
