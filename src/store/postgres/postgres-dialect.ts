import type { StoreDialect } from '../store-dialect.js';

export const POSTGRES_DIALECT: StoreDialect = {
  engine: 'postgres',
  rendersRowJson: false,
  servesReports: false,
};

/**
 * The service's own statements are written in the SQL DuckDB and PostgreSQL share; these are the
 * few DuckDB spellings they still use, each with its PostgreSQL equivalent. A closed list, each
 * rewrite tested (test/unit/postgres-dialect.test.ts): a construct missing here fails loudly in
 * PostgreSQL ("function ... does not exist"), in the store suite, never silently.
 */
const FUNCTION_REWRITES: ReadonlyArray<readonly [name: string, rewrite: (args: string[]) => string]> = [
  ['strftime', ([value, format]) => `to_char(${timestampOf(value!, format!)}, ${postgresFormat(format!)})`],
  ['list_contains', ([list, item]) => `(${item} = ANY(${list}))`],
  ['string_split', ([text, separator]) => `string_to_array(${text}, ${separator})::VARCHAR[]`],
  ['epoch_ms', ([value]) => `(extract(epoch from ${value}) * 1000)::BIGINT`],
  ['list', ([value]) => `array_agg(${value})`],
  ['to_days', ([days]) => `make_interval(days => ${days})`],
  ['contains', ([text, part]) => `(strpos(${text}, ${part}) > 0)`],
  ['ends_with', ([text, end]) => `(right(${text}, length(${end})) = ${end})`],
];

const TYPE_REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bDOUBLE\b(?!\s+PRECISION)/g, 'DOUBLE PRECISION'],
  [/\bBLOB\b/g, 'BYTEA'],
  [/\bTINYINT\b/g, 'SMALLINT'],
  [/\bUBIGINT\b/g, 'BIGINT'],
  [/\bBEGIN TRANSACTION\b/g, 'BEGIN'],
  // No CREATE OR REPLACE for tables; a parameterless statement may be two.
  [/\bCREATE OR REPLACE TEMP TABLE (\w+)/g, 'DROP TABLE IF EXISTS pg_temp.$1; CREATE TEMP TABLE $1'],
  [/\bDROP TABLE IF EXISTS temp\./g, 'DROP TABLE IF EXISTS pg_temp.'],
  // DuckDB's empty list literal; PostgreSQL's needs the type, which every use here casts to.
  [/(?<![\w\]])\[\]::/g, 'ARRAY[]::'],
  // An empty list without a cast takes its type from where it goes (coalesce with a typed list).
  [/(?<![\w\]'])\[\](?!::)/g, "'{}'"],
];

const cache = new Map<string, string>();

/** The PostgreSQL text of a statement written for DuckDB; cached, since statements repeat. */
export function toPostgresSql(sql: string): string {
  let out = cache.get(sql);
  if (out === undefined) {
    out = aliasSubqueries(rewriteFunctions(sql));
    for (const [pattern, replacement] of TYPE_REWRITES) out = out.replace(pattern, replacement);
    if (cache.size > 4096) cache.clear();
    cache.set(sql, out);
  }
  return out;
}

/** DuckDB's strftime of a TIMESTAMPTZ writes UTC (the session's time zone); PostgreSQL's to_char the session's: say UTC. */
function timestampOf(value: string, format: string): string {
  return /%H|%M|%S/.test(format) ? `(${value}) AT TIME ZONE 'UTC'` : value;
}

const FORMAT_PARTS: ReadonlyArray<readonly [string, string]> = [
  ['%Y', 'YYYY'],
  ['%m', 'MM'],
  ['%d', 'DD'],
  ['%H', 'HH24'],
  ['%M', 'MI'],
  ['%S', 'SS'],
  ['%g', 'MS'],
];

function postgresFormat(literal: string): string {
  const text = /^'(.*)'$/s.exec(literal.trim())?.[1];
  if (text === undefined) throw new Error(`strftime format must be a literal: ${literal}`);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const part = FORMAT_PARTS.find(([duck]) => text.startsWith(duck, i));
    if (part) {
      out += part[1];
      i++;
    } else if (/[A-Za-z]/.test(text[i]!)) out += `"${text[i]}"`;
    else out += text[i];
  }
  return `'${out}'`;
}

/** Rewrites calls of FUNCTION_REWRITES, innermost first, leaving string literals alone. */
function rewriteFunctions(sql: string): string {
  for (const [name, rewrite] of FUNCTION_REWRITES) {
    const pattern = new RegExp(`(?<![\\w.])${name}\\s*\\(`, 'gi');
    let match: RegExpExecArray | null;
    let searchFrom = 0;
    while ((match = pattern.exec(sql)) !== null) {
      if (insideLiteral(sql, match.index)) {
        pattern.lastIndex = match.index + 1;
        continue;
      }
      const open = match.index + match[0].length - 1;
      const close = closingParen(sql, open);
      const args = splitArguments(rewriteFunctions(sql.slice(open + 1, close)));
      const replacement = rewrite(args);
      sql = sql.slice(0, match.index) + replacement + sql.slice(close + 1);
      searchFrom = match.index + replacement.length;
      pattern.lastIndex = searchFrom;
    }
  }
  return sql;
}

function insideLiteral(sql: string, index: number): boolean {
  let quotes = 0;
  for (let i = 0; i < index; i++) if (sql[i] === "'") quotes++;
  return quotes % 2 === 1;
}

function closingParen(sql: string, open: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced parentheses in: ${sql.slice(open, open + 80)}`);
}

/** Top-level comma-separated arguments; a list(... ORDER BY ...) keeps its ORDER BY with its argument. */
function splitArguments(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

/** DuckDB lets a subquery in FROM go without a name; PostgreSQL 15 requires one. */
function aliasSubqueries(sql: string): string {
  const pattern = /\b(FROM|JOIN)\s*\(\s*SELECT\b/gi;
  let match: RegExpExecArray | null;
  let n = 0;
  while ((match = pattern.exec(sql)) !== null) {
    if (insideLiteral(sql, match.index)) continue;
    const open = sql.indexOf('(', match.index);
    const close = closingParen(sql, open);
    const after = sql.slice(close + 1);
    if (
      /^\s*(WHERE|GROUP|ORDER|LIMIT|OFFSET|UNION|JOIN|LEFT|INNER|CROSS|ON|\)|,|;|$)/i.test(after) ||
      after.trim() === ''
    ) {
      sql = `${sql.slice(0, close + 1)} AS unnamed_${++n}${after}`;
    }
    pattern.lastIndex = open + 1;
  }
  return sql;
}
