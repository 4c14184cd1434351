/**
 * The PostgreSQL types the endpoint speaks, by OID (pg_type.dat of PostgreSQL 15): the one list the
 * wire codecs and the rest of src/sql-endpoint (which names a column's type) share.
 */
export const PgType = {
  bool: 16,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  float4: 700,
  float8: 701,
  unknown: 705,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
} as const;

export type PgTypeName = keyof typeof PgType;

/** pg_type.typlen: RowDescription carries it, and some drivers (psqlODBC) size their buffers by it; -1 is variable. */
const TYPE_LENGTHS: Readonly<Record<number, number>> = {
  [PgType.bool]: 1,
  [PgType.name]: 64,
  [PgType.int8]: 8,
  [PgType.int2]: 2,
  [PgType.int4]: 4,
  [PgType.oid]: 4,
  [PgType.float4]: 4,
  [PgType.float8]: 8,
  [PgType.unknown]: -2,
  [PgType.date]: 4,
  [PgType.timestamp]: 8,
  [PgType.timestamptz]: 8,
};

export function typeLength(typeOid: number): number {
  return TYPE_LENGTHS[typeOid] ?? -1;
}

const NAMES: ReadonlyMap<number, PgTypeName> = new Map(
  Object.entries(PgType).map(([name, oid]) => [oid, name as PgTypeName]),
);

/** The type's name for messages ("no binary output function available for type numeric"), or its OID. */
export function typeName(typeOid: number): string {
  return NAMES.get(typeOid) ?? String(typeOid);
}

export function isKnownType(typeOid: number): boolean {
  return NAMES.has(typeOid);
}
