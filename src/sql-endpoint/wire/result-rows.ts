import type { SqlColumn, SqlValue } from './session.js';
import { SqlError } from './session.js';
import { dataRow } from './backend-messages.js';
import { encodeBinary, hasBinaryFormat } from './binary-format.js';
import type { Output } from './output.js';
import { typeName } from './pg-types.js';
import { encodeText } from './text-format.js';

export const TEXT = 0;
export const BINARY = 1;

/**
 * Bind's format codes for `count` values: none means all text, one applies to all, otherwise one
 * each (PostgreSQL's rule for both parameters and result columns). `what` names them in the error.
 */
export function resolveFormats(codes: readonly number[], count: number, mismatch: () => string): number[] {
  for (const code of codes)
    if (code !== TEXT && code !== BINARY) throw new SqlError('22023', `unsupported format code: ${code}`);
  if (codes.length === 0) return new Array<number>(count).fill(TEXT);
  if (codes.length === 1) return new Array<number>(count).fill(codes[0]!);
  if (codes.length !== count) throw new SqlError('08P01', mismatch());
  return [...codes];
}

export type ColumnEncoder = (value: SqlValue) => Buffer | null;

/** One encoder per column for the formats asked; binary for a type without a binary form is the client's error, as in PostgreSQL. */
export function columnEncoders(columns: readonly SqlColumn[], formats: readonly number[]): ColumnEncoder[] {
  return columns.map((column, i) => {
    const oid = column.typeOid;
    if (formats[i] === BINARY) {
      if (!hasBinaryFormat(oid))
        throw new SqlError('42883', `no binary output function available for type ${typeName(oid)}`);
      return (value) => (value === null ? null : encodeBinary(oid, value));
    }
    return (value) => (value === null ? null : Buffer.from(encodeText(oid, value), 'utf8'));
  });
}

export const CANCELED = () => new SqlError('57014', 'canceling statement due to user request');

/**
 * Pushes DataRows for rows[from, to), flushing at each batch: the socket's backpressure holds the
 * loop, and a cancel (or a client gone) stops it between batches, as PostgreSQL stops a SELECT
 * whose output is still being sent.
 */
export async function writeRows(
  out: Output,
  rows: readonly (readonly SqlValue[])[],
  from: number,
  to: number,
  encoders: readonly ColumnEncoder[],
  signal: AbortSignal,
): Promise<void> {
  for (let i = from; i < to; i++) {
    const row = rows[i]!;
    if (row.length !== encoders.length)
      throw new TypeError(`a session row has ${row.length} values for ${encoders.length} columns`);
    out.push(dataRow(row.map((value, column) => encoders[column]!(value))));
    if (out.full) {
      await out.flush();
      if (signal.aborted) throw CANCELED();
    }
  }
}
