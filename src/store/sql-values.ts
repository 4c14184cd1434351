import { DOUBLE, LIST, listValue, VARCHAR, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

/**
 * A number bound as DOUBLE whatever its value. The bindings infer the type of a plain number
 * from the value: an integral one becomes INTEGER or BIGINT, so 1e20 failed to bind (beyond
 * int64) although the column is a DOUBLE. Say it for every value meant for a DOUBLE column.
 */
export class SqlDouble {
  constructor(readonly value: number) {}
}

/** A DOUBLE parameter, or NULL. */
export function sqlDouble(value: number | null): SqlDouble | null {
  return value === null ? null : new SqlDouble(value);
}

/** Values our store functions bind: plain JS values, converted once here for DuckDB. */
export type SqlValue = string | number | bigint | boolean | null | Date | readonly string[] | SqlDouble;
export type SqlParams = readonly SqlValue[];
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
