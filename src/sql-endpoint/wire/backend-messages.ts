import type { SqlColumn, TransactionStatus } from './session.js';
import { typeLength } from './pg-types.js';

/**
 * What the server sends, as whole messages (type byte, int32 length, body): protocol v3's backend
 * messages, "Message Formats" of the PostgreSQL 15 manual.
 */

/** A message body under construction; `finish` prefixes the type and the length. */
class Body {
  private readonly parts: Buffer[] = [];
  private length = 0;

  int16(value: number): this {
    const part = Buffer.alloc(2);
    part.writeInt16BE(value);
    return this.push(part);
  }

  int32(value: number): this {
    const part = Buffer.alloc(4);
    part.writeInt32BE(value);
    return this.push(part);
  }

  /** A NUL inside would end the string early and shift every later field: it is dropped. */
  cstring(value: string): this {
    return this.push(Buffer.from(`${value.replaceAll('\0', '')}\0`, 'utf8'));
  }

  bytes(value: Buffer): this {
    return this.push(value);
  }

  finish(type: string): Buffer {
    const header = Buffer.alloc(5);
    header.write(type, 0, 'latin1');
    header.writeInt32BE(this.length + 4, 1);
    return Buffer.concat([header, ...this.parts], 5 + this.length);
  }

  private push(part: Buffer): this {
    this.parts.push(part);
    this.length += part.length;
    return this;
  }
}

const empty = (type: string): Buffer => new Body().finish(type);

export const authenticationOk = (): Buffer => new Body().int32(0).finish('R');

/** AuthenticationSASL: the mechanisms, each NUL-terminated, then an empty name. */
export const authenticationSasl = (mechanisms: readonly string[]): Buffer => {
  const body = new Body().int32(10);
  for (const mechanism of mechanisms) body.cstring(mechanism);
  return body.cstring('').finish('R');
};

export const authenticationSaslContinue = (data: string): Buffer =>
  new Body().int32(11).bytes(Buffer.from(data, 'utf8')).finish('R');

export const authenticationSaslFinal = (data: string): Buffer =>
  new Body().int32(12).bytes(Buffer.from(data, 'utf8')).finish('R');

export const parameterStatus = (name: string, value: string): Buffer =>
  new Body().cstring(name).cstring(value).finish('S');

export const backendKeyData = (processId: number, secretKey: number): Buffer =>
  new Body().int32(processId).int32(secretKey).finish('K');

/** The protocol version we speak (3.0) and the `_pq_.` startup options we did not recognize. */
export const negotiateProtocolVersion = (minor: number, unrecognized: readonly string[]): Buffer => {
  const body = new Body().int32(minor).int32(unrecognized.length);
  for (const option of unrecognized) body.cstring(option);
  return body.finish('v');
};

const STATUS_BYTE: Readonly<Record<TransactionStatus, string>> = { idle: 'I', transaction: 'T', error: 'E' };

export const readyForQuery = (status: TransactionStatus): Buffer =>
  new Body().bytes(Buffer.from(STATUS_BYTE[status], 'latin1')).finish('Z');

/** `formats[i]` is column i's format code (0 text, 1 binary). */
export const rowDescription = (columns: readonly SqlColumn[], formats: readonly number[]): Buffer => {
  const body = new Body().int16(columns.length);
  columns.forEach((column, i) => {
    body
      .cstring(column.name)
      .int32(0) // table OID: the relations are the session's, not PostgreSQL's catalog
      .int16(0) // column number within that table
      .int32(column.typeOid | 0)
      .int16(typeLength(column.typeOid))
      .int32(column.typeModifier ?? -1)
      .int16(formats[i] ?? 0);
  });
  return body.finish('T');
};

/** A row whose values are already in their column's format; null is SQL NULL. */
export function dataRow(values: readonly (Buffer | null)[]): Buffer {
  let length = 4 + 2;
  for (const value of values) length += 4 + (value?.length ?? 0);
  const out = Buffer.allocUnsafe(1 + length);
  out.write('D', 0, 'latin1');
  out.writeInt32BE(length, 1);
  out.writeInt16BE(values.length, 5);
  let offset = 7;
  for (const value of values) {
    if (value === null) {
      out.writeInt32BE(-1, offset);
      offset += 4;
    } else {
      out.writeInt32BE(value.length, offset);
      value.copy(out, offset + 4);
      offset += 4 + value.length;
    }
  }
  return out;
}

export const parameterDescription = (typeOids: readonly number[]): Buffer => {
  const body = new Body().int16(typeOids.length);
  for (const oid of typeOids) body.int32(oid | 0);
  return body.finish('t');
};

export const commandComplete = (tag: string): Buffer => new Body().cstring(tag).finish('C');
export const emptyQueryResponse = (): Buffer => empty('I');
export const parseComplete = (): Buffer => empty('1');
export const bindComplete = (): Buffer => empty('2');
export const closeComplete = (): Buffer => empty('3');
export const noData = (): Buffer => empty('n');
export const portalSuspended = (): Buffer => empty('s');

export interface ErrorFields {
  readonly severity: 'ERROR' | 'FATAL';
  readonly code: string;
  readonly message: string;
  readonly detail?: string | undefined;
  readonly hint?: string | undefined;
  readonly position?: number | undefined;
}

/** ErrorResponse: S (localized severity), V (the same, never localized), C, M, then D, H, P when known. */
export function errorResponse(error: ErrorFields): Buffer {
  const body = new Body()
    .bytes(Buffer.from('S'))
    .cstring(error.severity)
    .bytes(Buffer.from('V'))
    .cstring(error.severity)
    .bytes(Buffer.from('C'))
    .cstring(error.code)
    .bytes(Buffer.from('M'))
    .cstring(error.message);
  if (error.detail !== undefined) body.bytes(Buffer.from('D')).cstring(error.detail);
  if (error.hint !== undefined) body.bytes(Buffer.from('H')).cstring(error.hint);
  if (error.position !== undefined) body.bytes(Buffer.from('P')).cstring(String(error.position));
  return body.bytes(Buffer.from([0])).finish('E');
}
