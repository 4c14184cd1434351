import type { SqlValue } from './session.js';
import { parseDate, parseTimestamp } from './datetime.js';
import { parseNumeric, type NumericValue } from './numeric.js';

/**
 * A session value read as the value of its column's type, for both output formats, so the text and
 * the binary forms of a row always agree. A value that does not fit its column is a bug of the
 * session (a TypeError here, XX000 to the client), never a silently different answer.
 */

export function asBoolean(value: SqlValue): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 't' || value === 'true') return true;
  if (value === 'f' || value === 'false') return false;
  throw unfit(value, 'bool');
}

/** An integer column's value; bigint beyond 2^53. */
export function asInteger(value: SqlValue, typeName: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return BigInt(value.trim());
  throw unfit(value, typeName);
}

export function asFloat(value: SqlValue): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    const special = /^\s*([+-]?)(nan|inf|infinity)\s*$/i.exec(value);
    if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
    if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  }
  throw unfit(value, 'float');
}

export function asNumeric(value: SqlValue): NumericValue {
  if (typeof value === 'bigint') return parseNumeric(String(value))!;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return { kind: 'NaN' };
    if (!Number.isFinite(value)) return { kind: value > 0 ? 'Infinity' : '-Infinity' };
    return parseNumeric(String(value))!;
  }
  const parsed = typeof value === 'string' ? parseNumeric(value) : undefined;
  if (parsed === undefined) throw unfit(value, 'numeric');
  return parsed;
}

export function asDate(value: SqlValue): number {
  const days = typeof value === 'string' ? parseDate(value) : undefined;
  if (days === undefined) throw unfit(value, 'date');
  return days;
}

export function asTimestamp(value: SqlValue, withZone: boolean): bigint {
  const micros = typeof value === 'string' ? parseTimestamp(value, withZone) : undefined;
  if (micros === undefined) throw unfit(value, withZone ? 'timestamptz' : 'timestamp');
  return micros;
}

/** Text types take any value's text, as a cast to text would: true is 'true' there, not 't'. */
export function asText(value: SqlValue): string {
  return typeof value === 'string' ? value : String(value);
}

function unfit(value: SqlValue, typeName: string): TypeError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : `${typeof value} ${String(value)}`;
  return new TypeError(`a session value does not fit its ${typeName} column: ${shown}`);
}
