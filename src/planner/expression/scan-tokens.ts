/**
 * The scanner in front of jsep: it cuts the text into tokens and checks that they follow each
 * other the way the grammar allows (an operand, then an operator, then an operand ...; brackets
 * balanced and at most EXPRESSION_LIMITS.maxDepth deep). Everything jsep would read differently
 * from us, or would accept although our grammar does not (operators we removed, computed member
 * access, `a b`, `a, b`, comments, characters outside the grammar ...), fails here with the exact
 * position and token; jsep only ever sees text made of our tokens and builds the tree from it.
 *
 * Positions are UTF-16 offsets (JavaScript string indices), 0-based.
 */
import { EXPRESSION_LIMITS, ExpressionError } from './expression-types.js';

interface TokenBase {
  /** The token as written. */
  readonly text: string;
  readonly start: number;
  /** Offset just after the token. */
  readonly end: number;
}

export type Token =
  | (TokenBase & { readonly kind: 'number'; readonly value: number })
  | (TokenBase & { readonly kind: 'string'; readonly value: string })
  | (TokenBase & { readonly kind: 'null' })
  /** An identifier; `segment` when it follows a `.` (the second and later parts of a field path). */
  | (TokenBase & { readonly kind: 'name'; readonly segment: boolean })
  /** Supported operators, the word operators `and or not in` included. */
  | (TokenBase & { readonly kind: 'operator' })
  /** `( ) [ ] , .` */
  | (TokenBase & { readonly kind: 'punctuation' });

/** Binary operators of the grammar and their precedence (higher binds tighter). */
export const BINARY_PRECEDENCE: Readonly<Record<string, number>> = {
  '||': 1,
  or: 1,
  '&&': 2,
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

const IN_PRECEDENCE = BINARY_PRECEDENCE.in ?? 4;

/** Prefix operators; they bind tighter than every binary operator. */
export const UNARY_OPERATORS: readonly string[] = ['-', '!', 'not'];

const WORD_OPERATORS = new Set(['and', 'or', 'not', 'in']);
const SYMBOL_OPERATORS = new Set(['==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '/', '!']);

const ASSIGNMENT = 'assignment is not supported';
const BITWISE = "bitwise operators are not supported; use '&&' (and) or '||' (or)";
/**
 * Operators of JavaScript (and look-alikes from SQL) that the grammar does not have. They are
 * recognised as whole tokens so that `a >> 3` fails at `>>` rather than reading as `a > (> 3)`.
 */
const UNSUPPORTED_OPERATORS: Readonly<Record<string, string>> = {
  '===': "use '=='",
  '!==': "use '!='",
  '=': "use '==' to compare",
  '<>': "use '!='",
  '=>': 'functions are not supported',
  '**': 'powers are not supported',
  '%': 'the remainder operator is not supported',
  '<<': 'bit shifts are not supported',
  '>>': 'bit shifts are not supported',
  '>>>': 'bit shifts are not supported',
  '&': BITWISE,
  '|': BITWISE,
  '^': 'bitwise operators are not supported',
  '~': 'bitwise operators are not supported',
  '?': 'the conditional operator is not supported; use if(condition, a, b)',
  '??': 'use if(x == null, y, x)',
  '?.': 'optional chaining is not supported',
  ':': 'a colon has no meaning in an expression',
  '++': 'increment is not supported (write a + +b with a space if you mean it)',
  '--': "decrement is not supported and '--' is not a comment (write a - -b with a space if you mean it)",
  '//': 'comments are not supported',
  '/*': 'comments are not supported',
  '*/': 'comments are not supported',
  '+=': ASSIGNMENT,
  '-=': ASSIGNMENT,
  '*=': ASSIGNMENT,
  '/=': ASSIGNMENT,
  '%=': ASSIGNMENT,
  '**=': ASSIGNMENT,
  '<<=': ASSIGNMENT,
  '>>=': ASSIGNMENT,
  '>>>=': ASSIGNMENT,
  '&=': ASSIGNMENT,
  '|=': ASSIGNMENT,
  '^=': ASSIGNMENT,
  '&&=': ASSIGNMENT,
  '||=': ASSIGNMENT,
  '??=': ASSIGNMENT,
};
const OPERATOR_CHARS = new Set('=!<>&|+-*/%^~?:');
const LONGEST_OPERATOR = 4;

/** Escapes inside string literals; any other character after a backslash is an error. */
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t' };

/** Whitespace between tokens: exactly what jsep skips. */
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}
function isNamePart(code: number): boolean {
  return isNameStart(code) || isDigit(code);
}

/** The character (whole code point) at `index`. */
function charAt(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? '' : String.fromCodePoint(code);
}

/** A token for a message: invisible and control characters are named by their code point. */
export function showToken(token: string): string {
  if (token === '') return 'the end of the expression';
  const shown = token.length > 40 ? `${token.slice(0, 40)}…` : token;
  const invisible = /^[\p{C}\p{Z}]$/u.test(token);
  const code = token.codePointAt(0) ?? 0;
  return invisible ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `'${shown}'`;
}

function fail(message: string, position: number, token: string): never {
  throw new ExpressionError(message, position, token);
}

/** The significant digits of a decimal literal's mantissa (no leading or trailing zeros). */
function significantDigits(mantissa: string): number {
  return mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

const NUMBER = /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NUMBER_TAIL = /[A-Za-z0-9_.]*/y;
const MIN_NORMAL = 2.2250738585072014e-308;

function readNumber(text: string, start: number): Token {
  NUMBER.lastIndex = start;
  const match = NUMBER.exec(text);
  let end = start + (match ? match[0].length : 0);
  if (end < text.length && (isNamePart(text.charCodeAt(end)) || text.charCodeAt(end) === 46)) {
    NUMBER_TAIL.lastIndex = end;
    end += NUMBER_TAIL.exec(text)?.[0].length ?? 0;
    const raw = text.slice(start, end);
    const hint = raw.startsWith('.') ? `; write 0${raw}` : '';
    return fail(`Invalid number ${showToken(raw)}: numbers are written like 12, 0.5 or 1.5e3${hint}`, start, raw);
  }
  const raw = text.slice(start, end);
  const value = Number(raw);
  const mantissa = raw.split(/[eE]/)[0] ?? raw;
  if (!Number.isFinite(value)) return fail(`The number ${showToken(raw)} is out of range`, start, raw);
  if (value !== 0 && value < MIN_NORMAL)
    return fail(`The number ${showToken(raw)} is too small to be represented`, start, raw);
  if (value === 0 && /[1-9]/.test(mantissa))
    return fail(`The number ${showToken(raw)} is too small to be represented`, start, raw);
  if (value > Number.MAX_SAFE_INTEGER) {
    return fail(
      `The number ${showToken(raw)} is beyond ${Number.MAX_SAFE_INTEGER} and cannot be represented exactly`,
      start,
      raw,
    );
  }
  // Plain integers up to MAX_SAFE_INTEGER are exact; a decimal must keep to what a double holds.
  if (/[.eE]/.test(raw) && significantDigits(mantissa) > 15) {
    return fail(
      `The number ${showToken(raw)} has more than 15 significant digits and cannot be represented exactly`,
      start,
      raw,
    );
  }
  return { kind: 'number', text: raw, start, end, value };
}

function readString(text: string, start: number): Token {
  const quote = text[start];
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const ch = text[i] as string;
    if (ch === quote) {
      return { kind: 'string', text: text.slice(start, i + 1), start, end: i + 1, value };
    }
    if (ch === '\\') {
      if (i + 1 >= text.length) break;
      const next = charAt(text, i + 1);
      const escaped = ESCAPES[next];
      if (escaped === undefined) {
        return fail(
          `Unknown escape ${showToken(`\\${next}`)} in a string: use \\\\, \\', \\", \\n, \\r or \\t`,
          i,
          `\\${next}`,
        );
      }
      value += escaped;
      i += 2;
      continue;
    }
    if (code < 32 || code === 127) {
      return fail(`The control character ${showToken(ch)} is not allowed in a string: write \\n, \\r or \\t`, i, ch);
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const low = text.charCodeAt(i + 1);
      if (code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
        value += text.slice(i, i + 2);
        i += 2;
        continue;
      }
      return fail('A string holds a lone UTF-16 surrogate (invalid unicode)', i, ch);
    }
    value += ch;
    i += 1;
  }
  return fail(
    `Unterminated string: the ${quote === '"' ? 'double' : 'single'} quote is never closed`,
    start,
    quote ?? '',
  );
}

function readName(text: string, start: number, segment: boolean): Token {
  let end = start + 1;
  while (end < text.length && isNamePart(text.charCodeAt(end))) end++;
  const name = text.slice(start, end);
  if (!segment && WORD_OPERATORS.has(name)) return { kind: 'operator', text: name, start, end };
  if (!segment && name === 'null') return { kind: 'null', text: name, start, end };
  return { kind: 'name', text: name, start, end, segment };
}

function readOperator(text: string, start: number): Token {
  for (let length = LONGEST_OPERATOR; length > 0; length--) {
    const op = text.slice(start, start + length);
    if (op.length !== length) continue;
    if (SYMBOL_OPERATORS.has(op)) return { kind: 'operator', text: op, start, end: start + length };
    const reason = UNSUPPORTED_OPERATORS[op];
    if (reason !== undefined) return fail(`Unsupported operator ${showToken(op)}: ${reason}`, start, op);
  }
  // Every operator character is an operator of one of the two tables.
  return fail(`Unexpected character ${showToken(charAt(text, start))}`, start, charAt(text, start));
}

function readToken(text: string, start: number): Token {
  const code = text.charCodeAt(start);
  const ch = charAt(text, start);
  if (isDigit(code)) return readNumber(text, start);
  if (ch === '"' || ch === "'") return readString(text, start);
  if (isNameStart(code)) return readName(text, start, false);
  if ('()[],'.includes(ch)) return { kind: 'punctuation', text: ch, start, end: start + 1 };
  if (ch === '.') {
    if (isDigit(text.charCodeAt(start + 1))) return readNumber(text, start);
    return { kind: 'punctuation', text: ch, start, end: start + 1 };
  }
  if (OPERATOR_CHARS.has(ch)) return readOperator(text, start);
  if (ch === '`') return fail("Unexpected character '`': strings are quoted with ' or \"", start, ch);
  if (ch === ';') return fail("Unexpected character ';': a filter is one expression", start, ch);
  return fail(`Unexpected character ${showToken(ch)}`, start, ch);
}

interface OpenBracket {
  readonly token: Token;
  readonly kind: 'group' | 'call' | 'list';
}

function isOperator(token: Token | undefined, text: string): boolean {
  return token !== undefined && token.kind === 'operator' && token.text === text;
}
function isPunctuation(token: Token | undefined, text: string): boolean {
  return token !== undefined && token.kind === 'punctuation' && token.text === text;
}

function nestedTooDeep(token: Token): never {
  return fail(`The expression is nested deeper than ${EXPRESSION_LIMITS.maxDepth} levels`, token.start, token.text);
}

/**
 * Cuts `text` into tokens and checks their order. Throws ExpressionError for anything outside
 * the grammar that can be seen from the token sequence; the rest (lists of literals only, tree
 * depth and size) is checked on the tree.
 */
export function scanTokens(text: string): Token[] {
  const tokens: Token[] = [];
  const open: OpenBracket[] = [];
  /** The bracket each closing token closed. */
  const closedBrackets = new Map<Token, OpenBracket>();
  const closedInList = (token: Token | undefined): boolean =>
    token !== undefined && closedBrackets.get(token)?.kind === 'list';
  let expectOperand = true;
  let unaryRun = 0;
  let index = 0;

  for (;;) {
    while (index < text.length && isSpace(text.charCodeAt(index))) index++;
    if (index >= text.length) break;
    const token = readToken(text, index);
    const previous = tokens[tokens.length - 1];
    index = token.end;

    if (isOperator(previous, 'in') && !isPunctuation(token, '[')) {
      fail(`'in' must be followed by a list like [1, 2] but found ${showToken(token.text)}`, token.start, token.text);
    }

    if (expectOperand) {
      if (token.kind === 'number' || token.kind === 'string' || token.kind === 'null') {
        expectOperand = false;
      } else if (token.kind === 'name') {
        if (token.text === 'this') fail("'this' is not supported", token.start, token.text);
        expectOperand = false;
      } else if (token.kind === 'operator') {
        if (!UNARY_OPERATORS.includes(token.text)) {
          const hint = token.text === '+' ? " (there is no unary '+')" : '';
          fail(`Expected an operand but found ${showToken(token.text)}${hint}`, token.start, token.text);
        }
        unaryRun += 1;
        if (unaryRun > EXPRESSION_LIMITS.maxDepth) nestedTooDeep(token);
        tokens.push(token);
        continue;
      } else if (token.text === '(') {
        open.push({ token, kind: 'group' });
        if (open.length > EXPRESSION_LIMITS.maxDepth) nestedTooDeep(token);
      } else if (token.text === '[') {
        if (!isOperator(previous, 'in')) fail("A list [...] is only allowed after 'in'", token.start, token.text);
        open.push({ token, kind: 'list' });
        if (open.length > EXPRESSION_LIMITS.maxDepth) nestedTooDeep(token);
      } else if (token.text === ')' && isPunctuation(previous, '(') && open[open.length - 1]?.kind === 'call') {
        open.pop(); // f()
        expectOperand = false;
      } else if (token.text === ']' && isPunctuation(previous, '[')) {
        fail("The list after 'in' is empty: it needs at least one value", token.start, token.text);
      } else {
        const hint = token.text === '.' ? ' (a field is written like statistics.clicks)' : '';
        fail(`Expected an operand but found ${showToken(token.text)}${hint}`, token.start, token.text);
      }
      unaryRun = 0;
      tokens.push(token);
      continue;
    }

    // After an operand: an operator, a closing bracket, a comma, a '.' in a field path or the '(' of a call.
    if (token.kind === 'operator') {
      const precedence = BINARY_PRECEDENCE[token.text];
      if (precedence !== undefined && precedence > IN_PRECEDENCE && closedInList(previous)) {
        fail(
          `Unexpected ${showToken(token.text)} after the list of 'in': 'in' binds more loosely than + - * /`,
          token.start,
          token.text,
        );
      }
      if (precedence === undefined) {
        const next = text.slice(token.end).trimStart();
        const hint = token.text === 'not' && /^in\b/.test(next) ? ' (write not (x in [...]) or !(x in [...]))' : '';
        fail(`Unexpected ${showToken(token.text)}: expected an operator${hint}`, token.start, token.text);
      }
      expectOperand = true;
    } else if (token.kind !== 'punctuation') {
      fail(
        `Unexpected ${showToken(token.text)}: expected an operator or the end of the expression`,
        token.start,
        token.text,
      );
    } else if (token.text === '.') {
      const pathContinues =
        previous !== undefined &&
        previous.kind === 'name' &&
        previous.end === token.start &&
        index < text.length &&
        isNameStart(text.charCodeAt(index));
      if (!pathContinues) {
        fail(
          "Unexpected '.': a field is written like statistics.clicks (no spaces, no [...])",
          token.start,
          token.text,
        );
      }
      tokens.push(token);
      const segment = readName(text, index, true);
      index = segment.end;
      tokens.push(segment);
      continue;
    } else if (token.text === '(') {
      if (previous?.kind === 'name' && !previous.segment) {
        open.push({ token, kind: 'call' });
        if (open.length > EXPRESSION_LIMITS.maxDepth) nestedTooDeep(token);
        expectOperand = true;
      } else if (previous?.kind === 'name') {
        fail(
          "Unexpected '(': only plain function names like min(...) can be called, not fields",
          token.start,
          token.text,
        );
      } else {
        fail("Unexpected '(': expected an operator", token.start, token.text);
      }
    } else if (token.text === '[') {
      fail(
        "Unexpected '[': indexing like a[0] or a['x'] is not supported; a field is written like labels.name",
        token.start,
        token.text,
      );
    } else if (token.text === ')' || token.text === ']') {
      const top = open.pop();
      if (top !== undefined) closedBrackets.set(token, top);
      const wanted = top?.token.text === '[' ? ']' : ')';
      if (top === undefined) fail(`Unexpected ${showToken(token.text)}: nothing to close`, token.start, token.text);
      if (token.text !== wanted)
        fail(`Expected '${wanted}' but found ${showToken(token.text)}`, token.start, token.text);
    } else {
      // ','
      const top = open[open.length - 1];
      if (top === undefined) fail("Unexpected ',': a filter or formula is one expression", token.start, token.text);
      if (top.kind === 'group') fail("Unexpected ',' inside parentheses", token.start, token.text);
      expectOperand = true;
    }
    unaryRun = 0;
    tokens.push(token);
  }

  const last = tokens[tokens.length - 1];
  if (last === undefined) fail('The expression is empty', text.length, '');
  if (expectOperand) {
    const message = isOperator(last, 'in')
      ? "'in' must be followed by a list like [1, 2]"
      : `Unexpected end of the expression after ${showToken(last.text)}`;
    fail(message, text.length, '');
  }
  const unclosed = open[open.length - 1];
  if (unclosed !== undefined) {
    const closing = unclosed.token.text === '[' ? ']' : ')';
    fail(`Missing '${closing}' for the '${unclosed.token.text}' at position ${unclosed.token.start}`, text.length, '');
  }
  return tokens;
}
