/**
 * Filter and formula text -> Expr (DESIGN D5). The only module that imports jsep.
 *
 * 1. The length cap, then scanTokens: tokens, their order, bracket balance and nesting, with
 *    exact positions for every error (see scan-tokens.ts). Deep nesting fails there, before jsep
 *    recurses.
 * 2. jsep builds the tree with our operator table. Its tables are global, so they are set once
 *    when this module loads; two hooks lend it our literal tokens (numbers, strings, null, read
 *    by the scanner) and record where each token-level node starts.
 * 3. The jsep tree is turned into the closed Expr union, counting depth and nodes.
 */
import jsep from 'jsep';
import { characterCount } from '../../shared/text-length.js';
import { EXPRESSION_LIMITS, ExpressionError, type Expr } from './expression-types.js';
import { BINARY_PRECEDENCE, scanTokens, showToken, UNARY_OPERATORS, type Token } from './scan-tokens.js';

// ---- jsep configuration (process-wide; nothing else imports jsep) ----------------------------

jsep.removeAllBinaryOps();
for (const [op, precedence] of Object.entries(BINARY_PRECEDENCE)) jsep.addBinaryOp(op, precedence);
jsep.removeAllUnaryOps();
for (const op of UNARY_OPERATORS) jsep.addUnaryOp(op);
// true, false and this are not literals of the grammar (null is lent by the hook below).
jsep.removeAllLiterals();
jsep.removeIdentifierChar('$');

/** The parse in progress: hooks do nothing for jsep calls that are not ours. */
interface ParseState {
  readonly tokens: ReadonlyMap<number, Token>;
  readonly positions: WeakMap<jsep.Expression, number>;
  readonly starts: number[];
}
let active: ParseState | undefined;

jsep.hooks.add('gobble-token', function (env) {
  const state = active;
  if (state === undefined) return;
  // jsep has skipped whitespace: this.index is where the token (or unary operator, or group) starts.
  state.starts.push(this.index);
  const token = state.tokens.get(this.index);
  if (token === undefined) return;
  if (token.kind === 'number' || token.kind === 'string' || token.kind === 'null') {
    const literal: jsep.Literal = {
      type: 'Literal',
      value: token.kind === 'null' ? null : token.value,
      raw: token.text,
    };
    this.index = token.end;
    env.node = literal;
  }
});

jsep.hooks.add('after-token', function (env) {
  const state = active;
  if (state === undefined) return;
  const start = state.starts.pop();
  // A parenthesised node starts at its '(' (overwriting the inner start).
  if (env.node && start !== undefined) state.positions.set(env.node, start);
});

// ---- conversion ------------------------------------------------------------------------------

const ARITHMETIC = new Set(['+', '-', '*', '/']);
const COMPARE = new Set(['==', '!=', '<', '<=', '>', '>=']);

class Converter {
  private nodes = 0;

  constructor(
    private readonly tokens: ReadonlyMap<number, Token>,
    private readonly positions: WeakMap<jsep.Expression, number>,
  ) {}

  /** The node's first character: recorded for token-level nodes, the left operand's for binary ones. */
  position(node: jsep.Expression): number {
    let current = node;
    for (;;) {
      const known = this.positions.get(current);
      if (known !== undefined) return known;
      if (current.type === 'BinaryExpression') current = (current as jsep.BinaryExpression).left;
      else if (current.type === 'MemberExpression') current = (current as jsep.MemberExpression).object;
      else if (current.type === 'CallExpression') current = (current as jsep.CallExpression).callee;
      else return 0;
    }
  }

  tokenAt(position: number): string {
    return this.tokens.get(position)?.text ?? '';
  }

  fail(message: string, node: jsep.Expression): never {
    const position = this.position(node);
    throw new ExpressionError(message, position, this.tokenAt(position));
  }

  convert(node: jsep.Expression, depth: number): Expr {
    if (depth > EXPRESSION_LIMITS.maxDepth)
      this.fail(`The expression is nested deeper than ${EXPRESSION_LIMITS.maxDepth} levels`, node);
    this.nodes += 1;
    if (this.nodes > EXPRESSION_LIMITS.maxNodes)
      this.fail(`The expression has more than ${EXPRESSION_LIMITS.maxNodes} parts`, node);
    const position = this.position(node);
    switch (node.type) {
      case 'Literal':
        return this.literal(node as jsep.Literal, position);
      case 'Identifier':
      case 'MemberExpression':
        return this.field(node, position);
      case 'CallExpression': {
        const call = node as jsep.CallExpression;
        if (call.callee.type !== 'Identifier') this.fail('Only plain function names like min(...) can be called', node);
        const name = (call.callee as jsep.Identifier).name;
        const args = call.arguments.map((arg) => this.convert(arg, depth + 1));
        return { kind: 'call', name, args, position };
      }
      case 'UnaryExpression': {
        const unary = node as jsep.UnaryExpression;
        if (unary.operator === '-') {
          const folded = this.negativeNumber(unary, position);
          if (folded) return folded;
          return { kind: 'negate', operand: this.convert(unary.argument, depth + 1), position };
        }
        if (unary.operator === '!' || unary.operator === 'not') {
          return { kind: 'not', operand: this.convert(unary.argument, depth + 1), position };
        }
        return this.fail(`Unsupported operator ${showToken(unary.operator)}`, node);
      }
      case 'BinaryExpression':
        return this.binary(node as jsep.BinaryExpression, position, depth);
      case 'ArrayExpression':
        return this.fail("A list [...] is only allowed after 'in'", node);
      case 'Compound':
      case 'SequenceExpression': {
        const parts =
          (node.type === 'Compound' ? (node as jsep.Compound).body : (node as jsep.SequenceExpression).expressions) ??
          [];
        const second = parts[1];
        return this.fail('A filter or formula is one expression', second ?? node);
      }
      case 'ThisExpression':
        return this.fail("'this' is not supported", node);
      default:
        return this.fail(`Unsupported syntax (${node.type})`, node);
    }
  }

  private literal(node: jsep.Literal, position: number): Expr {
    const value = node.value;
    if (value === null) return { kind: 'null', position };
    if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'number', value, position };
    if (typeof value === 'string') return { kind: 'string', value, position };
    return this.fail('Unsupported literal', node);
  }

  /** `-5` is the number -5 (also inside `in` lists); `-x` stays a negation. */
  private negativeNumber(node: jsep.UnaryExpression, position: number): Expr | undefined {
    const argument = node.argument;
    if (argument.type !== 'Literal' || typeof (argument as jsep.Literal).value !== 'number') return undefined;
    const value = (argument as jsep.Literal).value as number;
    return { kind: 'number', value: value === 0 ? 0 : -value, position };
  }

  private field(node: jsep.Expression, position: number): Expr {
    const path: string[] = [];
    let current = node;
    while (current.type === 'MemberExpression') {
      const member = current as jsep.MemberExpression;
      if (member.computed || member.property.type !== 'Identifier') {
        this.fail('Indexing like a[0] is not supported; a field is written like labels.name', member.property);
      }
      path.push((member.property as jsep.Identifier).name);
      current = member.object;
    }
    if (current.type !== 'Identifier') this.fail('Only names can be followed by .name', node);
    path.push((current as jsep.Identifier).name);
    path.reverse();
    return { kind: 'field', path, text: path.join('.'), position };
  }

  private binary(node: jsep.BinaryExpression, position: number, depth: number): Expr {
    const op = node.operator;
    if (op === 'in') {
      const value = this.convert(node.left, depth + 1);
      if (node.right.type !== 'ArrayExpression') this.fail("'in' must be followed by a list like [1, 2]", node.right);
      const elements = (node.right as jsep.ArrayExpression).elements;
      const list: Expr[] = [];
      for (const element of elements) {
        if (element === null) this.fail('A list has an empty entry', node.right);
        if (list.length >= EXPRESSION_LIMITS.maxListLength) {
          this.fail(`A list after 'in' has more than ${EXPRESSION_LIMITS.maxListLength} entries`, element);
        }
        list.push(this.listEntry(element, depth + 1));
      }
      return { kind: 'in', value, list, position };
    }
    const left = this.convert(node.left, depth + 1);
    const right = this.convert(node.right, depth + 1);
    if (ARITHMETIC.has(op)) return { kind: 'arithmetic', op: op as '+' | '-' | '*' | '/', left, right, position };
    if (COMPARE.has(op))
      return { kind: 'compare', op: op as '==' | '!=' | '<' | '<=' | '>' | '>=', left, right, position };
    if (op === '&&' || op === 'and') return { kind: 'logical', op: 'and', left, right, position };
    if (op === '||' || op === 'or') return { kind: 'logical', op: 'or', left, right, position };
    return this.fail(`Unsupported operator ${showToken(op)}`, node);
  }

  private listEntry(node: jsep.Expression, depth: number): Expr {
    const literal =
      node.type === 'Literal' ||
      (node.type === 'UnaryExpression' &&
        (node as jsep.UnaryExpression).operator === '-' &&
        (node as jsep.UnaryExpression).argument.type === 'Literal');
    const entry = literal ? this.convert(node, depth) : undefined;
    if (entry === undefined || (entry.kind !== 'number' && entry.kind !== 'string' && entry.kind !== 'null')) {
      return this.fail("A list after 'in' holds only numbers, strings and null", node);
    }
    return entry;
  }
}

/** Turns an error of jsep itself (should the scanner have let something through) into ours. */
function fromJsepError(error: unknown, text: string, tokens: ReadonlyMap<number, Token>): ExpressionError {
  const details = error as { index?: unknown; description?: unknown; message?: unknown };
  const index = typeof details.index === 'number' ? Math.min(Math.max(details.index, 0), text.length) : 0;
  let position = index;
  while (position < text.length && /[ \t\r\n]/.test(text[position] as string)) position++;
  const token = tokens.get(position)?.text ?? (position < text.length ? text.slice(position, position + 1) : '');
  const description =
    typeof details.description === 'string' ? details.description : String(details.message ?? 'syntax error');
  return new ExpressionError(`Cannot read the expression: ${description}`, position, token);
}

/**
 * Parses one filter or formula expression. Throws ExpressionError (with the 0-based UTF-16
 * offset of the problem and the token found there, '' at the end) for anything outside the
 * grammar or over the caps of EXPRESSION_LIMITS; never anything else.
 */
export function parseExpression(text: string): Expr {
  if (typeof text !== 'string') throw new ExpressionError('The expression must be text', 0, '');
  if (characterCount(text) > EXPRESSION_LIMITS.maxLength) {
    throw new ExpressionError(
      `The expression is longer than ${EXPRESSION_LIMITS.maxLength} characters (${characterCount(text)})`,
      EXPRESSION_LIMITS.maxLength,
      text.slice(EXPRESSION_LIMITS.maxLength, EXPRESSION_LIMITS.maxLength + 1),
    );
  }
  const tokens = new Map<number, Token>();
  for (const token of scanTokens(text)) tokens.set(token.start, token);

  const state: ParseState = { tokens, positions: new WeakMap(), starts: [] };
  let tree: jsep.Expression;
  active = state;
  try {
    tree = jsep(text);
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    throw fromJsepError(error, text, tokens);
  } finally {
    active = undefined;
  }
  try {
    return new Converter(tokens, state.positions).convert(tree, 1);
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    throw fromJsepError(error, text, tokens);
  }
}
