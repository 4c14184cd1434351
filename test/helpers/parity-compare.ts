import { parse } from 'csv-parse/sync';

/**
 * The comparer of the engine-parity suite (issue 22 item 5): two answers to one request are equal
 * when their status, X-TotalCount, content headers and bodies are; bodies compare as parsed values
 * (JSON, CSV cells, NDJSON lines, Parquet rows) with integers exact and every other number within
 * 1e-9 relative. The error envelope's requestId is the only field allowed to differ.
 */
const RELATIVE = 1e-9;

/** Relaxations for a known difference (KnownDifference in parity-suite.ts). */
export interface CompareOptions {
  /** Numbers with at most 6 decimals may differ by one millionth (money rounded to micros). */
  readonly oneMicro?: boolean;
  /** Objects at paths ending so compare as sets of keys (JSON maps whose key order differs). */
  readonly unorderedKeysAt?: RegExp;
}

const isMicros = (x: number) => Math.abs(x * 1e6 - Math.round(x * 1e6)) < 1e-3;

/** The first difference between two parsed values, or undefined. */
export function firstDifference(a: unknown, b: unknown, path = '$', options: CompareOptions = {}): string | undefined {
  if (typeof a === 'bigint') a = Number(a);
  if (typeof b === 'bigint') b = Number(b);
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b)) return a === b ? undefined : `${path}: ${a} != ${b}`;
    if (Number.isNaN(a) || Number.isNaN(b))
      return Number.isNaN(a) && Number.isNaN(b) ? undefined : `${path}: ${a} != ${b}`;
    if (Math.abs(a - b) <= RELATIVE * Math.max(Math.abs(a), Math.abs(b))) return undefined;
    if (options.oneMicro && isMicros(a) && isMicros(b) && Math.abs(a - b) <= 1.000001e-6) return undefined;
    return `${path}: ${a} != ${b}`;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
    if (a.length !== b.length) return `${path}: ${a.length} items != ${b.length} items`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`, options);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime() ? undefined : `${path}: dates differ`;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const unordered = options.unorderedKeysAt?.test(path) === true;
    const ka = unordered ? Object.keys(a).sort() : Object.keys(a);
    const kb = unordered ? Object.keys(b).sort() : Object.keys(b);
    if (ka.join('\u0000') !== kb.join('\u0000')) return `${path}: keys ${ka.join(',')} != ${kb.join(',')}`;
    for (const key of ka) {
      if (path === '$.error' && key === 'requestId') continue;
      const d = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${path}.${key}`,
        options,
      );
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return a === b ? undefined : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
}

const NUMERIC = /^-?(\d+)(\.\d+)?([eE][-+]?\d+)?$/;

/** CSV rows with number-looking cells as numbers (each engine may spell a double its own way). */
export function parseCsv(text: string): unknown[][] {
  const rows = parse(text, { relax_column_count: true }) as string[][];
  return rows.map((row) => row.map((cell) => (NUMERIC.test(cell) && !/^0\d/.test(cell) ? Number(cell) : cell)));
}

export function parseNdjson(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** The headers both engines must send alike. */
export const COMPARED_HEADERS = [
  'x-totalcount',
  'content-type',
  'content-disposition',
  'adreport-warnings',
  'x-start-date',
  'x-end-date',
] as const;
