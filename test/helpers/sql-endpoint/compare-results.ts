import type { TextColumn, TextResult } from './text-results.js';

/**
 * Two answers to one statement compared as the differential test of the SQL endpoint needs:
 * the same column names; the same rows, in order when the statement has a total ORDER BY, as
 * multisets otherwise; integers exactly, numeric and floating point values as decimals to 1e-9
 * relative; everything else (text, dates, booleans, timestamps) as the same text.
 */

const INTEGER_OIDS = new Set([20, 21, 23, 26]);
const DECIMAL_OIDS = new Set([700, 701, 1700]);
const isNumeric = (oid: number) => INTEGER_OIDS.has(oid) || DECIMAL_OIDS.has(oid);

export const RELATIVE_TOLERANCE = 1e-9;

type Kind = 'integer' | 'decimal' | 'text';

function kinds(a: readonly TextColumn[], b: readonly TextColumn[]): Kind[] {
  return a.map((column, i) => {
    const other = b[i]?.typeOid ?? 0;
    if (INTEGER_OIDS.has(column.typeOid) && INTEGER_OIDS.has(other)) return 'integer';
    if (isNumeric(column.typeOid) && isNumeric(other)) return 'decimal';
    return 'text';
  });
}

const SPECIAL = new Set(['NaN', 'Infinity', '-Infinity']);

/** Two decimals' texts equal to RELATIVE_TOLERANCE (exact for the special values). */
export function decimalsEqual(a: string, b: string): boolean {
  if (a === b) return true;
  if (SPECIAL.has(a) || SPECIAL.has(b)) return false;
  const x = Number(a);
  const y = Number(b);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  if (x === y) return true;
  return Math.abs(x - y) <= RELATIVE_TOLERANCE * Math.max(Math.abs(x), Math.abs(y));
}

/** Integers' texts equal as integers ("007" is 7; no tolerance). */
function integersEqual(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return BigInt(a) === BigInt(b);
  } catch {
    return false;
  }
}

function cellEqual(kind: Kind, a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  if (kind === 'integer') return integersEqual(a, b);
  if (kind === 'decimal') return decimalsEqual(a, b);
  return a === b;
}

function cellOrder(kind: Kind, a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  if (kind !== 'text') {
    const x = Number(a);
    const y = Number(b);
    if (x !== y && !Number.isNaN(x) && !Number.isNaN(y)) return x < y ? -1 : 1;
    if (x === y) return 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface Comparison {
  readonly equal: boolean;
  /** What differs, for a failure's message (first differences only). */
  readonly differences: readonly string[];
  /** Columns whose type OIDs differ (endpoint vs PostgreSQL), named. */
  readonly typeDifferences: readonly string[];
}

const show = (row: readonly (string | null)[] | undefined) =>
  row === undefined
    ? '(none)'
    : JSON.stringify(row.map((v) => (v !== null && v.length > 60 ? `${v.slice(0, 60)}…` : v)));

/**
 * @param actual the endpoint's answer
 * @param expected PostgreSQL's answer to the same statement
 * @param ordered whether the statement's ORDER BY is total (then the order counts)
 */
export function compareResults(actual: TextResult, expected: TextResult, ordered: boolean): Comparison {
  const differences: string[] = [];
  const actualNames = actual.columns.map((c) => c.name);
  const expectedNames = expected.columns.map((c) => c.name);
  if (JSON.stringify(actualNames) !== JSON.stringify(expectedNames))
    differences.push(`columns ${JSON.stringify(actualNames)}, PostgreSQL ${JSON.stringify(expectedNames)}`);
  const typeDifferences = actual.columns.flatMap((c, i) =>
    expected.columns[i] && expected.columns[i]!.typeOid !== c.typeOid
      ? [`${c.name}: oid ${c.typeOid}, PostgreSQL ${expected.columns[i]!.typeOid}`]
      : [],
  );
  if (actual.columns.length !== expected.columns.length) return { equal: false, differences, typeDifferences };
  if (actual.rows.length !== expected.rows.length)
    differences.push(`${actual.rows.length} rows, PostgreSQL ${expected.rows.length}`);
  const k = kinds(actual.columns, expected.columns);
  const byCells = (a: readonly (string | null)[], b: readonly (string | null)[]) => {
    for (let i = 0; i < k.length; i++) {
      const order = cellOrder(k[i]!, a[i]!, b[i]!);
      if (order !== 0) return order;
    }
    return 0;
  };
  const left = ordered ? actual.rows : [...actual.rows].sort(byCells);
  const right = ordered ? expected.rows : [...expected.rows].sort(byCells);
  const count = Math.max(left.length, right.length);
  for (let r = 0; r < count && differences.length < 8; r++) {
    const a = left[r];
    const b = right[r];
    if (a && b && k.every((kind, i) => cellEqual(kind, a[i]!, b[i]!))) continue;
    differences.push(`${ordered ? 'row' : 'sorted row'} ${r}: endpoint ${show(a)}, PostgreSQL ${show(b)}`);
  }
  return { equal: differences.length === 0, differences, typeDifferences };
}
