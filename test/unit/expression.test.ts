import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EXPRESSION_LIMITS,
  ExpressionError,
  parseExpression,
  splitFormulas,
  type Expr,
} from '../../src/planner/expression/index.js';

/** A compact rendering of a tree: (op left right), fields as written, strings JSON-quoted. */
function show(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return String(e.value);
    case 'string':
      return JSON.stringify(e.value);
    case 'null':
      return 'null';
    case 'field':
      return e.text;
    case 'arithmetic':
    case 'compare':
    case 'logical':
      return `(${e.op} ${show(e.left)} ${show(e.right)})`;
    case 'negate':
      return `(neg ${show(e.operand)})`;
    case 'not':
      return `(not ${show(e.operand)})`;
    case 'in':
      return `(in ${show(e.value)} [${e.list.map(show).join(' ')}])`;
    case 'call':
      return `(${e.name}() ${e.args.map(show).join(' ')})`.replace(' )', ')');
  }
}

const tree = (text: string): string => show(parseExpression(text));

/** Runs `run` and returns the ExpressionError it throws (fails the test otherwise). */
function errorOf(run: () => unknown): ExpressionError {
  try {
    run();
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw new Error(`expected an ExpressionError, got ${String(error)}`);
  }
  throw new Error('expected an ExpressionError, but it parsed');
}

/** Every error names a position inside the text and the token found exactly there. */
function expectWellFormedError(text: string, error: ExpressionError): void {
  expect(error).toBeInstanceOf(ExpressionError);
  expect(error.name).toBe('ExpressionError');
  expect(error.position).toBeGreaterThanOrEqual(0);
  expect(error.position).toBeLessThanOrEqual(text.length);
  expect(text.slice(error.position, error.position + error.token.length)).toBe(error.token);
  expect(error.message.length).toBeGreaterThan(0);
}

function* nodes(e: Expr): Generator<Expr> {
  yield e;
  switch (e.kind) {
    case 'arithmetic':
    case 'compare':
    case 'logical':
      yield* nodes(e.left);
      yield* nodes(e.right);
      break;
    case 'negate':
    case 'not':
      yield* nodes(e.operand);
      break;
    case 'in':
      yield* nodes(e.value);
      for (const item of e.list) yield* nodes(item);
      break;
    case 'call':
      for (const arg of e.args) yield* nodes(arg);
      break;
    case 'field':
    case 'null':
    case 'number':
    case 'string':
      break;
  }
}

/** Whatever parses, parses into our node union with positions that point at the node's text. */
function expectFaithfulTree(text: string, e: Expr): void {
  for (const node of nodes(e)) {
    expect(node.position).toBeGreaterThanOrEqual(0);
    expect(node.position).toBeLessThan(text.length);
    const at = text.slice(node.position);
    if (node.kind === 'field') expect(at.startsWith(node.path[0] ?? '?') || at.startsWith('(')).toBe(true);
    if (node.kind === 'string') expect(/^['"(]/.test(at)).toBe(true);
    if (node.kind === 'call') expect(at.startsWith(node.name) || at.startsWith('(')).toBe(true);
    if (node.kind === 'null') expect(/^(null|\()/.test(at)).toBe(true);
  }
}

/** Parses, and either the tree is faithful or the error is an ExpressionError naming position and token. */
function parseOrExplain(text: string): Expr | ExpressionError {
  let result: Expr;
  try {
    result = parseExpression(text);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw new Error(`${JSON.stringify(text)} threw ${String(error)}`);
    expectWellFormedError(text, error);
    return error;
  }
  expectFaithfulTree(text, result);
  return result;
}

describe('parseExpression: grammar', () => {
  it('reads fields: identifiers and dotted paths', () => {
    expect(parseExpression('statistics.clicks')).toEqual({
      kind: 'field',
      path: ['statistics', 'clicks'],
      text: 'statistics.clicks',
      position: 0,
    });
    expect(parseExpression('  name')).toEqual({ kind: 'field', path: ['name'], text: 'name', position: 2 });
    for (const field of [
      'labels.client_id',
      'customFields.field3',
      'segments.deviceType',
      'campaignId',
      '_x',
      'a.b.c',
      'labels.in',
      'segments.not',
      'statistics.null',
    ]) {
      const e = parseExpression(field);
      expect(e).toEqual({ kind: 'field', path: field.split('.'), text: field, position: 0 });
    }
    // Not literals of the grammar: the planner reports them as unknown fields.
    expect(tree('true == false')).toBe('(== true false)');
    // Identifiers that start like a word operator are plain names.
    expect(tree('notes == 1 || index > 2 || order < 3 || android == 4')).toBe(
      '(or (or (or (== notes 1) (> index 2)) (< order 3)) (== android 4))',
    );
  });

  it('reads numbers: decimal, fraction, exponent', () => {
    const cases: [string, number][] = [
      ['0', 0],
      ['42', 42],
      ['007', 7],
      ['3.25', 3.25],
      ['1e3', 1000],
      ['1E3', 1000],
      ['1.5e-3', 0.0015],
      ['2e+2', 200],
      ['0.000000000000000000001', 1e-21],
      ['9007199254740991', Number.MAX_SAFE_INTEGER],
      ['12345678901234.5', 12345678901234.5],
      ['-7', -7],
      ['- 7', -7],
      ['-0', 0],
    ];
    for (const [text, value] of cases) {
      const e = parseExpression(text);
      expect(e).toEqual({ kind: 'number', value, position: 0 });
      if (e.kind === 'number') expect(Object.is(e.value, -0)).toBe(false);
    }
  });

  it('reads strings in single or double quotes with \\\\ \\\' \\" \\n \\r \\t escapes', () => {
    expect(parseExpression(`'it\\'s'`)).toEqual({ kind: 'string', value: "it's", position: 0 });
    expect(parseExpression(`"say \\"hi\\""`)).toEqual({ kind: 'string', value: 'say "hi"', position: 0 });
    expect(parseExpression(`'a\\nb\\rc\\td\\\\e'`)).toEqual({ kind: 'string', value: 'a\nb\rc\td\\e', position: 0 });
    expect(parseExpression(`"it's"`)).toEqual({ kind: 'string', value: "it's", position: 0 });
    expect(parseExpression(`'say "hi"'`)).toEqual({ kind: 'string', value: 'say "hi"', position: 0 });
    expect(parseExpression(`''`)).toEqual({ kind: 'string', value: '', position: 0 });
    expect(parseExpression(`'é€😀 ü'`)).toEqual({ kind: 'string', value: 'é€😀 ü', position: 0 });
    expect(parseExpression(`'a, b) or (c'`)).toEqual({ kind: 'string', value: 'a, b) or (c', position: 0 });
  });

  it('reads null', () => {
    expect(parseExpression('null')).toEqual({ kind: 'null', position: 0 });
    expect(tree('labels.x == null')).toBe('(== labels.x null)');
    expect(tree('labels.x != null')).toBe('(!= labels.x null)');
  });

  it('reads every operator', () => {
    expect(tree('a + b')).toBe('(+ a b)');
    expect(tree('a - b')).toBe('(- a b)');
    expect(tree('a * b')).toBe('(* a b)');
    expect(tree('a / b')).toBe('(/ a b)');
    for (const op of ['==', '!=', '<', '<=', '>', '>=']) expect(tree(`a ${op} 1`)).toBe(`(${op} a 1)`);
    expect(tree('a && b')).toBe('(and a b)');
    expect(tree('a and b')).toBe('(and a b)');
    expect(tree('a || b')).toBe('(or a b)');
    expect(tree('a or b')).toBe('(or a b)');
    expect(tree('!a')).toBe('(not a)');
    expect(tree('not a')).toBe('(not a)');
    expect(tree('not(a)')).toBe('(not a)');
    expect(tree('-a')).toBe('(neg a)');
    expect(tree('x in [1, 2, 3]')).toBe('(in x [1 2 3])');
    expect(tree('x in [\'a\', "b", null, -1, - 2.5]')).toBe('(in x ["a" "b" null -1 -2.5])');
    expect(tree('x in[1]')).toBe('(in x [1])');
  });

  it('gives the operators the documented precedence', () => {
    // || < && < comparisons < in < + - < * / < unary
    expect(tree('a || b && c')).toBe('(or a (and b c))');
    expect(tree('a && b || c')).toBe('(or (and a b) c)');
    expect(tree('a or b and c')).toBe('(or a (and b c))');
    expect(tree('a == 1 && b != 2')).toBe('(and (== a 1) (!= b 2))');
    expect(tree('a < 1 || b >= 2 and c <= 3')).toBe('(or (< a 1) (and (>= b 2) (<= c 3)))');
    expect(tree('a + 1 == b * 2')).toBe('(== (+ a 1) (* b 2))');
    expect(tree('a + b in [1]')).toBe('(in (+ a b) [1])');
    expect(tree('a == b in [1]')).toBe('(== a (in b [1]))');
    expect(tree('x in [1] and y in [2]')).toBe('(and (in x [1]) (in y [2]))');
    expect(tree('1 + 2 * 3')).toBe('(+ 1 (* 2 3))');
    expect(tree('1 * 2 + 3')).toBe('(+ (* 1 2) 3)');
    expect(tree('a / b - c * d')).toBe('(- (/ a b) (* c d))');
    expect(tree('-a * b')).toBe('(* (neg a) b)');
    expect(tree('!a && b')).toBe('(and (not a) b)');
    // Unary binds tightest, `not` included (as `!` in JavaScript): wrap a comparison to negate it.
    expect(tree('not a == b')).toBe('(== (not a) b)');
    expect(tree('not (a == b)')).toBe('(not (== a b))');
    expect(tree('!(x in [1, 2])')).toBe('(not (in x [1 2]))');
  });

  it('is left-associative', () => {
    expect(tree('1 - 2 - 3')).toBe('(- (- 1 2) 3)');
    expect(tree('8 / 4 / 2')).toBe('(/ (/ 8 4) 2)');
    expect(tree('a == b == c')).toBe('(== (== a b) c)');
    expect(tree('a || b || c')).toBe('(or (or a b) c)');
  });

  it('reads nested parentheses and unary chains', () => {
    expect(tree('(a + b) * c')).toBe('(* (+ a b) c)');
    expect(tree('a * (b + c)')).toBe('(* a (+ b c))');
    expect(tree('((((a))))')).toBe('a');
    expect(tree('((a || b) && (c || (d && !e)))')).toBe('(and (or a b) (or c (and d (not e))))');
    expect(tree('!!a')).toBe('(not (not a))');
    expect(tree('not !a')).toBe('(not (not a))');
    expect(tree('- -a')).toBe('(neg (neg a))');
    expect(tree('- -5')).toBe('(neg -5)');
    expect(tree('-(5)')).toBe('-5');
    expect(tree('-(a + 1)')).toBe('(neg (+ a 1))');
    expect(tree('a - -1')).toBe('(- a -1)');
    expect(tree('2*-3')).toBe('(* 2 -3)');
    expect(tree('a>=-1&&b!=!c')).toBe('(and (>= a -1) (!= b (not c)))');
  });

  it('reads calls of plain names, `if` included', () => {
    expect(tree("contains(name, 'x')")).toBe('(contains() name "x")');
    expect(tree("startsWith(name, 'a') || endsWith(name, 'z')")).toBe(
      '(or (startsWith() name "a") (endsWith() name "z"))',
    );
    expect(tree('min(a, b) + max(1, 2, 3)')).toBe('(+ (min() a b) (max() 1 2 3))');
    expect(tree('abs(-x)')).toBe('(abs() (neg x))');
    expect(tree('round(a / b, 2)')).toBe('(round() (/ a b) 2)');
    expect(tree('if(a > 0, b / a, 0)')).toBe('(if() (> a 0) (/ b a) 0)');
    expect(tree('if (a, if(b, 1, 2), 3)')).toBe('(if() a (if() b 1 2) 3)');
    expect(tree('f()')).toBe('(f())');
    expect(tree('unknownFunction(1)')).toBe('(unknownFunction() 1)'); // names are the planner's check
  });

  it('accepts whitespace (space, tab, CR, LF) between tokens', () => {
    expect(tree(' \t a\n==\r\n1 \t')).toBe('(== a 1)');
    expect(tree('a\nand\tb')).toBe('(and a b)');
  });
});

describe('parseExpression: positions (0-based UTF-16 offsets)', () => {
  it('gives every node the offset of its first character', () => {
    expect(parseExpression('statistics.clicks > 3 && name == "x"')).toEqual({
      kind: 'logical',
      op: 'and',
      position: 0,
      left: {
        kind: 'compare',
        op: '>',
        position: 0,
        left: { kind: 'field', path: ['statistics', 'clicks'], text: 'statistics.clicks', position: 0 },
        right: { kind: 'number', value: 3, position: 20 },
      },
      right: {
        kind: 'compare',
        op: '==',
        position: 25,
        left: { kind: 'field', path: ['name'], text: 'name', position: 25 },
        right: { kind: 'string', value: 'x', position: 33 },
      },
    });
  });

  it('places parenthesised nodes at their "(" and unary nodes at the operator', () => {
    const e = parseExpression(' !(a + -2) * f(x)');
    expect(e).toEqual({
      kind: 'arithmetic',
      op: '*',
      position: 1,
      left: {
        kind: 'not',
        position: 1,
        operand: {
          kind: 'arithmetic',
          op: '+',
          position: 2,
          left: { kind: 'field', path: ['a'], text: 'a', position: 3 },
          right: { kind: 'number', value: -2, position: 7 },
        },
      },
      right: { kind: 'call', name: 'f', position: 13, args: [{ kind: 'field', path: ['x'], text: 'x', position: 15 }] },
    });
  });

  it('positions list entries and the in node', () => {
    expect(parseExpression("x  in [ 'a' , -1,null]")).toEqual({
      kind: 'in',
      position: 0,
      value: { kind: 'field', path: ['x'], text: 'x', position: 0 },
      list: [
        { kind: 'string', value: 'a', position: 8 },
        { kind: 'number', value: -1, position: 14 },
        { kind: 'null', position: 17 },
      ],
    });
  });

  it('counts UTF-16 code units: text before a node or an error shifts positions by its length in code units', () => {
    const text = "labels.x == 'é€😀' && statistics.clicks > 1";
    const e = parseExpression(text);
    expect(e.kind).toBe('logical');
    if (e.kind !== 'logical') return;
    // 'é€😀' is 5 code units between its quotes (the emoji is a surrogate pair).
    expect(e.right.position).toBe(text.indexOf('statistics'));
    expect(e.right.position).toBe(22);
    const error = errorOf(() => parseExpression("name == '😀😀' && a >> 1"));
    expect(error.position).toBe(20);
    expect(error.token).toBe('>>');
  });

  it('round-trips random well-formed expressions with their positions', () => {
    const random = seeded(20240611);
    for (let i = 0; i < 400; i++) {
      const abstract = generate(random, 0);
      const lead = pick(random, ['', ' ', '\t\n ']);
      const printed = print(abstract, lead.length, random);
      const text = lead + printed.text + pick(random, ['', ' ', '\r\n']);
      if (text.length > EXPRESSION_LIMITS.maxLength) continue;
      expect(parseExpression(text), text).toEqual(printed.expr);
    }
  });
});

describe('parseExpression: errors name the position and the token', () => {
  const cases: [text: string, position: number, token: string, message: RegExp][] = [
    // operators outside the grammar
    ['statistics.clicks >> 3', 18, '>>', /Unsupported operator '>>'.*bit shift/],
    ['a << 3', 2, '<<', /'<<'/],
    ['a >>> 3', 2, '>>>', /'>>>'/],
    ['a === b', 2, '===', /use '=='/],
    ['a !== b', 2, '!==', /use '!='/],
    ['a = b', 2, '=', /use '=='/],
    ['a <> b', 2, '<>', /use '!='/],
    ['a % 2', 2, '%', /remainder/],
    ['a ** 2', 2, '**', /power/],
    ['a & b', 2, '&', /bitwise/],
    ['a | b', 2, '|', /bitwise/],
    ['a ^ b', 2, '^', /bitwise/],
    ['~a', 0, '~', /bitwise/],
    ['a ? b : c', 2, '?', /if\(condition, a, b\)/],
    ['a ?? b', 2, '??', /'\?\?'/],
    ['a?.b', 1, '?.', /optional chaining/],
    ['a += 1', 2, '+=', /assignment/],
    ['a ||= b', 2, '||=', /assignment/],
    ['a => b', 2, '=>', /'=>'/],
    ['a++', 1, '++', /increment/],
    ['--a', 0, '--', /decrement/],
    ['+a', 0, '+', /no unary '\+'/],
    ['a + +b', 4, '+', /no unary '\+'/],
    ['a : b', 2, ':', /':'/],
    // structure
    ['a b', 2, 'b', /expected an operator/],
    ['a, b', 1, ',', /one expression/],
    ['(a, b)', 2, ',', /inside parentheses/],
    ['f(a b)', 4, 'b', /expected an operator/],
    ['a +', 3, '', /end of the expression after '\+'/],
    ['a and', 5, '', /end of the expression after 'and'/],
    ['not', 3, '', /end of the expression after 'not'/],
    ['', 0, '', /empty/],
    [' \t\r\n', 4, '', /empty/],
    ['(a', 2, '', /Missing '\)' for the '\(' at position 0/],
    ['f(a, (b)', 8, '', /Missing '\)' for the '\(' at position 1/],
    ['a)', 1, ')', /nothing to close/],
    ['(a]', 2, ']', /Expected '\)'/],
    ['()', 1, ')', /Expected an operand/],
    ['a * ()', 5, ')', /Expected an operand/],
    ['f(a,)', 4, ')', /Expected an operand/],
    ['f(,a)', 2, ',', /Expected an operand/],
    ['and b', 0, 'and', /Expected an operand/],
    ['a or or b', 5, 'or', /Expected an operand/],
    ['a not in [1]', 2, 'not', /!\(x in/],
    ['a !b', 2, '!', /expected an operator/],
    ['a[0]', 1, '[', /indexing/],
    ["a['x']", 1, '[', /indexing/],
    ['a.b()', 3, '(', /only plain function names/],
    ['statistics.clicks(1)', 17, '(', /only plain function names/],
    ['f(1)(2)', 4, '(', /expected an operator/],
    ['f(1).x', 4, '.', /Unexpected '\.'/],
    ["'abc'.length", 5, '.', /Unexpected '\.'/],
    ['(a).b', 3, '.', /Unexpected '\.'/],
    ['a .b', 2, '.', /Unexpected '\.'/],
    ['a. b', 1, '.', /Unexpected '\.'/],
    ['a..b', 1, '.', /Unexpected '\.'/],
    ['a.', 1, '.', /Unexpected '\.'/],
    ['null.x', 4, '.', /Unexpected '\.'/],
    ['this', 0, 'this', /'this'/],
    ['this.x == 1', 0, 'this', /'this'/],
    ['in(1)', 0, 'in', /Expected an operand/],
    // lists
    ['x in 1', 5, '1', /'in' must be followed by a list/],
    ['x in (1, 2)', 5, '(', /'in' must be followed by a list/],
    ['x in', 4, '', /'in' must be followed by a list/],
    ['x in []', 6, ']', /empty/],
    ['x in [1,]', 8, ']', /Expected an operand/],
    ['x in [1,,2]', 8, ',', /Expected an operand/],
    ['x in [1', 7, '', /Missing '\]'/],
    ['x in [1)', 7, ')', /Expected '\]'/],
    ['x in [a]', 6, 'a', /only numbers, strings and null/],
    ['x in [1 + 2]', 6, '1', /only numbers, strings and null/],
    ["x in [-'a']", 6, '-', /only numbers, strings and null/],
    ['x in [[1]]', 6, '[', /only allowed after 'in'/],
    ['x in [1] + 2', 9, '+', /after the list of 'in'/],
    ['[1] == a', 0, '[', /only allowed after 'in'/],
    ['f([1])', 2, '[', /only allowed after 'in'/],
    // numbers
    ['1e400', 0, '1e400', /out of range/],
    ['-1e400', 1, '1e400', /out of range/],
    ['1e-400', 0, '1e-400', /too small/],
    ['99999999999999999999', 0, '99999999999999999999', /beyond 9007199254740991/],
    ['9007199254740992', 0, '9007199254740992', /beyond 9007199254740991/],
    ['1e16', 0, '1e16', /beyond 9007199254740991/],
    ['0.1234567890123456', 0, '0.1234567890123456', /more than 15 significant digits/],
    ['.5', 0, '.5', /write 0\.5/],
    ['5.', 0, '5.', /Invalid number/],
    ['1.2.3', 0, '1.2.3', /Invalid number/],
    ['0x1F', 0, '0x1F', /Invalid number/],
    ['1e', 0, '1e', /Invalid number/],
    ['12abc', 0, '12abc', /Invalid number/],
    ['a.1', 1, '.1', /Invalid number/],
    // strings
    ["name == 'abc", 8, "'", /Unterminated string/],
    ['name == "abc', 8, '"', /Unterminated string/],
    ["'abc\\'", 0, "'", /Unterminated string/],
    ["'abc\\", 0, "'", /Unterminated string/],
    ["'\\x41'", 1, '\\x', /Unknown escape/],
    ["'\\u0041'", 1, '\\u', /Unknown escape/],
    ["'a\u0000b'", 2, '\u0000', /control character U\+0000/],
    ["'a\tb'", 2, '\t', /control character U\+0009/],
    ["'a\nb'", 2, '\n', /control character U\+000A/],
    ["'a\u007fb'", 2, '\u007f', /control character U\+007F/],
    ["'\ud800'", 1, '\ud800', /surrogate/],
    // characters outside the grammar
    ['a\u0000', 1, '\u0000', /U\+0000/],
    ['a\u000b== 1', 1, '\u000b', /U\+000B/],
    ['\u00a0a', 0, '\u00a0', /U\+00A0/],
    ['a;', 1, ';', /one expression/],
    ['`a`', 0, '`', /quoted with/],
    ['$a', 0, '$', /Unexpected character/],
    ['#a', 0, '#', /Unexpected character/],
    ['a\\b', 1, '\\', /Unexpected character/],
    ['{a}', 0, '{', /Unexpected character/],
    ['é == 1', 0, 'é', /Unexpected character 'é'/],
    ['😀 == 1', 0, '😀', /Unexpected character '😀'/],
    ["'😀' == 😀", 8, '😀', /Unexpected character/],
    ['a /* c */', 2, '/*', /comments/],
    ['a // c', 2, '//', /comments/],
    ["name == 'x' -- comment", 12, '--', /not a comment/],
  ];

  for (const [text, position, token, message] of cases) {
    it(`${JSON.stringify(text)} -> ${position} ${JSON.stringify(token)}`, () => {
      const error = errorOf(() => parseExpression(text));
      expect({ position: error.position, token: error.token }).toEqual({ position, token });
      expect(error.message).toMatch(message);
      expectWellFormedError(text, error);
    });
  }

  it('reads NaN and Infinity as (unknown) fields, not as numbers', () => {
    expect(tree('NaN + Infinity')).toBe('(+ NaN Infinity)');
  });
});

describe('parseExpression: caps', () => {
  it('refuses text longer than maxLength before parsing', () => {
    const ok = `a == '${'x'.repeat(EXPRESSION_LIMITS.maxLength - 7)}'`;
    expect(ok.length).toBe(EXPRESSION_LIMITS.maxLength);
    expect(parseExpression(ok).kind).toBe('compare');
    const error = errorOf(() => parseExpression(`${ok} `));
    expect(error.message).toMatch(/longer than 2000 characters/);
    expect(error.position).toBe(EXPRESSION_LIMITS.maxLength);
    expect(error.token).toBe(' ');
  });

  it('refuses 10,000 parentheses quickly, without recursion', () => {
    const started = performance.now();
    for (const text of [
      '('.repeat(10_000),
      `${'('.repeat(10_000)}a${')'.repeat(10_000)}`,
      '['.repeat(10_000),
      '!'.repeat(100_000),
    ]) {
      expect(errorOf(() => parseExpression(text)).message).toMatch(/longer than/);
    }
    // Within the length cap: the scanner stops at the first bracket that is too deep.
    const deep = `${'('.repeat(999)}a${')'.repeat(999)}`;
    const error = errorOf(() => parseExpression(deep));
    expect(error.message).toMatch(/nested deeper than 32 levels/);
    expect(error.position).toBe(EXPRESSION_LIMITS.maxDepth);
    expect(error.token).toBe('(');
    expect(errorOf(() => parseExpression(`${'f('.repeat(600)}`)).message).toMatch(/nested deeper/);
    expect(errorOf(() => parseExpression(`${'!'.repeat(1999)}a`)).message).toMatch(/nested deeper/);
    expect(errorOf(() => parseExpression(`${'- '.repeat(999)}a`)).message).toMatch(/nested deeper/);
    expect(errorOf(() => parseExpression(`${'-('.repeat(666)}a`)).message).toMatch(/nested deeper/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('allows maxDepth levels and refuses one more', () => {
    const depth = EXPRESSION_LIMITS.maxDepth;
    expect(tree(`${'('.repeat(depth)}a${')'.repeat(depth)}`)).toBe('a');
    expect(errorOf(() => parseExpression(`${'('.repeat(depth + 1)}a${')'.repeat(depth + 1)}`)).position).toBe(depth);
    // The tree's depth: a chain of n binary operators is n + 1 levels deep.
    const chain = (n: number): string => `a${' + a'.repeat(n)}`;
    expect(parseExpression(chain(depth - 1)).kind).toBe('arithmetic');
    const error = errorOf(() => parseExpression(chain(depth)));
    expect(error.message).toMatch(/nested deeper than 32 levels/);
    expectWellFormedError(chain(depth), error);
    expect(parseExpression(`${'!'.repeat(depth - 1)}a`).kind).toBe('not');
    expect(errorOf(() => parseExpression(`${'!'.repeat(depth)}a`)).message).toMatch(/nested deeper/);
    // A long chain fails fast too (no deep recursion in the conversion).
    expect(errorOf(() => parseExpression(chain(499))).message).toMatch(/nested deeper/);
  });

  it('refuses more than maxNodes nodes', () => {
    const args = (n: number): string => `max(${Array.from({ length: n }, () => '1').join(',')})`;
    const ok = parseExpression(args(EXPRESSION_LIMITS.maxNodes - 1));
    expect(ok.kind === 'call' && ok.args.length).toBe(EXPRESSION_LIMITS.maxNodes - 1);
    const text = args(EXPRESSION_LIMITS.maxNodes);
    const error = errorOf(() => parseExpression(text));
    expect(error.message).toMatch(/more than 500 parts/);
    expect(error.position).toBe(text.length - 2);
    expect(error.token).toBe('1');
    // Lists count too: three lists of 200 are 600 entries.
    const list = `[${Array.from({ length: 200 }, () => '1').join(',')}]`;
    expect(errorOf(() => parseExpression(`x in ${list} or y in ${list} or z in ${list}`)).message).toMatch(
      /more than 500 parts/,
    );
  });

  it('refuses lists longer than maxListLength', () => {
    const list = (n: number): string => `x in [${Array.from({ length: n }, (_, i) => `'v${i}'`).join(', ')}]`;
    const ok = parseExpression(list(EXPRESSION_LIMITS.maxListLength));
    expect(ok.kind === 'in' && ok.list.length).toBe(EXPRESSION_LIMITS.maxListLength);
    const text = list(EXPRESSION_LIMITS.maxListLength + 1);
    const error = errorOf(() => parseExpression(text));
    expect(error.message).toMatch(/more than 200 entries/);
    expect(error.token).toBe(`'v200'`);
    expect(error.position).toBe(text.indexOf(`'v200'`));
  });
});

describe('parseExpression: hostile input', () => {
  const corpus = [
    "name == 'x' or 1 == 1",
    "name == 'x'' or ''1'' == ''1'",
    "name == 'x'; DROP TABLE facts; --'",
    "name == 'x; DROP TABLE facts; --'",
    'name == "x\\" or 1 == 1 --"',
    "name == '/* */' and name != '*/'",
    "contains(name, '%_\\\\')",
    "name == '`rm -rf /`'",
    "name == '${process.exit()}'",
    "name == '\\'); process.exit(); //'",
    'constructor.constructor("return process")()',
    '__proto__.polluted == 1',
    'labels.__proto__ == 1',
    'toString == 1',
    'hasOwnProperty(1)',
    "name == 'a\u0000b'",
    "name == 'a\u001bb'",
    "name == 'a\u2028b\u2029c'",
    "name == '\u202eevil\u202c'",
    "name == 'Ω≈ç√∫ 田中 مرحبا 😀👍🏽'",
    "name == '\ud83d'",
    "name == 'a' \u0000",
    'name\u200b == 1',
    '1e400',
    '-1e400',
    '1e308',
    '99999999999999999999',
    '0.30000000000000004',
    '4.9e-324',
    "name == '" + "'".repeat(50),
    '"'.repeat(99),
    "'".repeat(100),
    '\\'.repeat(10),
    "name in ['a', 'b'] -- ",
    'a == 1 /* comment */',
    "name LIKE '%'",
    'name IS NULL',
    'NULL',
    'a == 1 # comment',
    'SELECT * FROM facts',
    "'; --",
    '\u0000',
    '\t\n\r',
    '%00',
    '<script>alert(1)</script>',
    'a' + '.b'.repeat(500),
  ];

  for (const text of corpus) {
    it(`${JSON.stringify(text).slice(0, 60)} parses faithfully or fails with an ExpressionError`, () => {
      const result = parseOrExplain(text);
      if (!(result instanceof ExpressionError)) expectFaithfulTree(text, result);
    });
  }

  it('keeps quotes, SQL and comment markers inside strings as they are', () => {
    expect(parseExpression("name == 'x; DROP TABLE facts; --'")).toMatchObject({
      right: { kind: 'string', value: 'x; DROP TABLE facts; --' },
    });
    expect(parseExpression('name == "x\\" or 1 == 1 --"')).toMatchObject({
      right: { kind: 'string', value: 'x" or 1 == 1 --' },
    });
    expect(parseExpression("name == '/* */'")).toMatchObject({ right: { kind: 'string', value: '/* */' } });
    expect(parseExpression("contains(name, '%_\\\\')")).toMatchObject({
      args: [{ kind: 'field' }, { kind: 'string', value: '%_\\' }],
    });
    expect(parseExpression("name == 'a\u2028b'")).toMatchObject({ right: { kind: 'string', value: 'a\u2028b' } });
    expect(parseExpression('__proto__.polluted == 1')).toMatchObject({
      left: { kind: 'field', path: ['__proto__', 'polluted'] },
    });
    expect(tree('constructor == 1')).toBe('(== constructor 1)');
    expect(errorOf(() => parseExpression("name == 'x'; DROP TABLE facts")).token).toBe(';');
    expect(errorOf(() => parseExpression("name == 'x'' or ''1'' == ''1'")).token).toBe("' or '");
  });

  it('throws nothing but ExpressionError on random text', () => {
    const random = seeded(7);
    const pieces = [
      'a',
      'b',
      'statistics.clicks',
      'labels.x',
      'not',
      'and',
      'or',
      'in',
      'null',
      'this',
      'if',
      'min',
      '1',
      '0',
      '2.5',
      '1e3',
      '1e400',
      '99999999999999999999',
      '.',
      ',',
      '(',
      ')',
      '[',
      ']',
      "'",
      '"',
      '\\',
      '\\n',
      ' ',
      '\t',
      '\n',
      '+',
      '-',
      '*',
      '/',
      '%',
      '=',
      '==',
      '!',
      '!=',
      '<',
      '>',
      '<=',
      '>=',
      '&&',
      '||',
      '&',
      '|',
      '?',
      ':',
      ';',
      '`',
      '$',
      '#',
      '{',
      '}',
      '😀',
      '\ud83d',
      'é',
      '\u0000',
      '\u00a0',
      '--',
      '/*',
      '*/',
      "'x'",
      '"y"',
      'f(',
      'x in [',
    ];
    let parsed = 0;
    for (let i = 0; i < 3000; i++) {
      const length = 1 + Math.floor(random() * 14);
      let text = '';
      for (let j = 0; j < length; j++) text += pick(random, pieces);
      if (!(parseOrExplain(text) instanceof ExpressionError)) parsed++;
    }
    expect(parsed).toBeGreaterThan(10);
  });

  it('leaves the parser usable after errors', () => {
    for (const bad of ['a >>', 'x in [y]', '(((', "'", 'a b c']) errorOf(() => parseExpression(bad));
    expect(parseExpression('(a) + b')).toEqual({
      kind: 'arithmetic',
      op: '+',
      position: 0,
      left: { kind: 'field', path: ['a'], text: 'a', position: 0 },
      right: { kind: 'field', path: ['b'], text: 'b', position: 6 },
    });
  });

  it('refuses input that is not a string', () => {
    expect(errorOf(() => parseExpression(undefined as unknown as string)).position).toBe(0);
  });
});

describe('splitFormulas', () => {
  it('splits name:expression:Type entries at top-level commas', () => {
    const value =
      'cpc:statistics.cost / statistics.clicks:Money, ratio: if(statistics.clicks > 0, min(1, 2), 0) :Decimal';
    expect(splitFormulas([value])).toEqual([
      { name: 'cpc', expression: 'statistics.cost / statistics.clicks', type: 'Money', offset: 4, valueIndex: 0 },
      {
        name: 'ratio',
        expression: 'if(statistics.clicks > 0, min(1, 2), 0)',
        type: 'Decimal',
        offset: value.indexOf('if('),
        valueIndex: 0,
      },
    ]);
  });

  it('keeps commas and colons inside parentheses, brackets and quotes', () => {
    const value = "a:contains(name, 'x,y:z') || x in [1, 2]:Integer,b:'it\\'s, :' == name:Percentage";
    const formulas = splitFormulas([value]);
    expect(formulas.map((f) => [f.name, f.expression, f.type])).toEqual([
      ['a', "contains(name, 'x,y:z') || x in [1, 2]", 'Integer'],
      ['b', "'it\\'s, :' == name", 'Percentage'],
    ]);
    for (const f of formulas) expect(value.slice(f.offset, f.offset + f.expression.length)).toBe(f.expression);
  });

  it('reads repeated parameter values, offsets within each value', () => {
    const second = '  y : 2 + 3 : Decimal , z:abs(-1):Money';
    expect(splitFormulas(['x:1:Integer', second])).toEqual([
      { name: 'x', expression: '1', type: 'Integer', offset: 2, valueIndex: 0 },
      { name: 'y', expression: '2 + 3', type: 'Decimal', offset: 6, valueIndex: 1 },
      { name: 'z', expression: 'abs(-1)', type: 'Money', offset: second.indexOf('abs'), valueIndex: 1 },
    ]);
    expect(splitFormulas([])).toEqual([]);
  });

  it('takes the name before the first colon and the type after the last', () => {
    expect(splitFormulas(['n:a:b:Integer'])).toEqual([
      { name: 'n', expression: 'a:b', type: 'Integer', offset: 2, valueIndex: 0 },
    ]);
    // the expression parser then points into the whole value
    const [f] = splitFormulas(['n:a:b:Integer']);
    const error = errorOf(() => parseExpression(f?.expression ?? ''));
    expect((f?.offset ?? 0) + error.position).toBe(3);
    expect(error.token).toBe(':');
  });

  it('leaves types and the expression to the planner', () => {
    expect(splitFormulas(['n:a b:whatever'])).toEqual([
      { name: 'n', expression: 'a b', type: 'whatever', offset: 2, valueIndex: 0 },
    ]);
  });

  const errors: [values: string[], position: number, token: string, message: RegExp][] = [
    [['cpc'], 0, 'cpc', /name:expression:Type/],
    [['cpc:statistics.cost'], 0, 'cpc:statistics.cost', /name:expression:Type/],
    [["n:'a:b'"], 0, "n:'a:b'", /name:expression:Type/],
    [[':a:Integer'], 0, ':', /no name/],
    [['  :a:Integer'], 2, ':', /no name/],
    [['1cpc:a:Integer'], 0, '1cpc', /must start with a letter/],
    [['c-p:a:Integer'], 0, 'c-p', /must start with a letter/],
    [[`${'n'.repeat(65)}:a:Integer`], 0, 'n'.repeat(65), /at most 64/],
    [['é:a:Integer'], 0, 'é', /must start with a letter/],
    [['n: :Integer'], 3, ':', /no expression/],
    [['n::Integer'], 2, ':', /no expression/],
    [['n:a:'], 4, '', /no type/],
    [['n:a: ,m:b:Money'], 5, ',', /no type/],
    [[''], 0, '', /Empty formula/],
    [['a:1:Integer,'], 12, '', /Empty formula/],
    [['a:1:Integer,,b:2:Money'], 12, ',', /Empty formula/],
    [[',a:1:Integer'], 0, ',', /Empty formula/],
    [["a:name == 'x:Integer"], 10, "'", /Unterminated string/],
    [['a:min(1, 2:Integer'], 18, '', /Missing '\)' for the '\(' at position 5/],
    [['a:1:Integer', 'b'], 0, 'b', /formulas value 2/],
  ];
  for (const [values, position, token, message] of errors) {
    it(`${JSON.stringify(values)} -> ${position} ${JSON.stringify(token)}`, () => {
      const error = errorOf(() => splitFormulas(values));
      expect({ position: error.position, token: error.token }).toEqual({ position, token });
      expect(error.message).toMatch(message);
      expectWellFormedError(values[values.length - 1] ?? '', error);
    });
  }

  it('throws nothing but ExpressionError on random text', () => {
    const random = seeded(11);
    const pieces = ['a', 'n1', ':', ',', '(', ')', '[', ']', "'", '"', '\\', ' ', 'Integer', '1', '+', '😀', '\u0000'];
    for (let i = 0; i < 2000; i++) {
      let value = '';
      const length = 1 + Math.floor(random() * 12);
      for (let j = 0; j < length; j++) value += pick(random, pieces);
      try {
        for (const f of splitFormulas([value])) {
          expect(value.slice(f.offset, f.offset + f.expression.length)).toBe(f.expression);
          expect(f.name).toMatch(/^[A-Za-z][A-Za-z0-9_]{0,63}$/);
          expect(f.type).not.toBe('');
        }
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        expectWellFormedError(value, error);
      }
    }
  });
});

describe('layout (DESIGN D4/D5)', () => {
  it('imports jsep only in src/planner/expression', () => {
    const importers: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (
          /\.(ts|js|mts|cts)$/.test(entry.name) &&
          /from ['"]jsep['"]|require\(['"]jsep['"]\)|import\(['"]jsep['"]\)/.test(readFileSync(path, 'utf8'))
        ) {
          importers.push(path.replaceAll('\\', '/'));
        }
      }
    };
    walk('src');
    expect(importers.length).toBeGreaterThan(0);
    for (const file of importers) expect(file.startsWith('src/planner/expression/')).toBe(true);
  });
});

// ---- helpers: a seeded generator of well-formed expressions with their expected trees ------------

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const FIELDS = [
  'statistics.clicks',
  'labels.client_id',
  'customFields.field3',
  'segments.deviceType',
  'name',
  'campaignId',
  'notes',
  'index',
  'order',
  'labels.in',
  'segments.not',
  'true',
];
const FUNCTIONS = ['contains', 'startsWith', 'endsWith', 'min', 'max', 'abs', 'round', 'if'];
const NUMBERS = [0, 1, 7, 42, 3.25, 0.001, 1500000, 2.5e-7, 123456789, -1, -0.5, -99];
const STRING_CHARS = [
  'a',
  'Z',
  ' ',
  "'",
  '"',
  '\\',
  '\n',
  '\t',
  ',',
  '(',
  ')',
  ':',
  '--',
  '/*',
  ';',
  '%',
  'é',
  '😀',
  '\u2028',
];
const PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '<=': 3,
  '>': 3,
  '>=': 3,
  in: 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
};
const SPACES = [' ', '  ', '\t', '\n', '\r\n', ' \t '];

function leaf(random: () => number): Expr {
  const r = random();
  if (r < 0.4) {
    const text = pick(random, FIELDS);
    return { kind: 'field', path: text.split('.'), text, position: 0 };
  }
  if (r < 0.7) return { kind: 'number', value: pick(random, NUMBERS), position: 0 };
  if (r < 0.93) {
    let value = '';
    const length = Math.floor(random() * 5);
    for (let i = 0; i < length; i++) value += pick(random, STRING_CHARS);
    return { kind: 'string', value, position: 0 };
  }
  return { kind: 'null', position: 0 };
}

function generate(random: () => number, depth: number): Expr {
  if (depth >= 4 || random() < 0.25) return leaf(random);
  const r = random();
  const next = (): Expr => generate(random, depth + 1);
  if (r < 0.2)
    return {
      kind: 'arithmetic',
      op: pick(random, ['+', '-', '*', '/'] as const),
      left: next(),
      right: next(),
      position: 0,
    };
  if (r < 0.4)
    return {
      kind: 'compare',
      op: pick(random, ['==', '!=', '<', '<=', '>', '>='] as const),
      left: next(),
      right: next(),
      position: 0,
    };
  if (r < 0.55)
    return { kind: 'logical', op: pick(random, ['and', 'or'] as const), left: next(), right: next(), position: 0 };
  if (r < 0.63) return { kind: 'not', operand: next(), position: 0 };
  if (r < 0.7) {
    const operand = next();
    // -<non-negative number> is read as a negative number literal, not a negation.
    if (operand.kind === 'number' && operand.value >= 0)
      return { kind: 'number', value: operand.value === 0 ? 0 : -operand.value, position: 0 };
    return { kind: 'negate', operand, position: 0 };
  }
  if (r < 0.8) {
    const list: Expr[] = [];
    const length = 1 + Math.floor(random() * 4);
    for (let i = 0; i < length; i++) {
      let item = leaf(random);
      while (item.kind === 'field') item = leaf(random);
      list.push(item);
    }
    return { kind: 'in', value: next(), list, position: 0 };
  }
  const args: Expr[] = [];
  const count = Math.floor(random() * 4);
  for (let i = 0; i < count; i++) args.push(next());
  return { kind: 'call', name: pick(random, FUNCTIONS), args, position: 0 };
}

function precedenceOf(e: Expr): number {
  if (e.kind === 'arithmetic' || e.kind === 'compare' || e.kind === 'logical') return PRECEDENCE[e.op] ?? 0;
  if (e.kind === 'in') return PRECEDENCE.in ?? 0;
  return Infinity;
}

function quote(value: string, random: () => number): string {
  const q = random() < 0.5 ? "'" : '"';
  const body = value.replace(/[\\'"\n\r\t]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    if (c === '\\') return '\\\\';
    return c === q ? `\\${c}` : c;
  });
  return `${q}${body}${q}`;
}

/** Prints `e` starting at offset `at`; returns the text and the tree the parser should give. */
function print(e: Expr, at: number, random: () => number): { text: string; expr: Expr } {
  const operand = (child: Expr, offset: number, parens: boolean): { text: string; expr: Expr } => {
    if (!parens) return print(child, offset, random);
    const inner = print(child, offset + 1, random);
    return { text: `(${inner.text})`, expr: { ...inner.expr, position: offset } };
  };
  switch (e.kind) {
    case 'number':
      return { text: String(e.value), expr: { ...e, position: at } };
    case 'string':
      return { text: quote(e.value, random), expr: { ...e, position: at } };
    case 'null':
      return { text: 'null', expr: { ...e, position: at } };
    case 'field':
      return { text: e.text, expr: { ...e, position: at } };
    case 'arithmetic':
    case 'compare':
    case 'logical':
    case 'in': {
      const p = precedenceOf(e);
      const leftNode = e.kind === 'in' ? e.value : e.left;
      const left = operand(leftNode, at, precedenceOf(leftNode) < p);
      const opText =
        e.kind === 'in'
          ? 'in'
          : e.kind === 'logical'
            ? pick(random, e.op === 'and' ? ['and', '&&'] : ['or', '||'])
            : e.op;
      const before = pick(random, SPACES);
      const after = pick(random, SPACES);
      let text = `${left.text}${before}${opText}${after}`;
      if (e.kind === 'in') {
        const list: Expr[] = [];
        text += '[';
        e.list.forEach((item, i) => {
          if (i > 0) text += ', ';
          const printed = print(item, at + text.length, random);
          list.push(printed.expr);
          text += printed.text;
        });
        text += ']';
        return { text, expr: { kind: 'in', value: left.expr, list, position: at } };
      }
      const right = operand(e.right, at + text.length, precedenceOf(e.right) <= p);
      text += right.text;
      return { text, expr: { ...e, left: left.expr, right: right.expr, position: at } };
    }
    case 'not':
    case 'negate': {
      const opText = e.kind === 'negate' ? '-' : pick(random, ['!', 'not ']);
      const child = e.operand;
      const parens = precedenceOf(child) !== Infinity;
      let prefix = opText;
      if (!parens && opText === '-' && child.kind === 'number') prefix = '- ';
      const inner = operand(child, at + prefix.length, parens);
      if (!parens && opText === '-' && inner.text.startsWith('-')) {
        // "- -x": keep the two minus signs apart ("--" is refused)
        const spaced = operand(child, at + 2, false);
        return { text: `- ${spaced.text}`, expr: { ...e, operand: spaced.expr, position: at } };
      }
      return { text: `${prefix}${inner.text}`, expr: { ...e, operand: inner.expr, position: at } };
    }
    case 'call': {
      let text = `${e.name}(`;
      const args: Expr[] = [];
      e.args.forEach((arg, i) => {
        if (i > 0) text += pick(random, [',', ', ', ' , ']);
        const printed = print(arg, at + text.length, random);
        args.push(printed.expr);
        text += printed.text;
      });
      text += ')';
      return { text, expr: { ...e, args, position: at } };
    }
  }
}
