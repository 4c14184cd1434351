import { CALL_DETAIL_FIELD_NAMES, callDetailFieldType } from '../catalog/call-details.js';
import { AD_PLATFORM_ALIASES } from '../shared/ad-platforms.js';
import { assertNever } from '../shared/assert-never.js';
import { reportDateRange } from './date-range.js';
import { ExpressionError, parseExpression, type Expr } from './expression/index.js';
import { expressionFailure, invalidParameter as invalid } from './parameter-errors.js';
import { compare, constant, inList, isNull, literal, logical, not, ref, textMatch, truth } from './plan-nodes.js';
import type { ConditionNode, SortKey, ValueNode } from './report-plan.js';

/** GET /reporting/v0/call-details as the route reads it: texts not yet checked. */
export interface CallDetailsRequest {
  readonly organizationId: number;
  readonly startDate: string | undefined;
  readonly endDate: string | undefined;
  readonly filter: string | undefined;
  readonly sort: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** What the call-details statements need: plain data, as a report's plan. */
export interface CallDetailsPlan {
  readonly organizationId: number;
  readonly from: string;
  readonly to: string;
  readonly filter: ConditionNode | undefined;
  /** Empty: by startTime. Ties always by id, then accountId. */
  readonly sort: readonly SortKey[];
  readonly limit: number;
  readonly offset: number;
}

const TEXT_FUNCTIONS = ['contains', 'startsWith', 'endsWith'] as const;
type TextFunction = (typeof TEXT_FUNCTIONS)[number];

/**
 * The planner of /call-details: the reporting endpoints' date range, their expression parser and
 * their plan nodes, over the call's own fields (catalog/call-details.ts). Booleans are its own:
 * `isConversion` is a condition by itself and compares with true/false or 1/0.
 */
export function buildCallDetailsPlan(request: CallDetailsRequest, now: Date): CallDetailsPlan {
  const { from, to } = reportDateRange(request.startDate, request.endDate, now);
  let filter: ConditionNode | undefined;
  if (request.filter !== undefined) {
    let expr: Expr;
    try {
      expr = parseExpression(request.filter);
    } catch (error) {
      if (error instanceof ExpressionError) expressionFailure('filter', error);
      throw error;
    }
    filter = planCondition(normalizeBooleans(expr));
  }
  const sort = request.sort === undefined ? [] : planSort(request.sort);
  return {
    organizationId: request.organizationId,
    from,
    to,
    filter,
    sort,
    limit: request.limit,
    offset: request.offset,
  };
}

function fail(message: string, at: { position: number }, token: string, hint = ''): never {
  return invalid(
    'filter',
    `${message} at position ${at.position} near "${token}"${hint}`,
    'invalid_expression',
    at.position,
  );
}

const NOT_A_CONDITION = 'expected a condition (a comparison, in, contains/startsWith/endsWith, and/or/not)';

function planCondition(expr: Expr): ConditionNode {
  switch (expr.kind) {
    case 'logical':
      return logical(expr.op, planCondition(expr.left), planCondition(expr.right));
    case 'not':
      return not(planCondition(expr.operand));
    case 'compare':
      return planCompare(expr);
    case 'in':
      return planIn(expr);
    case 'call':
      return planText(expr);
    case 'field': {
      // A bare boolean field (`isConversion`) is a condition of its own.
      const operand = planOperand(expr);
      if (operand.type === 'boolean' && operand.kind === 'ref') return truth(operand);
      return fail(NOT_A_CONDITION, expr, expr.text);
    }
    case 'number':
    case 'string':
    case 'null':
    case 'arithmetic':
    case 'negate':
      return fail(NOT_A_CONDITION, expr, expr.kind);
    default:
      return assertNever(expr, 'expression');
  }
}

const COMPARE_OPS = ['==', '!=', '<', '<=', '>', '>='] as const;

function planCompare(expr: Extract<Expr, { kind: 'compare' }>): ConditionNode {
  if (!(COMPARE_OPS as readonly string[]).includes(expr.op))
    return fail(`unsupported operator ${expr.op}`, expr, expr.op);
  if (expr.left.kind === 'null' || expr.right.kind === 'null') {
    if (expr.op !== '==' && expr.op !== '!=') return fail('null can only be compared with == or !=', expr, expr.op);
    const other = expr.right.kind === 'null' ? expr.left : expr.right;
    if (other.kind === 'null') return constant(expr.op === '==');
    const operand = planOperand(other);
    if (operand.kind !== 'ref') return fail('== null and != null test a field', other, tokenOf(other));
    return isNull(operand, expr.op === '!=');
  }
  const left = planOperand(expr.left);
  const right = planOperand(expr.right);
  if (left.type !== right.type) return fail(`cannot compare a ${left.type} with a ${right.type}`, expr, expr.op);
  if (left.type === 'boolean' && expr.op !== '==' && expr.op !== '!=')
    return fail(`a boolean can only be compared with == or !=`, expr, expr.op);
  return compare(expr.op, aliased(left, right), aliased(right, left));
}

function planIn(expr: Extract<Expr, { kind: 'in' }>): ConditionNode {
  const subject = planOperand(expr.value);
  const members: Array<string | number | boolean> = [];
  let includesNull = false;
  for (const item of expr.list) {
    if (item.kind === 'null') {
      includesNull = true;
      continue;
    }
    const member = planOperand(item);
    if (member.type !== subject.type)
      return fail(`the list mixes ${subject.type} and ${member.type} values`, item, tokenOf(item));
    const value = aliased(member, subject);
    if (value.kind !== 'literal' || value.value === null)
      return fail('a list holds literals only', item, tokenOf(item));
    members.push(value.value);
  }
  return inList(subject, members, includesNull);
}

function planText(expr: Extract<Expr, { kind: 'call' }>): ConditionNode {
  if (!(TEXT_FUNCTIONS as readonly string[]).includes(expr.name))
    return fail(`unknown condition function ${expr.name}; use contains, startsWith or endsWith`, expr, expr.name);
  const [subject, pattern, ...rest] = expr.args;
  if (!subject || !pattern || rest.length > 0) return fail(`${expr.name} takes a field and a string`, expr, expr.name);
  const value = planOperand(subject);
  if (value.type !== 'string' || value.kind !== 'ref')
    return fail(`${expr.name} needs a text field`, subject, tokenOf(subject));
  if (pattern.kind !== 'string')
    return fail(`${expr.name} needs a string literal as its second argument`, pattern, tokenOf(pattern));
  return textMatch(expr.name as TextFunction, value, pattern.value);
}

/** A field, a literal, or a negated number literal; true and false (fields to the parser) are boolean literals. */
function planOperand(expr: Expr): ValueNode {
  switch (expr.kind) {
    case 'number':
      return numberLiteral(expr.value, expr);
    case 'negate':
      if (expr.operand.kind === 'number') return numberLiteral(-expr.operand.value, expr);
      return fail('expected a field or a literal', expr, '-');
    case 'string':
      return literal(expr.value);
    case 'field': {
      const [name, ...rest] = expr.path;
      if (rest.length === 0 && (name === 'true' || name === 'false')) return literal(name === 'true');
      const type = rest.length === 0 && name !== undefined ? callDetailFieldType(name) : undefined;
      if (type === undefined || name === undefined)
        return fail(
          `unknown field ${expr.text}`,
          expr,
          expr.text,
          `; /call-details filters on ${CALL_DETAIL_FIELD_NAMES.join(', ')}`,
        );
      return ref({ kind: 'dimension', column: name }, type);
    }
    case 'null':
      return fail('null is only allowed in == null and != null', expr, 'null');
    case 'arithmetic':
    case 'compare':
    case 'logical':
    case 'not':
    case 'in':
    case 'call':
      return fail('expected a field or a literal', expr, tokenOf(expr));
    default:
      return assertNever(expr, 'expression');
  }
}

function numberLiteral(value: number, at: Expr): ValueNode {
  if (!Number.isFinite(value)) return fail('the number is out of range', at, tokenOf(at));
  return literal(value);
}

/** A string literal compared with adPlatformType takes its aliases (ADWORDS means GOOGLE_ADS). */
function aliased(operand: ValueNode, other: ValueNode): ValueNode {
  if (operand.kind !== 'literal' || typeof operand.value !== 'string') return operand;
  const isPlatform =
    other.kind === 'ref' && other.operand.kind === 'dimension' && other.operand.column === 'adPlatformType';
  return isPlatform && Object.hasOwn(AD_PLATFORM_ALIASES, operand.value)
    ? literal(AD_PLATFORM_ALIASES[operand.value]!)
    : operand;
}

/** Booleans compare with true/false and with 1/0: a number literal next to isConversion becomes a boolean. */
function normalizeBooleans(expr: Expr): Expr {
  const isBooleanField = (e: Expr) => e.kind === 'field' && e.path.length === 1 && e.path[0] === 'isConversion';
  const asBoolean = (e: Expr): Expr => {
    if (e.kind === 'number' && (e.value === 0 || e.value === 1))
      return { kind: 'field', path: [e.value === 1 ? 'true' : 'false'], text: String(e.value), position: e.position };
    return e;
  };
  switch (expr.kind) {
    case 'logical':
      return { ...expr, left: normalizeBooleans(expr.left), right: normalizeBooleans(expr.right) };
    case 'not':
      return { ...expr, operand: normalizeBooleans(expr.operand) };
    case 'compare':
      if (isBooleanField(expr.left)) return { ...expr, right: asBoolean(expr.right) };
      if (isBooleanField(expr.right)) return { ...expr, left: asBoolean(expr.left) };
      return expr;
    case 'in':
      return isBooleanField(expr.value) ? { ...expr, list: expr.list.map(asBoolean) } : expr;
    case 'number':
    case 'string':
    case 'null':
    case 'field':
    case 'arithmetic':
    case 'negate':
    case 'call':
      return expr;
    default:
      return assertNever(expr, 'expression');
  }
}

function tokenOf(expr: Expr): string {
  switch (expr.kind) {
    case 'field':
      return expr.text;
    case 'number':
    case 'string':
      return String(expr.value);
    case 'call':
      return expr.name;
    case 'null':
    case 'arithmetic':
    case 'negate':
    case 'compare':
    case 'logical':
    case 'not':
    case 'in':
      return expr.kind;
    default:
      return assertNever(expr, 'expression');
  }
}

/** `-durationSeconds,status`: fields of the list, `-` for descending. */
function planSort(text: string): SortKey[] {
  const keys: SortKey[] = [];
  let position = 0;
  for (const raw of text.split(',')) {
    const descending = raw.startsWith('-');
    const name = descending ? raw.slice(1) : raw;
    const type = callDetailFieldType(name);
    if (type === undefined) {
      invalid(
        'sort',
        `unknown sort key "${name}" at position ${position + (descending ? 1 : 0)}; sort by ${CALL_DETAIL_FIELD_NAMES.join(', ')} (- for descending)`,
        'unknown_field',
        position + (descending ? 1 : 0),
      );
    }
    keys.push({ value: ref({ kind: 'dimension', column: name }, type), descending });
    position += raw.length + 1;
  }
  return keys;
}
