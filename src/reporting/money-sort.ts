import { MONEY_MEASURES, statisticOf, type StatisticDefinition } from '../catalog/statistics.js';
import { assertNever } from '../shared/assert-never.js';
import { operandsOf, type Operand, type PlannedFormula, type ReportPlan } from '../planner/report-plan.js';

/**
 * A statistic whose value is an amount of a currency: a money sum (cost, conversionValue, ...) or
 * a ratio with money on one side only (averageCpc, costPerConversion). roas (money over money) is
 * a plain number and compares across currencies.
 */
export function inCurrency(statistic: StatisticDefinition): boolean {
  const formula = statistic.formula;
  switch (formula.kind) {
    case 'measure':
      return MONEY_MEASURES.has(formula.measure);
    case 'sum':
      return formula.measures.some((m) => MONEY_MEASURES.has(m));
    case 'ratio':
      return MONEY_MEASURES.has(formula.numerator) !== MONEY_MEASURES.has(formula.denominator);
    case 'share':
      return false;
    default:
      return assertNever(formula, 'statistic formula');
  }
}

/** A Money formula, or one over a statistic in a currency (told apart only by reading it: kept on the safe side). */
function formulaInCurrency(formula: PlannedFormula): boolean {
  return (
    formula.type === 'Money' ||
    operandsOf(formula.value).some((op) => op.kind === 'statistic' && inCurrency(statisticOf(op.name)))
  );
}

/** A sort operand in a currency: its own or the compared range's value (a change is a ratio, in none). */
function operandInCurrency(plan: ReportPlan, op: Operand): boolean {
  if (op.kind === 'statistic') return op.period !== 'change' && inCurrency(statisticOf(op.name));
  if (op.kind === 'formula') return op.period !== 'change' && formulaInCurrency(plan.formulas[op.index]!);
  return false;
}

/** How a sort operand is spelt in `sort` (`statistics.cost`, `comparison.formulas.cpa`). */
function operandName(plan: ReportPlan, op: Operand): string {
  const prefix = 'period' in op && op.period !== undefined ? `${op.period}.` : '';
  if (op.kind === 'statistic') return `${prefix}statistics.${op.name}`;
  if (op.kind === 'formula') return `${prefix}formulas.${plan.formulas[op.index]!.name}`;
  return op.kind;
}

/**
 * The sort keys of the plan that order rows by an amount of money, as the request names them;
 * empty when money is converted into one currency (`currency=`) or no key is in a currency.
 */
export function moneySortKeys(plan: ReportPlan): string[] {
  if (plan.currency !== undefined) return [];
  const keys = plan.sort.flatMap((key) =>
    operandsOf(key.value)
      .filter((op) => operandInCurrency(plan, op))
      .map((op) => operandName(plan, op)),
  );
  return [...new Set(keys)];
}
