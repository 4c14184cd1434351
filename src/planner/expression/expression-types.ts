/**
 * The closed syntax tree of filter and formula expressions: what jsep's output is turned into,
 * with each node's position in the text (0-based offset of its first character) for errors.
 * Syntax only: whether `statistics.foo` exists or `name > 3` makes sense is the planner's check.
 */
export type Expr =
  | { readonly kind: 'number'; readonly value: number; readonly position: number }
  | { readonly kind: 'string'; readonly value: string; readonly position: number }
  | { readonly kind: 'null'; readonly position: number }
  /** A dotted name as written: `statistics.clicks` -> ['statistics', 'clicks'], `name` -> ['name']. */
  | { readonly kind: 'field'; readonly path: readonly string[]; readonly text: string; readonly position: number }
  | {
      readonly kind: 'arithmetic';
      readonly op: '+' | '-' | '*' | '/';
      readonly left: Expr;
      readonly right: Expr;
      readonly position: number;
    }
  | { readonly kind: 'negate'; readonly operand: Expr; readonly position: number }
  | {
      readonly kind: 'compare';
      readonly op: '==' | '!=' | '<' | '<=' | '>' | '>=';
      readonly left: Expr;
      readonly right: Expr;
      readonly position: number;
    }
  /** `and`/`or` are the same nodes as `&&`/`||`. */
  | {
      readonly kind: 'logical';
      readonly op: 'and' | 'or';
      readonly left: Expr;
      readonly right: Expr;
      readonly position: number;
    }
  /** `!x` and `not x`. */
  | { readonly kind: 'not'; readonly operand: Expr; readonly position: number }
  /** `x in [a, b]`; the list holds literals only. */
  | { readonly kind: 'in'; readonly value: Expr; readonly list: readonly Expr[]; readonly position: number }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[]; readonly position: number };

/** A 400 that names the parameter, the position and the token. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    /** 0-based offset into the expression text. */
    readonly position: number,
    /** The offending token as written ('' at the end of the text). */
    readonly token: string,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/** Caps that keep a hostile expression from costing more than a normal one. */
export const EXPRESSION_LIMITS = {
  /** Characters of one filter or formula expression. */
  maxLength: 2000,
  /** Nesting depth of the tree. */
  maxDepth: 32,
  /** Nodes of the tree. */
  maxNodes: 500,
  /** Entries of one `in [...]` list. */
  maxListLength: 200,
} as const;

/** One entry of the `formulas` parameter: `name:expression:Type`. */
export interface FormulaText {
  readonly name: string;
  readonly expression: string;
  readonly type: string;
  /** Offset of the expression inside the parameter value, so errors point into the whole text. */
  readonly offset: number;
  /** Which value of the (repeatable) parameter the entry comes from, 0-based; `offset` is within that value. */
  readonly valueIndex: number;
}
