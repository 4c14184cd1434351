/**
 * Row comparison of the DuckDB and ClickHouse answers of one statement (issue 22 item 5): same
 * columns, same rows in the same order; integers exact, other numbers within 1e-9 relative; JSON
 * texts (a JSON page's parts, NDJSON lines, embedded JSON columns) parsed first; the estimated
 * currencies as sets (both engines list them unordered, the service dedupes them).
 */

/** Columns whose text is a comma-joined list in no particular order. */
const SET_COLUMNS = new Set(['est_currencies', '__est_currencies']);
/** Columns whose text is JSON. */
const JSON_COLUMNS = new Set(['line', 'images', 'labels', 'specificFields']);

const RELATIVE = 1e-9;

/** A value as both engines' rows are compared: numbers as numbers, bytes and JSON text parsed. */
export function normalized(column: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) value = Buffer.from(value).toString('utf8');
  if (column === 'part' && typeof value === 'string') return JSON.parse(`[${value.replace(/^,/, '')}]`) as unknown;
  if (JSON_COLUMNS.has(column) && typeof value === 'string') return JSON.parse(value) as unknown;
  if (SET_COLUMNS.has(column) && typeof value === 'string') return [...new Set(value.split(','))].sort().join(',');
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/** The first difference between two normalized values, or undefined (path: where in the value). */
export function difference(a: unknown, b: unknown, path: string): string | undefined {
  if (typeof a === 'number' && typeof b === 'number') {
    // Counts below 10^9 (all of the generated data's) differ by at least 1, past the tolerance.
    if (Math.abs(a - b) <= RELATIVE * Math.max(Math.abs(a), Math.abs(b))) return undefined;
    return `${path}: ${a} != ${b}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: ${a.length} items != ${b.length} items`;
    for (let i = 0; i < a.length; i++) {
      const d = difference(a[i], b[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const d = difference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return a === b ? undefined : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
}

/** The first difference between two engines' rows of one statement (columns: its output columns, or every column). */
export function rowsDifference(
  columns: readonly string[],
  duck: ReadonlyArray<Record<string, unknown>>,
  click: ReadonlyArray<Record<string, unknown>>,
): string | undefined {
  if (duck.length !== click.length) return `${duck.length} rows in DuckDB, ${click.length} in ClickHouse`;
  const names = columns.length > 0 ? columns : Object.keys(duck[0] ?? {});
  for (let i = 0; i < duck.length; i++) {
    const extra = Object.keys(click[i]!).filter((k) => !names.includes(k));
    if (columns.length > 0 && extra.length > 0) return `row ${i}: ClickHouse has columns ${extra.join(', ')}`;
    for (const name of names) {
      if (!(name in click[i]!)) return `row ${i}: no column ${name} in ClickHouse`;
      if (name === 'bytes') {
        // Each engine writes numbers its own way (0.5250796080832821 or ...822, the same double):
        // each part's byte count is its own text's.
        for (const [engine, row] of [
          ['DuckDB', duck[i]!],
          ['ClickHouse', click[i]!],
        ] as const) {
          const part = row.part instanceof Uint8Array ? row.part : Buffer.from(String(row.part), 'utf8');
          if (Number(row.bytes) !== part.length)
            return `row ${i}: ${engine}'s bytes ${String(row.bytes)} != ${part.length}`;
        }
        continue;
      }
      const d = difference(normalized(name, duck[i]![name]), normalized(name, click[i]![name]), `row ${i} ${name}`);
      if (d !== undefined) return d;
    }
  }
  return undefined;
}
