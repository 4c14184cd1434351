import { assertNever } from '../shared/assert-never.js';
import type { ConditionNode, Operand, Stage, ValueNode } from './report-plan.js';

/**
 * Constructors of plan nodes: the only place a node's type and stages are decided, once, from its
 * parts (DESIGN D5: a filter conjunct runs where its stages say).
 */

const STAGE_ORDER: readonly Stage[] = ['fact', 'entity', 'bucket'];

function union(...lists: ReadonlyArray<readonly Stage[]>): readonly Stage[] {
  const present = new Set(lists.flat());
  return STAGE_ORDER.filter((stage) => present.has(stage));
}

/** Where an operand is known: fact columns on fact rows, entity columns on entities, the rest on buckets. */
export function stageOf(operand: Operand): Stage {
  switch (operand.kind) {
    case 'fact':
      return 'fact';
    case 'dimension':
    case 'label':
    case 'customField':
      return 'entity';
    case 'statistic':
    case 'formula':
    case 'segment':
      return 'bucket';
    default:
      return assertNever(operand, 'operand');
  }
}

export const literal = (value: string | number | boolean | null): ValueNode => ({
  kind: 'literal',
  value,
  type:
    value === null ? 'null' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string',
  stages: [],
});
export const ref = (operand: Operand, type: 'string' | 'number' | 'boolean'): ValueNode => ({
  kind: 'ref',
  operand,
  type,
  stages: [stageOf(operand)],
});
export const arithmetic = (op: '+' | '-' | '*' | '/', left: ValueNode, right: ValueNode): ValueNode => ({
  kind: 'arithmetic',
  op,
  left,
  right,
  type: 'number',
  stages: union(left.stages, right.stages),
});
export const negate = (operand: ValueNode): ValueNode => ({
  kind: 'negate',
  operand,
  type: 'number',
  stages: operand.stages,
});
export const call = (name: 'min' | 'max' | 'abs' | 'round', args: readonly ValueNode[]): ValueNode => ({
  kind: 'function',
  name,
  args,
  type: 'number',
  stages: union(...args.map((a) => a.stages)),
});
export const ifThen = (test: ConditionNode, then: ValueNode, otherwise: ValueNode): ValueNode => ({
  kind: 'if',
  test,
  then,
  otherwise,
  type: 'number',
  stages: union(test.stages, then.stages, otherwise.stages),
});

export const compare = (
  op: '==' | '!=' | '<' | '<=' | '>' | '>=',
  left: ValueNode,
  right: ValueNode,
): ConditionNode => ({
  kind: 'compare',
  op,
  left,
  right,
  stages: union(left.stages, right.stages),
});
export const isNull = (value: ValueNode, negated: boolean): ConditionNode => ({
  kind: 'isNull',
  value,
  negated,
  stages: value.stages,
});
export const logical = (op: 'and' | 'or', left: ConditionNode, right: ConditionNode): ConditionNode => ({
  kind: 'logical',
  op,
  left,
  right,
  stages: union(left.stages, right.stages),
});
export const not = (operand: ConditionNode): ConditionNode => ({ kind: 'not', operand, stages: operand.stages });
export const inList = (
  value: ValueNode,
  list: readonly (string | number | boolean)[],
  includesNull: boolean,
): ConditionNode => ({
  kind: 'in',
  value,
  list,
  includesNull,
  stages: value.stages,
});
export const textMatch = (
  fn: 'contains' | 'startsWith' | 'endsWith',
  value: ValueNode,
  pattern: string,
): ConditionNode => ({
  kind: 'text',
  fn,
  value,
  pattern,
  stages: value.stages,
});
export const truth = (value: ValueNode): ConditionNode => ({ kind: 'truth', value, stages: value.stages });
export const constant = (value: boolean): ConditionNode => ({ kind: 'constant', value, stages: [] });
/** The accountId test reads the entity's platform account. */
export const linkedAccount = (accountIds: readonly number[] | 'any', negated: boolean): ConditionNode => ({
  kind: 'linkedAccount',
  accountIds,
  negated,
  stages: ['entity'],
});
