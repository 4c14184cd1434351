import {
  attributionParts,
  ATTRIBUTION_WINDOWS,
  REMOVED_ATTRIBUTION_WINDOWS,
  type AttributionPart,
} from '../catalog/attribution.js';
import { endpointsOffering, type ReportEndpoint } from '../catalog/endpoints.js';
import { customFieldType, type DimensionField, type EmbedName, type LevelDefinition } from '../catalog/levels.js';
import { FACT_FILTER_FIELDS, SEGMENT_BY_KEY, SEGMENT_BY_NAME, SEGMENTS, type SegmentKey } from '../catalog/segments.js';
import { FORMULA_TYPES, STATISTIC_BY_NAME, type StatisticDefinition } from '../catalog/statistics.js';
import { assertNever } from '../shared/assert-never.js';
import { comparedRange } from './compare-range.js';
import { checkSources, defaultsFor } from './source-check.js';
import { reportDateRange } from './date-range.js';
import { ExpressionError, parseExpression, splitFormulas, type Expr } from './expression/index.js';
import { expressionFailure, invalidParameter as invalid } from './parameter-errors.js';
import {
  arithmetic,
  call,
  compare,
  ifThen,
  inList,
  isNull,
  linkedAccount,
  literal,
  logical,
  negate,
  not,
  ref,
  textMatch,
} from './plan-nodes.js';
import type {
  ComparedPeriod,
  ConditionNode,
  PlannedFormula,
  ReportPlan,
  ReportRequest,
  SortKey,
  ValueNode,
} from './report-plan.js';

const MAX_FORMULAS = 20;

/**
 * The planner: a pure function from a validated request to a ReportPlan. Every name is looked up
 * in the catalogue (unknown -> 400 with position), every literal stays a value for the compiler
 * to bind, and each filter conjunct is placed where it can be evaluated: fact rows, entities or
 * buckets (DESIGN D5).
 */
export function buildPlan(endpoint: ReportEndpoint, request: ReportRequest, now: Date): ReportPlan {
  const level = endpoint.level;
  const { from, to } = reportDateRange(request.startDate, request.endDate, now, request.dateRange);
  const statistics = pickStatistics(endpoint, request.statistics);
  const segments = pickSegments(request.segments);
  if (request.segmentTotals && segments.length === 0)
    invalid('totals', 'totals=segments gives the totals of each segment bucket: ask for segments too');
  const compare = request.compare === undefined ? undefined : comparedRange(request.compare, { from, to }, segments);
  const context: Context = {
    endpoint,
    level,
    segments,
    formulas: [],
    campaignLabel: level.path === 'accounts' && request.campaignLabel !== undefined,
    compare: compare !== undefined,
  };
  const formulas = planFormulas(context, request.formulas);
  context.formulas = formulas;
  const filters = request.filter === undefined ? {} : splitFilter(context, request.filter);
  const plan: ReportPlan = {
    endpoint: endpoint.path,
    level: level.path,
    organizationId: request.organizationId,
    from,
    to,
    statistics,
    segments,
    formulas,
    factFilter: filters.fact,
    entityFilter: filters.entity,
    bucketFilter: filters.bucket,
    namePattern: request.name === undefined ? undefined : likePattern(request.name),
    sort: request.sort === undefined ? [] : planSort(context, request.sort),
    embed: pickEmbeds(level, request.embed),
    limit: request.limit,
    offset: request.offset,
    totals: request.totals || request.segmentTotals === true,
    segmentTotals: request.segmentTotals === true,
    compare,
    currency: request.currency,
    campaignLabel: level.path === 'accounts' ? request.campaignLabel : undefined,
    attributionParts: pickAttribution(endpoint, request.attributionWindows),
  };
  // Without `statistics`, the defaults the sources of this request carry (segments=Age: no reach).
  const narrowed = request.statistics === undefined ? defaultsFor(endpoint, plan) : undefined;
  const planned = narrowed === undefined ? plan : { ...plan, statistics: narrowed };
  checkSources(endpoint, planned, now);
  return planned;
}

interface Context {
  readonly endpoint: ReportEndpoint;
  readonly level: LevelDefinition;
  readonly segments: readonly SegmentKey[];
  formulas: readonly PlannedFormula[];
  /** /accounts/campaign-labels/name/{name}: rows show campaignLabel.value, so filters and sorts may name it. */
  readonly campaignLabel?: boolean;
  /** `compare` is asked: comparison.* and change.* name statistics and formulas of the compared range. */
  readonly compare?: boolean;
}

function pickStatistics(endpoint: ReportEndpoint, names: readonly string[] | undefined): string[] {
  if (names === undefined) return endpoint.defaultStatistics.map((s) => s.name);
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.startsWith('statistics.') ? raw.slice('statistics.'.length) : raw;
    const statistic = STATISTIC_BY_NAME.get(name);
    if (!statistic)
      invalid(
        'statistics',
        `unknown statistic "${raw}"; valid on /${endpoint.path}: ${endpoint.statistics.map((s) => s.name).join(', ')}`,
        'unknown_statistic',
      );
    if (!endpoint.statistics.includes(statistic))
      invalid('statistics', notOffered(endpoint, statistic), 'statistic_not_available');
    if (!out.includes(statistic.name)) out.push(statistic.name);
  }
  return out;
}

/** reach on /campaigns, shares on FACEBOOK: the platform does not report it there; say where it is. */
function notOffered(endpoint: ReportEndpoint, statistic: StatisticDefinition): string {
  return `statistics.${statistic.name} is not available on /reporting/v0/${endpoint.path}; it is reported on ${endpointsOffering(statistic).join(', ')}`;
}

/**
 * `attributionWindows` (FACEBOOK endpoints at campaign level and above): Meta's windows, each
 * once; the two it stopped returning are refused with the date. Absent: the facts' default.
 */
function pickAttribution(
  endpoint: ReportEndpoint,
  windows: readonly string[] | undefined,
): AttributionPart[] | undefined {
  if (windows === undefined) return undefined;
  // The parser takes it only where it is answered; a plan built otherwise (a report job's stored query) is refused here.
  if (!endpoint.attributionWindows)
    invalid(
      'attributionWindows',
      `is answered per FACEBOOK campaign day: ask /reporting/v0/campaigns/facebook or /reporting/v0/adplatform-accounts/facebook (not /reporting/v0/${endpoint.path})`,
      'parameter_not_available',
    );
  for (const window of windows) {
    // Own keys only: `constructor` is no window.
    const removed = Object.hasOwn(REMOVED_ATTRIBUTION_WINDOWS, window)
      ? REMOVED_ATTRIBUTION_WINDOWS[window]
      : undefined;
    if (removed !== undefined)
      invalid(
        'attributionWindows',
        `${window} is no longer reported: Meta stopped returning 7d_view and 28d_view on ${removed}; windows: ${Object.keys(ATTRIBUTION_WINDOWS).join(', ')}`,
        'attribution_window_removed',
      );
    if (!Object.hasOwn(ATTRIBUTION_WINDOWS, window))
      invalid(
        'attributionWindows',
        `unknown attribution window "${window.slice(0, 40)}"; windows: ${Object.keys(ATTRIBUTION_WINDOWS).join(', ')}`,
        'unknown_attribution_window',
      );
  }
  return attributionParts(windows);
}

function pickSegments(names: readonly string[] | undefined): SegmentKey[] {
  const out: SegmentKey[] = [];
  for (const name of names ?? []) {
    const segment = SEGMENT_BY_NAME.get(name);
    if (!segment)
      invalid(
        'segments',
        `unknown segment "${name}"; valid: ${SEGMENTS.map((s) => s.name).join(', ')}`,
        'unknown_segment',
      );
    if (!out.includes(segment.key)) out.push(segment.key);
  }
  return out;
}

function pickEmbeds(level: LevelDefinition, names: readonly string[] | undefined): EmbedName[] {
  const asked = new Set<string>();
  for (const name of names ?? []) {
    if (!(level.embeds as readonly string[]).includes(name)) {
      invalid(
        'embed',
        level.embeds.length === 0
          ? `/${level.path} embeds nothing`
          : `"${name}" cannot be embedded on /${level.path}; valid: ${level.embeds.join(', ')}`,
        'unknown_embed',
      );
    }
    asked.add(name);
  }
  return level.embeds.filter((name) => asked.has(name));
}

/** `*` matches any run of characters; LIKE's own wildcards are escaped so they match themselves. */
function likePattern(name: string): string {
  return name.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll('*', '%');
}

function planFormulas(context: Context, values: readonly string[]): PlannedFormula[] {
  let texts;
  try {
    texts = splitFormulas(values);
  } catch (error) {
    if (error instanceof ExpressionError) expressionFailure('formulas', error);
    throw error;
  }
  if (texts.length > MAX_FORMULAS) invalid('formulas', `at most ${MAX_FORMULAS} formulas, got ${texts.length}`);
  const planned: PlannedFormula[] = [];
  for (const text of texts) {
    if (planned.some((f) => f.name === text.name)) invalid('formulas', `the formula name "${text.name}" is used twice`);
    if (!(FORMULA_TYPES as readonly string[]).includes(text.type))
      invalid('formulas', `formula ${text.name}: type "${text.type}" is not one of ${FORMULA_TYPES.join(', ')}`);
    let expr: Expr;
    try {
      expr = parseExpression(text.expression);
    } catch (error) {
      if (error instanceof ExpressionError) expressionFailure('formulas', error, text.offset);
      throw error;
    }
    // A formula sees statistics and numbers only (and earlier formulas are not in scope).
    const value = planValue({ ...context, formulas: [] }, 'formulas', expr, text.offset, true);
    if (value.type !== 'number') invalid('formulas', `formula ${text.name} must compute a number`);
    planned.push({ name: text.name, type: text.type as PlannedFormula['type'], value });
  }
  return planned;
}

function splitFilter(
  context: Context,
  text: string,
): { fact?: ConditionNode; entity?: ConditionNode; bucket?: ConditionNode } {
  let expr: Expr;
  try {
    expr = parseExpression(text);
  } catch (error) {
    if (error instanceof ExpressionError) expressionFailure('filter', error);
    throw error;
  }
  const condition = planCondition(context, 'filter', expr);
  const parts: { fact: ConditionNode[]; entity: ConditionNode[]; bucket: ConditionNode[] } = {
    fact: [],
    entity: [],
    bucket: [],
  };
  for (const conjunct of conjuncts(condition)) {
    const stages = conjunct.stages;
    if (stages.includes('fact') && stages.length > 1) {
      invalid(
        'filter',
        `filters on fact rows (${[...FACT_FILTER_FIELDS.keys()].map((key) => `segments.${key}`).join(', ')}) cannot be combined with other fields in one OR or NOT (filter them with &&)`,
        'unsupported_combination',
      );
    }
    if (stages.includes('fact')) parts.fact.push(conjunct);
    else if (stages.includes('bucket')) parts.bucket.push(conjunct);
    else parts.entity.push(conjunct);
  }
  const join = (list: ConditionNode[]) =>
    list.reduce<ConditionNode | undefined>((acc, c) => (acc ? logical('and', acc, c) : c), undefined);
  const out: { fact?: ConditionNode; entity?: ConditionNode; bucket?: ConditionNode } = {};
  const fact = join(parts.fact);
  const entity = join(parts.entity);
  const bucket = join(parts.bucket);
  if (fact) out.fact = fact;
  if (entity) out.entity = entity;
  if (bucket) out.bucket = bucket;
  return out;
}

function conjuncts(node: ConditionNode): ConditionNode[] {
  return node.kind === 'logical' && node.op === 'and' ? [...conjuncts(node.left), ...conjuncts(node.right)] : [node];
}

const COMPARE_OPS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const TEXT_FUNCTIONS = new Set(['contains', 'startsWith', 'endsWith']);
const VALUE_FUNCTIONS: Readonly<Record<string, { min: number; max: number }>> = {
  min: { min: 2, max: 20 },
  max: { min: 2, max: 20 },
  abs: { min: 1, max: 1 },
  round: { min: 1, max: 2 },
  if: { min: 3, max: 3 },
};

function planCondition(context: Context, parameter: string, expr: Expr): ConditionNode {
  const fail = (message: string, at: Expr, token: string): never =>
    invalid(parameter, `${message} at position ${at.position} near "${token}"`, 'invalid_expression', at.position);
  const linked = planLinkedAccount(context, expr, fail);
  if (linked) return linked;
  switch (expr.kind) {
    case 'logical':
      return logical(
        expr.op,
        planCondition(context, parameter, expr.left),
        planCondition(context, parameter, expr.right),
      );
    case 'not':
      return not(planCondition(context, parameter, expr.operand));
    case 'compare': {
      if (!COMPARE_OPS.has(expr.op)) return fail(`unsupported operator ${expr.op}`, expr, expr.op);
      // x == null and x != null test for a missing value (a ratio over zero, a label not set).
      if (expr.right.kind === 'null' || expr.left.kind === 'null') {
        if (expr.op !== '==' && expr.op !== '!=') return fail('null can only be compared with == or !=', expr, expr.op);
        const other = expr.right.kind === 'null' ? expr.left : expr.right;
        return isNull(planValue(context, parameter, other, 0, false), expr.op === '!=');
      }
      const left = planValue(context, parameter, expr.left, 0, false);
      const right = planValue(context, parameter, expr.right, 0, false, aliasesOf(context, left));
      if (left.type !== right.type) return fail(`cannot compare a ${left.type} with a ${right.type}`, expr, expr.op);
      return compare(expr.op as '==' | '!=' | '<' | '<=' | '>' | '>=', left, right);
    }
    case 'in': {
      const value = planValue(context, parameter, expr.value, 0, false);
      const type = value.type;
      const aliases = aliasesOf(context, value);
      const list: (string | number)[] = [];
      let includesNull = false;
      for (const item of expr.list) {
        if (item.kind === 'null') includesNull = true;
        else if (item.kind === 'number' || item.kind === 'string') {
          if ((item.kind === 'number' ? 'number' : 'string') !== type)
            return fail(`the list mixes ${type} and ${item.kind} values`, item, String(item.value));
          list.push(item.kind === 'string' ? aliasOf(aliases, item.value) : item.value);
        } else return fail('a list holds literals only', item, item.kind === 'field' ? item.text : item.kind);
      }
      return inList(value, list, includesNull);
    }
    case 'call': {
      if (!TEXT_FUNCTIONS.has(expr.name))
        return fail(`unknown condition function ${expr.name}; use contains, startsWith or endsWith`, expr, expr.name);
      const [subject, pattern, ...rest] = expr.args;
      if (!subject || !pattern || rest.length > 0)
        return fail(`${expr.name} takes a field and a string`, expr, expr.name);
      const value = planValue(context, parameter, subject, 0, false);
      if (value.type !== 'string')
        return fail(`${expr.name} needs a text field`, subject, subject.kind === 'field' ? subject.text : subject.kind);
      if (pattern.kind !== 'string')
        return fail(`${expr.name} needs a string literal as its second argument`, pattern, pattern.kind);
      return textMatch(expr.name as 'contains' | 'startsWith' | 'endsWith', value, pattern.value);
    }
    case 'number':
    case 'string':
    case 'null':
    case 'field':
    case 'arithmetic':
    case 'negate':
      return fail(
        'expected a condition (a comparison, in, contains/startsWith/endsWith, and/or/not)',
        expr,
        expr.kind === 'field' ? expr.text : expr.kind,
      );
    default:
      return assertNever(expr, 'expression');
  }
}

const ACCOUNT_ID = 'accountId';
const LINKED_ACCOUNT_USE = `${ACCOUNT_ID} is the set of accounts the platform account is linked to: compare it with == or != (a number or null) or test it with in [...]`;

function isAccountIdField(context: Context, expr: Expr): boolean {
  return (
    context.level.platformAccountColumn !== undefined &&
    expr.kind === 'field' &&
    expr.path.length === 1 &&
    expr.path[0] === ACCOUNT_ID
  );
}

/**
 * `accountId == 5`, `accountId != 5`, `accountId in [1, 2, null]`, `accountId == null`: "all
 * campaigns of client X" in one request. Undefined when the condition does not test accountId.
 */
function planLinkedAccount(
  context: Context,
  expr: Expr,
  fail: (message: string, at: Expr, token: string) => never,
): ConditionNode | undefined {
  const literalOf = (item: Expr): number | null => {
    if (item.kind === 'null') return null;
    if (item.kind === 'number') return item.value;
    return fail(
      LINKED_ACCOUNT_USE,
      item,
      item.kind === 'field' ? item.text : item.kind === 'string' ? item.value : item.kind,
    );
  };
  const test = (ids: ReadonlyArray<number | null>, negated: boolean): ConditionNode => {
    const accountIds = ids.filter((id): id is number => id !== null);
    const unlinked: ConditionNode | undefined = ids.includes(null) ? linkedAccount('any', true) : undefined;
    const linked: ConditionNode | undefined =
      accountIds.length > 0 || !unlinked ? linkedAccount(accountIds, false) : undefined;
    const either: ConditionNode = linked && unlinked ? logical('or', linked, unlinked) : (linked ?? unlinked)!;
    return negated ? not(either) : either;
  };
  if (expr.kind === 'compare' && (isAccountIdField(context, expr.left) || isAccountIdField(context, expr.right))) {
    if (expr.op !== '==' && expr.op !== '!=') return fail(LINKED_ACCOUNT_USE, expr, expr.op);
    const other = isAccountIdField(context, expr.left) ? expr.right : expr.left;
    return test([literalOf(other)], expr.op === '!=');
  }
  if (expr.kind === 'in' && isAccountIdField(context, expr.value)) return test(expr.list.map(literalOf), false);
  if (expr.kind === 'call' && expr.args.some((arg) => isAccountIdField(context, arg)))
    return fail(LINKED_ACCOUNT_USE, expr, expr.name);
  return undefined;
}

/** The value an alias stands for; own keys only, so '__proto__' or 'constructor' stay themselves. */
function aliasOf(aliases: Readonly<Record<string, string>> | undefined, value: string): string {
  return aliases && Object.hasOwn(aliases, value) ? aliases[value]! : value;
}

/** Input aliases of a dimension's values (ADWORDS means GOOGLE_ADS). */
function aliasesOf(context: Context, value: ValueNode): Readonly<Record<string, string>> | undefined {
  if (value.kind !== 'ref' || value.operand.kind !== 'dimension') return undefined;
  const column = value.operand.column;
  return context.level.fields.find((f: DimensionField) => f.column === column)?.aliases;
}

function planValue(
  context: Context,
  parameter: string,
  expr: Expr,
  offset: number,
  statisticsOnly: boolean,
  aliases?: Readonly<Record<string, string>>,
): ValueNode {
  const fail = (message: string, at: Expr, token: string, hint = ''): never =>
    invalid(
      parameter,
      `${message} at position ${at.position + offset} near "${token}"${hint}`,
      'invalid_expression',
      at.position + offset,
    );
  switch (expr.kind) {
    case 'number':
      return literal(expr.value);
    case 'string':
      if (statisticsOnly) return fail('a formula computes with numbers only', expr, expr.value);
      return literal(aliasOf(aliases, expr.value));
    case 'null':
      return fail('null is only allowed in == null and != null', expr, 'null');
    case 'field': {
      if (isAccountIdField(context, expr))
        return fail(
          statisticsOnly ? 'a formula computes with statistics and numbers only' : LINKED_ACCOUNT_USE,
          expr,
          expr.text,
        );
      const offered = unofferedStatistic(context, expr.path);
      if (offered) return fail(notOffered(context.endpoint, offered), expr, expr.text);
      if (!statisticsOnly && comparedWithoutCompare(context, expr.path)) return fail(COMPARED_USE, expr, expr.text);
      const resolved = resolveField(context, expr.path, statisticsOnly);
      if (!resolved) return fail(`unknown field ${expr.text}`, expr, expr.text, fieldHint(context, statisticsOnly));
      return resolved;
    }
    case 'arithmetic': {
      const left = planValue(context, parameter, expr.left, offset, statisticsOnly);
      const right = planValue(context, parameter, expr.right, offset, statisticsOnly);
      if (left.type !== 'number' || right.type !== 'number') return fail(`${expr.op} needs numbers`, expr, expr.op);
      return arithmetic(expr.op, left, right);
    }
    case 'negate': {
      const operand = planValue(context, parameter, expr.operand, offset, statisticsOnly);
      if (operand.type !== 'number') return fail('- needs a number', expr, '-');
      return negate(operand);
    }
    case 'call': {
      const arity = VALUE_FUNCTIONS[expr.name];
      if (!arity)
        return fail(`unknown function ${expr.name}; use ${Object.keys(VALUE_FUNCTIONS).join(', ')}`, expr, expr.name);
      if (expr.args.length < arity.min || expr.args.length > arity.max)
        return fail(
          `${expr.name} takes ${arity.min === arity.max ? arity.min : `${arity.min} to ${arity.max}`} arguments`,
          expr,
          expr.name,
        );
      // round's precision becomes an INTEGER in SQL: only a literal of a sensible size.
      const digits = expr.name === 'round' ? expr.args[1] : undefined;
      if (digits && (digits.kind !== 'number' || !Number.isInteger(digits.value) || Math.abs(digits.value) > 12)) {
        return fail(
          'round takes a whole number of decimals from -12 to 12 as its second argument',
          digits,
          digits.kind === 'number' ? String(digits.value) : digits.kind,
        );
      }
      if (expr.name === 'if') {
        const [test, then, otherwise] = expr.args as [Expr, Expr, Expr];
        const condition = planCondition(
          { ...context, formulas: statisticsOnly ? [] : context.formulas },
          parameter,
          test,
        );
        const arms = [
          planValue(context, parameter, then, offset, statisticsOnly),
          planValue(context, parameter, otherwise, offset, statisticsOnly),
        ] as const;
        if (arms.some((arm) => arm.type !== 'number'))
          return fail(`${expr.name} computes with numbers`, expr, expr.name);
        return ifThen(condition, arms[0], arms[1]);
      }
      const args = expr.args.map((arg) => planValue(context, parameter, arg, offset, statisticsOnly));
      if (args.some((arg) => arg.type !== 'number')) return fail(`${expr.name} computes with numbers`, expr, expr.name);
      return call(expr.name as 'min' | 'max' | 'abs' | 'round', args);
    }
    case 'compare':
    case 'logical':
    case 'not':
    case 'in':
      return fail('expected a value', expr, expr.kind);
    default:
      return assertNever(expr, 'expression');
  }
}

function fieldHint(context: Context, statisticsOnly: boolean, forSort = false): string {
  if (statisticsOnly) return '; formulas use statistics.<name> and numbers';
  const fields = context.level.fields.map((f) => f.name);
  if (context.level.platformAccountColumn !== undefined && !forSort) fields.push(ACCOUNT_ID);
  return `; /${context.endpoint.path} ${forSort ? 'sorts' : 'filters'} on statistics.<name>, formulas.<name>, ${fields.join(', ')}${context.level.labels ? ', labels.<name>' : ''}${
    context.level.customFields ? ', customFields.field<N>' : ''
  }, ${[...FACT_FILTER_FIELDS.keys()].map((key) => `segments.${key}`).join(', ')}${
    context.compare
      ? ', comparison.statistics.<name>, change.statistics.<name>, comparison.formulas.<name>, change.formulas.<name>'
      : ''
  }`;
}

/** A statistic of the catalogue that this endpoint does not offer (statistics.reach on /campaigns). */
function unofferedStatistic(context: Context, path: readonly string[]): StatisticDefinition | undefined {
  if (path.length === 3 && COMPARED_PERIODS.has(path[0]!)) return unofferedStatistic(context, path.slice(1));
  if (path.length !== 2 || path[0] !== 'statistics') return undefined;
  const statistic = STATISTIC_BY_NAME.get(path[1]!);
  return statistic && !context.endpoint.statistics.includes(statistic) ? statistic : undefined;
}

const COMPARED_PERIODS: ReadonlySet<string> = new Set<ComparedPeriod>(['comparison', 'change']);
const COMPARED_USE =
  'comparison.statistics.<name>, change.statistics.<name>, comparison.formulas.<name> and change.formulas.<name> need compare=PREVIOUS_PERIOD, PREVIOUS_YEAR or YYYY-MM-DD..YYYY-MM-DD';

/** `comparison.statistics.clicks` without compare: what to say instead of "unknown field". */
function comparedWithoutCompare(context: Context, path: readonly string[]): boolean {
  return !context.compare && path.length === 3 && COMPARED_PERIODS.has(path[0]!);
}

/** `comparison.statistics.clicks`, `change.formulas.f`: the statistic or formula of the compared range or its change. */
function resolveCompared(context: Context, path: readonly string[]): ValueNode | undefined {
  const [period, head, name, ...rest] = path;
  if (!context.compare || !COMPARED_PERIODS.has(period!) || rest.length > 0 || name === undefined) return undefined;
  const current = head === 'statistics' || head === 'formulas' ? resolveField(context, [head, name], false) : undefined;
  if (current?.kind !== 'ref' || (current.operand.kind !== 'statistic' && current.operand.kind !== 'formula'))
    return undefined;
  return ref({ ...current.operand, period: period as ComparedPeriod }, 'number');
}

function resolveField(context: Context, path: readonly string[], statisticsOnly: boolean): ValueNode | undefined {
  if (path.length === 3) return statisticsOnly ? undefined : resolveCompared(context, path);
  const [head, name, ...rest] = path;
  if (rest.length > 0 || head === undefined) return undefined;
  if (head === 'statistics' && name !== undefined) {
    const statistic = STATISTIC_BY_NAME.get(name);
    return statistic && context.endpoint.statistics.includes(statistic)
      ? ref({ kind: 'statistic', name: statistic.name }, 'number')
      : undefined;
  }
  if (statisticsOnly) return undefined;
  if (head === 'formulas' && name !== undefined) {
    const index = context.formulas.findIndex((f) => f.name === name);
    return index < 0 ? undefined : ref({ kind: 'formula', index }, 'number');
  }
  if (head === 'labels' && name !== undefined) {
    return context.level.labels && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name)
      ? ref({ kind: 'label', name }, 'string')
      : undefined;
  }
  if (head === 'customFields' && name !== undefined) {
    const type = context.level.customFields ? customFieldType(name) : undefined;
    return type ? ref({ kind: 'customField', column: name }, type) : undefined;
  }
  if (head === 'segments' && name !== undefined) {
    const segment = SEGMENT_BY_KEY.get(name);
    const fact = FACT_FILTER_FIELDS.get(name);
    if (segment && context.segments.includes(segment.key) && !fact)
      return ref({ kind: 'segment', key: segment.key }, segment.type);
    return fact ? ref({ kind: 'fact', column: fact.reads[0] }, fact.type) : undefined;
  }
  if (head === 'campaignLabel' && name === 'value' && context.campaignLabel)
    return ref({ kind: 'dimension', column: 'label_value' }, 'string');
  if (name !== undefined) return undefined;
  const dimension = context.level.fields.find((f) => f.name === head);
  if (!dimension) return undefined;
  return ref({ kind: 'dimension', column: dimension.column }, dimension.type);
}

/** `-statistics.cost,name`: keys as in filter plus segment keys; ties break by segments and id in the compiler. */
function planSort(context: Context, text: string): SortKey[] {
  const keys: SortKey[] = [];
  let position = 0;
  for (const raw of text.split(',')) {
    const descending = raw.startsWith('-');
    const name = descending ? raw.slice(1) : raw;
    const at = position + (descending ? 1 : 0);
    if (!/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*){0,2}$/.test(name))
      invalid('sort', `"${raw}" at position ${position} is not a sort key`, 'invalid_expression', position);
    const path = name.split('.');
    let value: ValueNode | undefined;
    if (path[0] === 'segments' && path[1] !== undefined) {
      const segment = SEGMENT_BY_KEY.get(path[1]);
      if (segment && context.segments.includes(segment.key))
        value = ref({ kind: 'segment', key: segment.key }, segment.type);
    } else {
      const offered = unofferedStatistic(context, path);
      if (offered) invalid('sort', notOffered(context.endpoint, offered), 'statistic_not_available');
      if (comparedWithoutCompare(context, path))
        invalid('sort', `${name} at position ${at}: ${COMPARED_USE}`, 'unknown_field', at);
      value = resolveField(context, path, false);
      if (value?.kind === 'ref' && value.operand.kind === 'fact') value = undefined;
    }
    if (!value && name === ACCOUNT_ID && context.level.platformAccountColumn !== undefined) {
      invalid(
        'sort',
        `${ACCOUNT_ID} at position ${at} can be filtered on, not sorted by: a platform account may be linked to several accounts`,
        'unknown_field',
        at,
      );
    }
    if (!value)
      invalid(
        'sort',
        `unknown sort key "${name}" at position ${at}${fieldHint(context, false, true)}, or a segment of the request`,
        'unknown_field',
        at,
      );
    keys.push({ value, descending });
    position += raw.length + 1;
  }
  return keys;
}
