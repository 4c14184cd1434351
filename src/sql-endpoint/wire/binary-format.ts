import type { SqlParam, SqlValue } from './session.js';
import { isoDate, isoTimestamp } from './datetime.js';
import { decodeNumericBinary, encodeNumericBinary, formatNumeric } from './numeric.js';
import { PgType } from './pg-types.js';
import { integerInRange } from './text-format.js';
import { asBoolean, asDate, asFloat, asNumeric, asText, asTimestamp } from './values.js';

/**
 * The binary format (each type's typsend/typrecv in PostgreSQL 15) of the types in pg-types.ts.
 * Text-like types (and json, whose binary form is its text) are their UTF-8 bytes.
 */

const TEXT_LIKE: ReadonlySet<number> = new Set([
  PgType.text,
  PgType.varchar,
  PgType.bpchar,
  PgType.name,
  PgType.json,
  PgType.unknown,
]);

const BINARY_TYPES: ReadonlySet<number> = new Set([
  ...TEXT_LIKE,
  PgType.bool,
  PgType.int2,
  PgType.int4,
  PgType.int8,
  PgType.oid,
  PgType.float4,
  PgType.float8,
  PgType.numeric,
  PgType.date,
  PgType.timestamp,
  PgType.timestamptz,
]);

/** Whether a column or parameter of this type may travel in binary (PostgreSQL's typsend/typreceive exist). */
export function hasBinaryFormat(typeOid: number): boolean {
  return BINARY_TYPES.has(typeOid);
}

export function encodeBinary(typeOid: number, value: SqlValue): Buffer {
  switch (typeOid) {
    case PgType.bool:
      return Buffer.from([asBoolean(value) ? 1 : 0]);
    case PgType.int2: {
      const out = Buffer.alloc(2);
      out.writeInt16BE(Number(integerInRange(typeOid, value)));
      return out;
    }
    case PgType.int4: {
      const out = Buffer.alloc(4);
      out.writeInt32BE(Number(integerInRange(typeOid, value)));
      return out;
    }
    case PgType.oid: {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(Number(integerInRange(typeOid, value)));
      return out;
    }
    case PgType.int8: {
      const out = Buffer.alloc(8);
      out.writeBigInt64BE(integerInRange(typeOid, value));
      return out;
    }
    case PgType.float4: {
      const out = Buffer.alloc(4);
      out.writeFloatBE(asFloat(value));
      return out;
    }
    case PgType.float8: {
      const out = Buffer.alloc(8);
      out.writeDoubleBE(asFloat(value));
      return out;
    }
    case PgType.numeric:
      return encodeNumericBinary(asNumeric(value));
    case PgType.date: {
      const out = Buffer.alloc(4);
      out.writeInt32BE(asDate(value));
      return out;
    }
    case PgType.timestamp:
    case PgType.timestamptz: {
      const out = Buffer.alloc(8);
      out.writeBigInt64BE(asTimestamp(value, typeOid === PgType.timestamptz));
      return out;
    }
    default:
      if (TEXT_LIKE.has(typeOid)) return Buffer.from(asText(value), 'utf8');
      throw new TypeError(`no binary format for type ${typeOid}`);
  }
}

/**
 * A binary parameter as the session takes it: integers as numbers (int8 as bigint), numeric as its
 * exact decimal text, dates and timestamps as ISO 8601 text. Throws RangeError on malformed bytes.
 */
export function decodeBinary(typeOid: number, bytes: Buffer): SqlParam {
  switch (typeOid) {
    case PgType.bool:
      expectLength(bytes, 1);
      if (bytes[0]! > 1) throw new RangeError('bool: not 0 or 1');
      return bytes[0] === 1;
    case PgType.int2:
      return expectLength(bytes, 2).readInt16BE(0);
    case PgType.int4:
      return expectLength(bytes, 4).readInt32BE(0);
    case PgType.oid:
      return expectLength(bytes, 4).readUInt32BE(0);
    case PgType.int8:
      return expectLength(bytes, 8).readBigInt64BE(0);
    case PgType.float4:
      return expectLength(bytes, 4).readFloatBE(0);
    case PgType.float8:
      return expectLength(bytes, 8).readDoubleBE(0);
    case PgType.numeric:
      return formatNumeric(decodeNumericBinary(bytes));
    case PgType.date:
      return isoDate(expectLength(bytes, 4).readInt32BE(0));
    case PgType.timestamp:
    case PgType.timestamptz:
      return isoTimestamp(expectLength(bytes, 8).readBigInt64BE(0), typeOid === PgType.timestamptz);
    default:
      if (TEXT_LIKE.has(typeOid)) return utf8(bytes);
      throw new TypeError(`no binary format for type ${typeOid}`);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 or an error: PostgreSQL refuses invalid byte sequences rather than store replacement characters. */
export function utf8(bytes: Buffer): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new RangeError('invalid byte sequence for encoding "UTF8"');
  }
}

function expectLength(bytes: Buffer, length: number): Buffer {
  if (bytes.length !== length) throw new RangeError(`expected ${length} bytes, got ${bytes.length}`);
  return bytes;
}
