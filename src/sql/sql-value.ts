/**
 * The values a compiled query binds, as plain JS values. Owned by sql (the compiler emits them),
 * converted for DuckDB by the store (store/sql-values.ts), which imports them from here.
 */

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

/** Values a query binds: plain JS values, converted once for DuckDB by the store. */
export type SqlValue = string | number | bigint | boolean | null | Date | readonly string[] | SqlDouble;
export type SqlParams = readonly SqlValue[];
