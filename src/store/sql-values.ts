import { DOUBLE, LIST, listValue, VARCHAR, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

// The values themselves are the compiler's vocabulary (sql/sql-value.ts); the store binds them.
import { SqlDouble, type SqlParams } from '../sql/sql-value.js';

export { SqlDouble, sqlDouble, type SqlParams, type SqlValue } from '../sql/sql-value.js';
export type Row = Record<string, unknown>;

export function toDuckDBValues(params: SqlParams): DuckDBValue[] {
  return params.map((value): DuckDBValue => {
    if (value instanceof Date) return value.toISOString();
    if (value instanceof SqlDouble) return value.value;
    if (Array.isArray(value)) return listValue([...value]);
    return value as DuckDBValue;
  });
}

/**
 * Arrays are always string lists; an empty one carries no element type, so it is given. The
 * bindings infer the type of an entry left undefined, which their declared type does not say.
 * A plain number that is integral but not a safe integer is a double in JS already (it may be
 * far beyond int64, e.g. a filter literal 1e20): it is bound as one, never as BIGINT.
 */
export function toDuckDBTypes(params: SqlParams): DuckDBType[] {
  return params.map((value) => {
    if (Array.isArray(value)) return LIST(VARCHAR);
    if (value instanceof SqlDouble) return DOUBLE;
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) return DOUBLE;
    return undefined;
  }) as DuckDBType[];
}

/** BIGINT ids come back as bigint; JSON numbers are safe up to 2^53, which ids never reach. */
export function fromDuckDBRow(row: Record<string, unknown>): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) out[key] = fromDuckDBValue(value);
  return out;
}

/** One value from DuckDB's JS conversion, as our rows carry it. */
export function fromDuckDBValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) return value.map(fromDuckDBValue);
  return value;
}
