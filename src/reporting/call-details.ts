import { CALL_DETAIL_FIELDS, type CallDetailFieldType as FieldType } from '../catalog/call-details.js';
import { reportDateRange } from '../planner/date-range.js';
import { ExpressionError, parseExpression, type Expr } from '../planner/expression/index.js';
import { expressionFailure, invalidParameter as invalid } from '../planner/parameter-errors.js';
import { AD_PLATFORM_ALIASES as PLATFORM_ALIASES } from '../shared/ad-platforms.js';
import type { Database } from '../store/database.js';
import type { SqlValue } from '../store/sql-values.js';

/**
 * GET /reporting/v0/call-details: single calls of the organization in a date range, with a filter
 * and sort over the call's own fields. A small dedicated compiler over the shared expression
 * parser: every literal is a bound parameter, every field a fixed column of the list below.
 */

/** One call as the endpoint shows it. */
export interface CallDetail {
  readonly id: number;
  /** The account the call's platform account is linked to; null when it is linked to none. */
  readonly accountId: number | null;
  readonly campaignId: number;
  readonly adGroupId: number;
  readonly adPlatformAccountId: number;
  readonly adPlatformType: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly startTime: string;
  readonly durationSeconds: number;
  readonly status: string;
  readonly callType: string;
  readonly callerCountry: string;
  readonly callerAreaCode: string;
  readonly isConversion: boolean;
}

/** The request as the route reads it: texts not yet checked (the builder checks them). */
export interface CallDetailsRequest {
  readonly organizationId: number;
  readonly startDate: string | undefined;
  readonly endDate: string | undefined;
  readonly filter: string | undefined;
  readonly sort: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

export interface CallDetailsQuery {
  /** count(*) AS n over the whole filtered result. */
  readonly countSql: string;
  /** One page of rows. */
  readonly rowsSql: string;
  readonly countParams: readonly SqlValue[];
  /** countParams plus limit and offset. */
  readonly rowsParams: readonly SqlValue[];
}

const FIELD_NAMES = Object.keys(CALL_DETAIL_FIELDS);

const ISO_TIME = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;

/** startDate/endDate inclusive; default the 30 days ending yesterday (UTC), as the reporting endpoints. */
export const callDetailsRange = reportDateRange;

/** A compiled operand: SQL text and its type ('null' only for the null literal). */
interface Operand {
  readonly sql: string;
  readonly type: FieldType;
  /** The field it names, for aliases. */
  readonly field?: string;
  /** A literal whose value the other side may still rewrite (aliases). */
  readonly literal?: string | number | boolean;
}

class FilterCompiler {
  constructor(private readonly bind: (value: SqlValue) => string) {}

  private fail(message: string, at: { position: number }, token: string, hint = ''): never {
    return invalid('filter', `${message} at position ${at.position} near "${token}"${hint}`, 'invalid_expression');
  }

  condition(expr: Expr): string {
    switch (expr.kind) {
      case 'logical':
        return `(${this.condition(expr.left)} ${expr.op === 'and' ? 'AND' : 'OR'} ${this.condition(expr.right)})`;
      case 'not':
        return `(NOT ${this.condition(expr.operand)})`;
      case 'compare':
        return this.compare(expr);
      case 'in':
        return this.inList(expr);
      case 'call':
        return this.textCall(expr);
      case 'field': {
        // A bare boolean field (`isConversion`) is a condition of its own.
        const operand = this.operand(expr);
        if (operand.type === 'boolean' && operand.field !== undefined) return `(${operand.sql})`;
        return this.fail('expected a condition (a comparison, in, contains/startsWith/endsWith, and/or/not)', expr, expr.text);
      }
      default:
        return this.fail('expected a condition (a comparison, in, contains/startsWith/endsWith, and/or/not)', expr, expr.kind);
    }
  }

  private compare(expr: Extract<Expr, { kind: 'compare' }>): string {
    const SQL: Readonly<Record<string, string>> = { '==': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
    const op = SQL[expr.op];
    if (op === undefined) return this.fail(`unsupported operator ${expr.op}`, expr, expr.op);
    if (expr.left.kind === 'null' || expr.right.kind === 'null') {
      if (expr.op !== '==' && expr.op !== '!=') return this.fail('null can only be compared with == or !=', expr, expr.op);
      const other = expr.right.kind === 'null' ? expr.left : expr.right;
      if (other.kind === 'null') return expr.op === '==' ? 'TRUE' : 'FALSE';
      const operand = this.operand(other);
      if (operand.field === undefined) return this.fail('== null and != null test a field', other, tokenOf(other));
      return `(${operand.sql} IS ${expr.op === '!=' ? 'NOT ' : ''}NULL)`;
    }
    const left = this.operand(expr.left);
    const right = this.operand(expr.right);
    if (left.type !== right.type) return this.fail(`cannot compare a ${left.type} with a ${right.type}`, expr, expr.op);
    if (left.type === 'boolean' && expr.op !== '==' && expr.op !== '!=') return this.fail(`a boolean can only be compared with == or !=`, expr, expr.op);
    return `(${this.sqlOf(left, right)} ${op} ${this.sqlOf(right, left)})`;
  }

  private inList(expr: Extract<Expr, { kind: 'in' }>): string {
    const subject = this.operand(expr.value);
    const members: string[] = [];
    let includesNull = false;
    for (const item of expr.list) {
      if (item.kind === 'null') {
        includesNull = true;
        continue;
      }
      const member = this.operand(item);
      if (member.type !== subject.type) return this.fail(`the list mixes ${subject.type} and ${member.type} values`, item, tokenOf(item));
      members.push(this.sqlOf(member, subject));
    }
    const parts = [...(members.length > 0 ? [`${subject.sql} IN (${members.join(', ')})`] : []), ...(includesNull ? [`${subject.sql} IS NULL`] : [])];
    return parts.length === 0 ? 'FALSE' : `(${parts.join(' OR ')})`;
  }

  private textCall(expr: Extract<Expr, { kind: 'call' }>): string {
    const FUNCTIONS: Readonly<Record<string, string>> = { contains: 'contains', startsWith: 'starts_with', endsWith: 'ends_with' };
    const fn = Object.hasOwn(FUNCTIONS, expr.name) ? FUNCTIONS[expr.name] : undefined;
    if (fn === undefined) return this.fail(`unknown condition function ${expr.name}; use contains, startsWith or endsWith`, expr, expr.name);
    const [subject, pattern, ...rest] = expr.args;
    if (!subject || !pattern || rest.length > 0) return this.fail(`${expr.name} takes a field and a string`, expr, expr.name);
    const value = this.operand(subject);
    if (value.type !== 'string' || value.field === undefined) return this.fail(`${expr.name} needs a text field`, subject, tokenOf(subject));
    if (pattern.kind !== 'string') return this.fail(`${expr.name} needs a string literal as its second argument`, pattern, tokenOf(pattern));
    return `${fn}(${value.sql}, ${this.bind(pattern.value)}::VARCHAR)`;
  }

  /** A field, a literal, or a negated number literal; true and false (fields to the parser) are boolean literals. */
  private operand(expr: Expr): Operand {
    switch (expr.kind) {
      case 'number':
        return this.number(expr.value, expr);
      case 'negate':
        if (expr.operand.kind === 'number') return this.number(-expr.operand.value, expr);
        return this.fail('expected a field or a literal', expr, '-');
      case 'string':
        return { sql: '', type: 'string', literal: expr.value };
      case 'field': {
        const [name, ...rest] = expr.path;
        if (rest.length === 0 && (name === 'true' || name === 'false')) return { sql: '', type: 'boolean', literal: name === 'true' };
        const type = rest.length === 0 && name !== undefined && Object.hasOwn(CALL_DETAIL_FIELDS, name) ? CALL_DETAIL_FIELDS[name] : undefined;
        if (type === undefined || name === undefined) {
          return this.fail(`unknown field ${expr.text}`, expr, expr.text, `; /call-details filters on ${FIELD_NAMES.join(', ')}`);
        }
        return { sql: `c."${name}"`, type, field: name };
      }
      case 'null':
        return this.fail('null is only allowed in == null and != null', expr, 'null');
      default:
        return this.fail('expected a field or a literal', expr, tokenOf(expr));
    }
  }

  private number(value: number, at: Expr): Operand {
    if (!Number.isFinite(value)) return this.fail('the number is out of range', at, tokenOf(at));
    return { sql: '', type: 'number', literal: value };
  }

  /**
   * SQL of an operand; a literal is bound here, typed after the other side: numbers compare with
   * isConversion as 1/0, strings compared with adPlatformType take its aliases.
   */
  private sqlOf(operand: Operand, other: Operand): string {
    if (operand.literal === undefined) return operand.sql;
    const value = operand.literal;
    if (typeof value === 'boolean') return `${this.bind(value)}::BOOLEAN`;
    if (typeof value === 'number') return Number.isSafeInteger(value) ? `${this.bind(value)}::BIGINT` : `${this.bind(value)}::DOUBLE`;
    const aliased = other.field === 'adPlatformType' && Object.hasOwn(PLATFORM_ALIASES, value) ? PLATFORM_ALIASES[value]! : value;
    return `${this.bind(aliased)}::VARCHAR`;
  }
}

/** Booleans compare with true/false and with 1/0: a number literal next to isConversion becomes a boolean. */
function normalizeBooleans(expr: Expr): Expr {
  const isBooleanField = (e: Expr) => e.kind === 'field' && e.path.length === 1 && e.path[0] === 'isConversion';
  const asBoolean = (e: Expr): Expr => {
    if (e.kind === 'number' && (e.value === 0 || e.value === 1)) return { kind: 'field', path: [e.value === 1 ? 'true' : 'false'], text: String(e.value), position: e.position };
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
    default:
      return expr;
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
    default:
      return expr.kind;
  }
}

/** `-durationSeconds,status`: fields of the list, `-` for descending. */
function compileSort(text: string): string[] {
  const keys: string[] = [];
  let position = 0;
  for (const raw of text.split(',')) {
    const descending = raw.startsWith('-');
    const name = descending ? raw.slice(1) : raw;
    if (!Object.hasOwn(CALL_DETAIL_FIELDS, name)) {
      invalid('sort', `unknown sort key "${name}" at position ${position + (descending ? 1 : 0)}; sort by ${FIELD_NAMES.join(', ')} (- for descending)`, 'unknown_field');
    }
    keys.push(`c."${name}" ${descending ? 'DESC' : 'ASC'} NULLS LAST`);
    position += raw.length + 1;
  }
  return keys;
}

/**
 * The pure part: the request -> the two statements and their parameters. Every value is bound;
 * every name comes from CALL_DETAIL_FIELDS. A platform account linked to two accounts gives each
 * call once per account; an unlinked one gives it once with accountId null.
 */
export function buildCallDetailsQuery(request: CallDetailsRequest, now: Date): CallDetailsQuery {
  const { from, to } = callDetailsRange(request.startDate, request.endDate, now);
  const params: SqlValue[] = [request.organizationId, from, to];
  const bind = (value: SqlValue) => {
    params.push(value);
    return `$${params.length}`;
  };
  let where = 'TRUE';
  if (request.filter !== undefined) {
    let expr: Expr;
    try {
      expr = parseExpression(request.filter);
    } catch (error) {
      if (error instanceof ExpressionError) expressionFailure('filter', error);
      throw error;
    }
    where = new FilterCompiler(bind).condition(normalizeBooleans(expr));
  }
  const order = [...(request.sort === undefined ? ['c."startTime" ASC'] : compileSort(request.sort)), 'c."id" ASC', 'c."accountId" ASC NULLS LAST'];
  const base = `(
    SELECT cd.id, l.account_id AS "accountId", cd.campaign_id AS "campaignId", cd.ad_group_id AS "adGroupId",
           cd.adplatform_account_id AS "adPlatformAccountId", p.ad_platform_type AS "adPlatformType",
           ${ISO_TIME('cd.start_time')} AS "startTime", cd.duration_seconds AS "durationSeconds", cd.status,
           cd.call_type AS "callType", cd.caller_country AS "callerCountry", cd.caller_area_code AS "callerAreaCode",
           cd.is_conversion AS "isConversion"
      FROM call_details cd
      JOIN adplatform_accounts p ON p.id = cd.adplatform_account_id AND p.organization_id = $1::BIGINT
      LEFT JOIN (SELECT ln.account_id, ln.adplatform_account_id FROM account_adplatform_links ln
                   JOIN accounts a ON a.id = ln.account_id AND a.organization_id = $1::BIGINT) l
        ON l.adplatform_account_id = cd.adplatform_account_id
     WHERE cd.organization_id = $1::BIGINT AND cd.day BETWEEN $2::DATE AND $3::DATE
  ) c`;
  const countParams = [...params];
  const limit = bind(request.limit);
  const offset = bind(request.offset);
  return {
    countSql: `SELECT count(*)::BIGINT AS n FROM ${base} WHERE ${where}`,
    rowsSql: `SELECT c.* FROM ${base} WHERE ${where} ORDER BY ${order.join(', ')} LIMIT ${limit}::BIGINT OFFSET ${offset}::BIGINT`,
    countParams,
    rowsParams: params,
  };
}

/** The runner: one page of calls and the total over all pages. */
export async function listCallDetails(db: Database, request: CallDetailsRequest, now: Date): Promise<{ total: number; callDetails: CallDetail[] }> {
  const query = buildCallDetailsQuery(request, now);
  return db.read(async (r) => {
    const total = await r.one<{ n: number }>(query.countSql, query.countParams);
    const callDetails = await r.all<CallDetail>(query.rowsSql, query.rowsParams);
    return { total: total?.n ?? 0, callDetails };
  });
}
