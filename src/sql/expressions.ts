import { levelOf } from '../catalog/levels.js';
import {
  statisticOf,
  type BaseMeasure,
  type StatisticDefinition,
  type StatisticFormula,
} from '../catalog/statistics.js';
import {
  type ConditionNode,
  type Operand,
  type PlannedFormula,
  type ReportPlan,
  type ValueNode,
} from '../planner/report-plan.js';
import { assertNever } from '../shared/assert-never.js';
import type { Binder } from './binder.js';
import type { SqlDialect } from './dialect.js';

/** Output column names of the report queries (never user text). */
export const statisticColumn = (i: number) => `st_${i}`;
export const formulaColumn = (i: number) => `fm_${i}`;
export const segmentColumn = (i: number) => `seg_${i}`;
/** A base measure's sum in a bucket row. */
export const sumColumn = (m: BaseMeasure) => `s_${m}`;
/** With compare: a base measure's sum over the compared range in a bucket row. */
export const comparedSumColumn = (m: BaseMeasure) => `c_${m}`;

/** Which range's sums a statistic reads: the report's own, or (compare) the compared one. */
export type SumPeriod = 'current' | 'comparison';
const sumColumnOf = (period: SumPeriod) => (period === 'current' ? sumColumn : comparedSumColumn);

/**
 * What expression SQL is written against: the dialect, the statement's values, and the report
 * plan where operands need it (formulas, labels, segments, accountId); call details have none.
 */
export interface ExpressionContext {
  readonly plan?: ReportPlan | undefined;
  readonly dialect: SqlDialect;
  readonly binder: Binder;
  /** The sums statistics read where an operand names no period (formulas output for comparison). */
  readonly period?: SumPeriod | undefined;
}

function reportPlanOf(c: ExpressionContext, what: string): ReportPlan {
  if (c.plan === undefined) throw new Error(`${what} needs a report plan`);
  return c.plan;
}

const LITERAL_TYPES = { number: 'double', string: 'varchar', boolean: 'boolean' } as const;

const SQL_COMPARE = { '==': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

/** a / b as a double, null when b is 0 (supplement 5: a ratio over a zero denominator is null). */
function ratio(d: SqlDialect, a: string, b: string): string {
  return `${d.cast(`(${a})`, 'double')} / nullif(${d.cast(`(${b})`, 'double')}, 0)`;
}

function formulaSql(formula: StatisticFormula, d: SqlDialect, sum: (m: BaseMeasure) => string): string {
  switch (formula.kind) {
    case 'measure':
      return sum(formula.measure);
    case 'sum':
      return `(${formula.measures.map(sum).join(' + ')})`;
    case 'ratio':
      return ratio(
        d,
        formula.scale === undefined ? sum(formula.numerator) : `${formula.scale} * ${sum(formula.numerator)}`,
        sum(formula.denominator),
      );
    case 'share': {
      // Google reports shares under 0.1 as 0.0999 and lost shares over 0.9 as 0.9001; so do we, on every bucket.
      const share = ratio(d, sum(formula.numerator), sum(formula.denominator));
      return formula.clamp === 'floor'
        ? `(CASE WHEN (${share}) < 0.1 THEN 0.0999 ELSE (${share}) END)`
        : `(CASE WHEN (${share}) > 0.9 THEN 0.9001 ELSE (${share}) END)`;
    }
    default:
      return assertNever(formula, 'statistic formula');
  }
}

/** A statistic over the base sums of the row `alias` (of the compared range with `period` comparison). */
export function statisticSql(
  statistic: StatisticDefinition,
  alias: string,
  d: SqlDialect,
  period: SumPeriod = 'current',
): string {
  const column = sumColumnOf(period);
  return formulaSql(statistic.formula, d, (m) => `${alias}.${column(m)}`);
}

/** (current - compared) / compared as a double: null when compared is 0 or null, or current is null. */
export function changeSql(current: string, compared: string, d: SqlDialect): string {
  const c = d.cast(`(${compared})`, 'double');
  return `((${d.cast(`(${current})`, 'double')} - ${c}) / nullif(${c}, 0))`;
}

/** A statistic over the row's sums, rounded once at the edge: money and decimals to micros (DESIGN D6). */
export function statisticOutput(
  statistic: StatisticDefinition,
  alias: string,
  d: SqlDialect,
  period: SumPeriod = 'current',
): string {
  const sql = `(${statisticSql(statistic, alias, d, period)})`;
  switch (statistic.type) {
    case 'Integer':
      return d.cast(sql, 'bigint');
    case 'Ratio':
      return d.cast(sql, 'double');
    case 'Decimal':
    case 'Money':
      return d.round(d.cast(sql, 'double'), '6');
    default:
      return assertNever(statistic.type, 'statistic type');
  }
}

export function formulaOutput(formula: PlannedFormula, c: ExpressionContext): string {
  const d = c.dialect;
  const sql = `(${valueSql(formula.value, 'r', c)})`;
  switch (formula.type) {
    case 'Integer':
      // Past BIGINT an Integer formula has no value (null), rather than failing the report.
      return d.tryCastBigint(d.round(d.cast(sql, 'double')));
    case 'Decimal':
    case 'Money':
      return d.round(d.cast(sql, 'double'), '6');
    case 'Percentage':
      return d.cast(sql, 'double');
    default:
      return assertNever(formula.type, 'formula type');
  }
}

function operandSql(op: Operand, alias: string, c: ExpressionContext): string {
  const d = c.dialect;
  switch (op.kind) {
    case 'statistic': {
      const statistic = statisticOf(op.name);
      if (op.period === 'change')
        return changeSql(statisticSql(statistic, alias, d), statisticSql(statistic, alias, d, 'comparison'), d);
      return `(${statisticSql(statistic, alias, d, op.period === 'comparison' ? 'comparison' : (c.period ?? 'current'))})`;
    }
    case 'formula': {
      const value = reportPlanOf(c, 'a formula').formulas[op.index]!.value;
      const over = (period: SumPeriod) => `(${valueSql(value, alias, { ...c, period })})`;
      if (op.period === 'change') return changeSql(over('current'), over('comparison'), d);
      return over(op.period === 'comparison' ? 'comparison' : (c.period ?? 'current'));
    }
    case 'dimension':
      return `${alias}.${d.quote(op.column)}`;
    case 'customField':
      return `${alias}.${op.column}`;
    case 'label': {
      const labels = levelOf(reportPlanOf(c, 'a label').level).labels!;
      return d.labelValue(labels.table, labels.key, c.binder.bind(op.name), `${alias}.id`);
    }
    case 'segment':
      return `${alias}.${segmentColumn(reportPlanOf(c, 'a segment').segments.indexOf(op.key))}`;
    case 'fact':
      return `${alias}.${op.column}`;
    default:
      return assertNever(op, 'operand');
  }
}

export function valueSql(node: ValueNode, alias: string, c: ExpressionContext): string {
  const d = c.dialect;
  const double = (n: ValueNode) => d.cast(`(${valueSql(n, alias, c)})`, 'double');
  switch (node.kind) {
    case 'literal':
      return node.value === null
        ? 'NULL'
        : c.binder.bind(node.value, LITERAL_TYPES[typeof node.value as 'number' | 'string' | 'boolean']);
    case 'ref':
      return operandSql(node.operand, alias, c);
    case 'arithmetic': {
      const left = double(node.left);
      const right = double(node.right);
      return node.op === '/' ? `(${left} / nullif(${right}, 0))` : `(${left} ${node.op} ${right})`;
    }
    case 'negate':
      return `(-${double(node.operand)})`;
    case 'function': {
      const args = node.args.map(double);
      switch (node.name) {
        case 'min':
          return `least(${args.join(', ')})`;
        case 'max':
          return `greatest(${args.join(', ')})`;
        case 'abs':
          return `abs(${args[0]})`;
        case 'round':
          return args.length === 2 ? d.round(args[0]!, d.cast(`(${args[1]})`, 'integer')) : d.round(args[0]!);
        default:
          return assertNever(node.name, 'function');
      }
    }
    case 'if': {
      const test = conditionSql(node.test, alias, c);
      return `(CASE WHEN ${test} THEN ${double(node.then)} ELSE ${double(node.otherwise)} END)`;
    }
    default:
      return assertNever(node, 'value node');
  }
}

export function conditionSql(node: ConditionNode, alias: string, c: ExpressionContext): string {
  const { dialect: d, binder } = c;
  switch (node.kind) {
    case 'compare':
      return `(${valueSql(node.left, alias, c)} ${SQL_COMPARE[node.op]} ${valueSql(node.right, alias, c)})`;
    case 'isNull':
      return `(${valueSql(node.value, alias, c)} IS ${node.negated ? 'NOT ' : ''}NULL)`;
    case 'logical':
      return `(${conditionSql(node.left, alias, c)} ${node.op === 'and' ? 'AND' : 'OR'} ${conditionSql(node.right, alias, c)})`;
    case 'not':
      return `(NOT ${conditionSql(node.operand, alias, c)})`;
    case 'in': {
      const subject = valueSql(node.value, alias, c);
      const members = node.list.map((v) => binder.bind(v, LITERAL_TYPES[typeof v as 'number' | 'string' | 'boolean']));
      const parts = [
        ...(members.length > 0 ? [`${subject} IN (${members.join(', ')})`] : []),
        ...(node.includesNull ? [`${subject} IS NULL`] : []),
      ];
      return parts.length === 0 ? 'FALSE' : `(${parts.join(' OR ')})`;
    }
    case 'text':
      return d.textMatch(node.fn, valueSql(node.value, alias, c), binder.bind(node.pattern, 'varchar'));
    case 'linkedAccount': {
      // Ids compare as doubles, so 1.5 matches nothing instead of being cast to 2; the account must be the organization's.
      const ids =
        node.accountIds === 'any'
          ? ''
          : ` AND l.account_id IN (${node.accountIds.map((id) => binder.bind(id, 'double')).join(', ') || 'NULL'})`;
      const linked = `EXISTS (SELECT 1 FROM account_adplatform_links l JOIN accounts la ON la.id = l.account_id AND la.organization_id = ${binder.placeholder(1, 'bigint')}
                       WHERE l.adplatform_account_id = ${alias}.${d.quote(levelOf(reportPlanOf(c, 'accountId').level).platformAccountColumn!)}${ids})`;
      return `(${node.negated ? 'NOT ' : ''}${linked})`;
    }
    case 'truth':
      return `(${valueSql(node.value, alias, c)})`;
    case 'constant':
      return node.value ? 'TRUE' : 'FALSE';
    default:
      return assertNever(node, 'condition node');
  }
}
