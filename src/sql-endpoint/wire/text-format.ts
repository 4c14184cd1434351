import type { SqlValue } from './session.js';
import { formatTimestamp, formatDate } from './datetime.js';
import { formatFloat4, formatFloat8 } from './float-text.js';
import { formatNumeric } from './numeric.js';
import { PgType, typeName } from './pg-types.js';
import { asBoolean, asDate, asFloat, asInteger, asNumeric, asText, asTimestamp } from './values.js';

/** The inclusive range of each integer type: text has no width to overflow, so it is checked here as binary's is. */
const INTEGER_RANGES: Readonly<Record<number, readonly [bigint, bigint]>> = {
  [PgType.int2]: [-0x8000n, 0x7fffn],
  [PgType.int4]: [-0x80000000n, 0x7fffffffn],
  [PgType.int8]: [-0x8000000000000000n, 0x7fffffffffffffffn],
  [PgType.oid]: [0n, 0xffffffffn],
};

/** A result value in the text format, as PostgreSQL 15 prints it under DateStyle ISO, TimeZone UTC. */
export function encodeText(typeOid: number, value: SqlValue): string {
  switch (typeOid) {
    case PgType.bool:
      return asBoolean(value) ? 't' : 'f';
    case PgType.int2:
    case PgType.int4:
    case PgType.int8:
    case PgType.oid:
      return String(integerInRange(typeOid, value));
    case PgType.float4:
      return formatFloat4(asFloat(value));
    case PgType.float8:
      return formatFloat8(asFloat(value));
    case PgType.numeric:
      return formatNumeric(asNumeric(value));
    case PgType.date:
      return formatDate(asDate(value));
    case PgType.timestamp:
      return formatTimestamp(asTimestamp(value, false), false);
    case PgType.timestamptz:
      return formatTimestamp(asTimestamp(value, true), true);
    default:
      // text, varchar, bpchar, name, json, unknown, and types the wire layer has no codec of: the session's text.
      return asText(value);
  }
}

export function integerInRange(typeOid: number, value: SqlValue): bigint {
  const integer = asInteger(value, typeName(typeOid));
  const [min, max] = INTEGER_RANGES[typeOid]!;
  if (integer < min || integer > max)
    throw new RangeError(`a session value is out of range for its column: ${integer}`);
  return integer;
}
