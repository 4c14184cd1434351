import { utf8 } from './binary-format.js';
import { SqlError } from './session.js';

/**
 * What a client sends, decoded from message bodies (protocol v3, "Message Formats" of the
 * PostgreSQL 15 manual). A body that does not hold what its type promises is a ProtocolViolation,
 * which ends the connection as PostgreSQL's 08P01 does: after it the byte stream cannot be trusted.
 */

export class ProtocolViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolViolation';
  }
}

export type DescribeTarget = 'statement' | 'portal';

export type FrontendMessage =
  | { readonly type: 'Query'; readonly sql: string }
  | { readonly type: 'Parse'; readonly name: string; readonly sql: string; readonly paramTypeOids: readonly number[] }
  | {
      readonly type: 'Bind';
      readonly portal: string;
      readonly statement: string;
      readonly paramFormats: readonly number[];
      readonly params: readonly (Buffer | null)[];
      readonly resultFormats: readonly number[];
    }
  | { readonly type: 'Describe'; readonly target: DescribeTarget; readonly name: string }
  | { readonly type: 'Execute'; readonly portal: string; readonly maxRows: number }
  | { readonly type: 'Close'; readonly target: DescribeTarget; readonly name: string }
  | { readonly type: 'Sync' }
  | { readonly type: 'Flush' }
  | { readonly type: 'Terminate' }
  | { readonly type: 'FunctionCall' }
  /** CopyData, CopyDone, CopyFail outside COPY: PostgreSQL ignores them, and so do we. */
  | { readonly type: 'CopyIgnored' }
  /** 'p': a password, SASLInitialResponse or SASLResponse; the authentication step reads its body. */
  | { readonly type: 'Password'; readonly body: Buffer };

export function decodeMessage(type: number, body: Buffer): FrontendMessage {
  const reader = new BodyReader(body);
  const message = decodeBody(String.fromCharCode(type), reader);
  if (message.type !== 'Password') reader.end();
  return message;
}

function decodeBody(type: string, reader: BodyReader): FrontendMessage {
  switch (type) {
    case 'Q':
      return { type: 'Query', sql: reader.cstring() };
    case 'P': {
      const name = reader.cstring();
      const sql = reader.cstring();
      const paramTypeOids = reader.list(() => reader.uint32());
      return { type: 'Parse', name, sql, paramTypeOids };
    }
    case 'B': {
      const portal = reader.cstring();
      const statement = reader.cstring();
      const paramFormats = reader.list(() => reader.int16());
      const params = reader.list(() => reader.value());
      const resultFormats = reader.list(() => reader.int16());
      return { type: 'Bind', portal, statement, paramFormats, params, resultFormats };
    }
    case 'D':
      return { type: 'Describe', target: reader.target(), name: reader.cstring() };
    case 'E':
      return { type: 'Execute', portal: reader.cstring(), maxRows: reader.int32() };
    case 'C':
      return { type: 'Close', target: reader.target(), name: reader.cstring() };
    case 'S':
      return { type: 'Sync' };
    case 'H':
      return { type: 'Flush' };
    case 'X':
      return { type: 'Terminate' };
    case 'F':
      reader.skipRest();
      return { type: 'FunctionCall' };
    case 'd':
    case 'c':
    case 'f':
      reader.skipRest();
      return { type: 'CopyIgnored' };
    case 'p':
      return { type: 'Password', body: reader.rest() };
    default:
      throw new ProtocolViolation(`invalid frontend message type ${type.charCodeAt(0)}`);
  }
}

/** Reads a message body front to back; running past its end is a protocol violation. */
export class BodyReader {
  private offset = 0;

  constructor(private readonly body: Buffer) {}

  int16(): number {
    this.need(2);
    const value = this.body.readInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  int32(): number {
    this.need(4);
    const value = this.body.readInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  uint32(): number {
    this.need(4);
    const value = this.body.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  /** A NUL-terminated string; invalid UTF-8 is the client's error 22021, as PostgreSQL's encoding check makes it. */
  cstring(): string {
    const end = this.body.indexOf(0, this.offset);
    if (end < 0) throw new ProtocolViolation('invalid string in message');
    const bytes = this.body.subarray(this.offset, end);
    this.offset = end + 1;
    try {
      return utf8(bytes);
    } catch {
      throw new SqlError('22021', 'invalid byte sequence for encoding "UTF8"');
    }
  }

  bytes(length: number): Buffer {
    this.need(length);
    const value = this.body.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  /** A length-prefixed value; length -1 is NULL. */
  value(): Buffer | null {
    const length = this.int32();
    if (length === -1) return null;
    if (length < 0) throw new ProtocolViolation(`invalid value length ${length}`);
    return this.bytes(length);
  }

  /** An int16 count, then that many items. */
  list<T>(item: () => T): T[] {
    const count = this.int16();
    if (count < 0) throw new ProtocolViolation(`invalid count ${count}`);
    return Array.from({ length: count }, item);
  }

  target(): DescribeTarget {
    this.need(1);
    const byte = this.body[this.offset++];
    if (byte === 0x53) return 'statement';
    if (byte === 0x50) return 'portal';
    throw new ProtocolViolation(`invalid DESCRIBE/CLOSE message subtype ${byte}`);
  }

  rest(): Buffer {
    const value = this.body.subarray(this.offset);
    this.offset = this.body.length;
    return value;
  }

  skipRest(): void {
    this.offset = this.body.length;
  }

  /** PostgreSQL's pq_getmsgend: trailing bytes mean client and server disagree about the format. */
  end(): void {
    if (this.offset !== this.body.length) throw new ProtocolViolation('invalid message format');
  }

  private need(length: number): void {
    if (this.offset + length > this.body.length) throw new ProtocolViolation('invalid message format');
  }
}

/** The first packet of a connection (and the one after an SSL or GSS answer): no type byte. */
export type StartupPacket =
  | { readonly kind: 'ssl' }
  | { readonly kind: 'gss' }
  | { readonly kind: 'cancel'; readonly processId: number; readonly secretKey: number }
  | {
      readonly kind: 'startup';
      readonly major: number;
      readonly minor: number;
      readonly parameters: Readonly<Record<string, string>>;
    };

const CANCEL_REQUEST = 80877102;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** `body` is the packet without its length word. */
export function decodeStartupPacket(body: Buffer): StartupPacket {
  const reader = new BodyReader(body);
  const code = reader.int32();
  if (code === SSL_REQUEST) return { kind: 'ssl' };
  if (code === GSSENC_REQUEST) return { kind: 'gss' };
  if (code === CANCEL_REQUEST) return { kind: 'cancel', processId: reader.int32(), secretKey: reader.int32() };
  const major = code >>> 16;
  const minor = code & 0xffff;
  const parameters: Record<string, string> = Object.create(null) as Record<string, string>;
  if (major === 3) {
    // Name/value pairs up to an empty name; the terminating NUL is the packet's last byte.
    for (let name = reader.cstring(); name !== ''; name = reader.cstring()) parameters[name] = reader.cstring();
    reader.end();
  }
  return { kind: 'startup', major, minor, parameters };
}
