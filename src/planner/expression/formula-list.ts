/**
 * The `formulas` query parameter (supplement 5): each value holds one or more
 * `name:expression:Type` entries separated by commas outside parentheses, brackets and quotes;
 * the parameter may repeat. The name is the text before the first ':', the type the text after
 * the last ':' (both outside brackets and quotes), the expression what lies between.
 * Names are checked against the label-name pattern here; types, the formula count and the
 * expressions themselves are the planner's (parseExpression) business.
 */
import { ExpressionError, type FormulaText } from './expression-types.js';

const FORMULA_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}

/** [start, end) of value.slice(start, end) without surrounding whitespace. */
function trimmed(value: string, start: number, end: number): { start: number; end: number; text: string } {
  let s = start;
  let e = end;
  while (s < e && isSpace(value[s])) s++;
  while (e > s && isSpace(value[e - 1])) e--;
  return { start: s, end: e, text: value.slice(s, e) };
}

function shown(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

interface Entry {
  readonly start: number;
  readonly end: number;
  /** Colons outside brackets and quotes. */
  readonly colons: readonly number[];
}

/** Cuts one parameter value at its top-level commas. */
function entriesOf(value: string, where: string): Entry[] {
  const entries: Entry[] = [];
  const open: number[] = [];
  let colons: number[] = [];
  let start = 0;
  let quote: { char: string; position: number } | undefined;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote.char) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = { char: ch, position: i };
    else if (ch === '(' || ch === '[') open.push(i);
    else if (ch === ')' || ch === ']')
      open.pop(); // a stray closer is the expression parser's to report
    else if (open.length === 0 && ch === ':') colons.push(i);
    else if (open.length === 0 && ch === ',') {
      entries.push({ start, end: i, colons });
      colons = [];
      start = i + 1;
    }
  }
  if (quote !== undefined) {
    throw new ExpressionError(
      `Unterminated string in a formula${where}: the quote is never closed`,
      quote.position,
      quote.char,
    );
  }
  const unclosed = open[open.length - 1];
  if (unclosed !== undefined) {
    const closing = value[unclosed] === '[' ? ']' : ')';
    throw new ExpressionError(
      `Missing '${closing}' for the '${value[unclosed]}' at position ${unclosed} in a formula${where}`,
      value.length,
      '',
    );
  }
  entries.push({ start, end: value.length, colons });
  return entries;
}

function formulaOf(value: string, entry: Entry, valueIndex: number, where: string): FormulaText {
  const whole = trimmed(value, entry.start, entry.end);
  if (whole.text === '') {
    throw new ExpressionError(
      `Empty formula${where}: write name:expression:Type`,
      whole.start,
      value[whole.start] ?? '',
    );
  }
  const first = entry.colons[0];
  const last = entry.colons[entry.colons.length - 1];
  if (first === undefined || last === undefined || first === last) {
    throw new ExpressionError(
      `The formula '${shown(whole.text)}'${where} is not written name:expression:Type`,
      whole.start,
      whole.text,
    );
  }
  const name = trimmed(value, entry.start, first);
  if (name.text === '') throw new ExpressionError(`A formula${where} has no name before ':'`, first, ':');
  if (!FORMULA_NAME.test(name.text)) {
    throw new ExpressionError(
      `The formula name '${shown(name.text)}'${where} must start with a letter and hold at most 64 letters, digits and _`,
      name.start,
      name.text,
    );
  }
  const expression = trimmed(value, first + 1, last);
  if (expression.text === '')
    throw new ExpressionError(`The formula ${name.text}${where} has no expression`, last, ':');
  const type = trimmed(value, last + 1, entry.end);
  if (type.text === '') {
    throw new ExpressionError(
      `The formula ${name.text}${where} has no type after the last ':'`,
      type.start,
      value[type.start] ?? '',
    );
  }
  return { name: name.text, expression: expression.text, type: type.text, offset: expression.start, valueIndex };
}

/**
 * Splits the values of the `formulas` parameter into entries. Throws ExpressionError with the
 * position (0-based UTF-16 offset in the value it concerns) and the token for malformed entries.
 */
export function splitFormulas(values: readonly string[]): FormulaText[] {
  const formulas: FormulaText[] = [];
  values.forEach((value, valueIndex) => {
    const where = values.length > 1 ? ` (formulas value ${valueIndex + 1})` : '';
    for (const entry of entriesOf(value, where)) formulas.push(formulaOf(value, entry, valueIndex, where));
  });
  return formulas;
}
