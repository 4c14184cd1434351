import type { SqlColumn, SqlValue } from './wire/session.js';

/**
 * DuckDB's result types as PostgreSQL types (OID and type modifier), and each value as the wire
 * layer takes it. What has no PostgreSQL counterpart here (lists, structs, intervals, enums) is
 * text.
 */

const OID = {
  bool: 16,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  float4: 700,
  float8: 701,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
} as const;

export function columnOf(name: string, duckdbType: string): SqlColumn {
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(duckdbType);
  if (decimal)
    return { name, typeOid: OID.numeric, typeModifier: ((Number(decimal[1]) << 16) | Number(decimal[2])) + 4 };
  return { name, typeOid: SIMPLE[duckdbType] ?? OID.text, typeModifier: -1 };
}

const SIMPLE: Record<string, number> = {
  BOOLEAN: OID.bool,
  TINYINT: OID.int2,
  SMALLINT: OID.int2,
  UTINYINT: OID.int2,
  INTEGER: OID.int4,
  USMALLINT: OID.int4,
  BIGINT: OID.int8,
  UINTEGER: OID.int8,
  UBIGINT: OID.numeric,
  HUGEINT: OID.numeric,
  UHUGEINT: OID.numeric,
  FLOAT: OID.float4,
  DOUBLE: OID.float8,
  VARCHAR: OID.text,
  DATE: OID.date,
  TIMESTAMP: OID.timestamp,
  'TIMESTAMP WITH TIME ZONE': OID.timestamptz,
};

/** A value of a row in the wire layer's terms (exact text for numerics, dates and timestamps). */
export function valueOf(value: unknown, column: SqlColumn): SqlValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'number')
    return column.typeOid === OID.text ? String(value) : value;
  if (typeof value === 'bigint')
    return column.typeOid === OID.text || column.typeOid === OID.numeric ? value.toString() : value;
  const text = String(value);
  // DuckDB writes a zone-aware timestamp with +00; PostgreSQL's text form is the same.
  return text;
}

/** PostgreSQL OIDs of parameter types, as DuckDB inferred them (text where it could not). */
export function parameterOid(duckdbType: string): number {
  if (/^DECIMAL/.test(duckdbType)) return OID.numeric;
  return SIMPLE[duckdbType] ?? OID.text;
}

/** DuckDB's cast target for a parameter the client declared with a type OID (0: not declared). */
export function castForOid(oid: number): string | undefined {
  return OID_CASTS[oid];
}

const OID_CASTS: Record<number, string> = {
  [OID.bool]: 'BOOLEAN',
  [OID.int2]: 'SMALLINT',
  [OID.int4]: 'INTEGER',
  [OID.int8]: 'BIGINT',
  [OID.float4]: 'REAL',
  [OID.float8]: 'DOUBLE',
  [OID.numeric]: 'DECIMAL(38,10)',
  [OID.text]: 'VARCHAR',
  1043: 'VARCHAR',
  [OID.date]: 'DATE',
  [OID.timestamp]: 'TIMESTAMP',
  [OID.timestamptz]: 'TIMESTAMPTZ',
};

export { OID as PG_TYPE_OIDS };
