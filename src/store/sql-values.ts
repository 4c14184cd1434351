import { LIST, listValue, VARCHAR, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

/** Values our store functions bind: plain JS values, converted once here for DuckDB. */
export type SqlValue = string | number | bigint | boolean | null | Date | readonly string[];
export type SqlParams = readonly SqlValue[];
export type Row = Record<string, unknown>;

export function toDuckDBValues(params: SqlParams): DuckDBValue[] {
  return params.map((value): DuckDBValue => {
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return listValue([...value]);
    return value as DuckDBValue;
  });
}

/**
 * Arrays are always string lists; an empty one carries no element type, so it is given. The
 * bindings infer the type of an entry left undefined, which their declared type does not say.
 */
export function toDuckDBTypes(params: SqlParams): DuckDBType[] {
  return params.map((value) => (Array.isArray(value) ? LIST(VARCHAR) : undefined)) as DuckDBType[];
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
