import { Duplex, PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  backendKeyData,
  dataRow,
  errorResponse,
  parameterDescription,
  readyForQuery,
  rowDescription,
} from '../../src/sql-endpoint/wire/backend-messages.js';
import {
  decodeMessage,
  decodeStartupPacket,
  ProtocolViolation,
} from '../../src/sql-endpoint/wire/frontend-messages.js';
import { parseDeallocate } from '../../src/sql-endpoint/wire/deallocate.js';
import { MessageReader } from '../../src/sql-endpoint/wire/message-reader.js';
import { PgType } from '../../src/sql-endpoint/wire/pg-types.js';
import { resolveFormats } from '../../src/sql-endpoint/wire/result-rows.js';
import { SqlError } from '../../src/sql-endpoint/wire/session.js';

/*
 * Protocol v3 framing and message bodies, in memory: a PassThrough stands in for the socket. The
 * byte strings are the "Message Formats" of the PostgreSQL 15 manual.
 */

const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5);
  header.write(type);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const cstring = (text: string) => Buffer.from(`${text}\0`);
const int16 = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff]);
const int32 = (value: number) => {
  const out = Buffer.alloc(4);
  out.writeInt32BE(value);
  return out;
};

describe('MessageReader', () => {
  it('frames messages however the bytes are split, one byte at a time included', async () => {
    const stream = new PassThrough();
    const reader = new MessageReader(stream as unknown as Duplex);
    const bytes = Buffer.concat([
      int32(8),
      int32(80877103),
      message('Q', cstring('select 1')),
      message('S', Buffer.alloc(0)),
    ]);
    for (const byte of bytes) stream.write(Buffer.from([byte]));
    stream.end();
    expect((await reader.readStartupPacket(10_000))!.readInt32BE(0)).toBe(80877103);
    const query = await reader.readMessage(1 << 20);
    expect(query).toEqual({ type: 'Q'.charCodeAt(0), body: cstring('select 1') });
    expect(await reader.readMessage(1 << 20)).toEqual({ type: 'S'.charCodeAt(0), body: Buffer.alloc(0) });
    expect(await reader.readMessage(1 << 20)).toBeNull();
  });

  it('a length beyond the limit (or below 4) is a protocol violation before any body is read', async () => {
    const stream = new PassThrough();
    const reader = new MessageReader(stream as unknown as Duplex);
    stream.write(Buffer.concat([Buffer.from('Q'), int32(1 << 30)]));
    await expect(reader.readMessage(1 << 20)).rejects.toBeInstanceOf(ProtocolViolation);
    const startup = new MessageReader(new PassThrough().end(int32(3)) as unknown as Duplex);
    await expect(startup.readStartupPacket(10_000)).rejects.toBeInstanceOf(ProtocolViolation);
  });

  it('pauses the stream while a megabyte waits unread, and resumes as it is read', async () => {
    const stream = new PassThrough({ highWaterMark: 1 << 24 });
    const reader = new MessageReader(stream as unknown as Duplex);
    const big = message('d', Buffer.alloc(600_000));
    stream.write(big);
    stream.write(big);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.isPaused()).toBe(true);
    await reader.readMessage(1 << 20);
    expect(stream.isPaused()).toBe(false);
    expect((await reader.readMessage(1 << 20))!.body.length).toBe(600_000);
  });

  it('detach hands back what came after the last packet', async () => {
    const stream = new PassThrough();
    const reader = new MessageReader(stream as unknown as Duplex);
    stream.write(Buffer.concat([int32(8), int32(80877103), Buffer.from('extra')]));
    await reader.readStartupPacket(10_000);
    expect(reader.detach().toString()).toBe('extra');
  });
});

describe('frontend messages', () => {
  it('Bind: portal, statement, parameter formats, NULL and values, result formats', () => {
    const body = Buffer.concat([
      cstring('p1'),
      cstring('s1'),
      int16(2),
      int16(0),
      int16(1),
      int16(2),
      int32(-1),
      int32(4),
      int32(42),
      int16(1),
      int16(1),
    ]);
    expect(decodeMessage('B'.charCodeAt(0), body)).toEqual({
      type: 'Bind',
      portal: 'p1',
      statement: 's1',
      paramFormats: [0, 1],
      params: [null, int32(42)],
      resultFormats: [1],
    });
  });

  it('Parse with declared types (OIDs are unsigned), Describe, Execute, Close', () => {
    expect(
      decodeMessage('P'.charCodeAt(0), Buffer.concat([cstring(''), cstring('select $1'), int16(1), int32(23)])),
    ).toEqual({ type: 'Parse', name: '', sql: 'select $1', paramTypeOids: [23] });
    expect(decodeMessage('D'.charCodeAt(0), Buffer.concat([Buffer.from('P'), cstring('c')]))).toEqual({
      type: 'Describe',
      target: 'portal',
      name: 'c',
    });
    expect(decodeMessage('E'.charCodeAt(0), Buffer.concat([cstring(''), int32(10)]))).toEqual({
      type: 'Execute',
      portal: '',
      maxRows: 10,
    });
    expect(decodeMessage('C'.charCodeAt(0), Buffer.concat([Buffer.from('S'), cstring('s')]))).toEqual({
      type: 'Close',
      target: 'statement',
      name: 's',
    });
  });

  it('a short body, trailing bytes, an unknown type or subtype: protocol violations', () => {
    const violation = (type: string, body: Buffer) => () => decodeMessage(type.charCodeAt(0), body);
    expect(violation('E', cstring(''))).toThrow(ProtocolViolation);
    expect(violation('S', Buffer.from([1]))).toThrow(ProtocolViolation);
    expect(violation('Q', Buffer.from('no terminator'))).toThrow(ProtocolViolation);
    expect(violation('z', Buffer.alloc(0))).toThrow(/invalid frontend message type 122/);
    expect(violation('D', Buffer.concat([Buffer.from('X'), cstring('')]))).toThrow(ProtocolViolation);
  });

  it('invalid UTF-8 in a string is the error 22021, not a violation', () => {
    expect(() => decodeMessage('Q'.charCodeAt(0), Buffer.from([0xc3, 0x28, 0]))).toThrow(SqlError);
  });

  it('startup packets: SSLRequest, GSSENCRequest, CancelRequest, StartupMessage', () => {
    expect(decodeStartupPacket(int32(80877103))).toEqual({ kind: 'ssl' });
    expect(decodeStartupPacket(int32(80877104))).toEqual({ kind: 'gss' });
    expect(decodeStartupPacket(Buffer.concat([int32(80877102), int32(1234), int32(-5)]))).toEqual({
      kind: 'cancel',
      processId: 1234,
      secretKey: -5,
    });
    const startup = decodeStartupPacket(
      Buffer.concat([
        int32(196608),
        cstring('user'),
        cstring('u'),
        cstring('database'),
        cstring('d'),
        Buffer.from([0]),
      ]),
    );
    expect(startup).toEqual({ kind: 'startup', major: 3, minor: 0, parameters: { user: 'u', database: 'd' } });
  });
});

describe('backend messages', () => {
  it('RowDescription carries type OID, typlen, typmod and format per column', () => {
    const bytes = rowDescription(
      [
        { name: 'n', typeOid: PgType.numeric, typeModifier: (12 << 16) + 2 + 4 },
        { name: 'd', typeOid: PgType.date },
      ],
      [0, 1],
    );
    expect(bytes.toString('hex')).toBe(
      '54' +
        '0000002e' +
        '0002' +
        '6e00' +
        '00000000' +
        '0000' +
        '000006a4' +
        'ffff' +
        '000c0006' +
        '0000' +
        '6400' +
        '00000000' +
        '0000' +
        '0000043a' +
        '0004' +
        'ffffffff' +
        '0001',
    );
  });

  it('DataRow: -1 for NULL, length-prefixed values', () => {
    expect(dataRow([Buffer.from('ab'), null]).toString('hex')).toBe(
      '44' + '00000010' + '0002' + '00000002' + '6162' + 'ffffffff',
    );
  });

  it('ReadyForQuery, BackendKeyData, ParameterDescription (an OID above 2^31 stays unsigned on the wire)', () => {
    expect(readyForQuery('transaction').toString('hex')).toBe('5a0000000554');
    expect(backendKeyData(7, -1).toString('hex')).toBe('4b0000000c00000007ffffffff');
    expect(parameterDescription([23, 0xfffffff0]).toString('hex')).toBe(
      '74' + '0000000e' + '0002' + '00000017' + 'fffffff0',
    );
  });

  it('ErrorResponse: S, V, C, M, then D, H, P when known', () => {
    const bytes = errorResponse({ severity: 'ERROR', code: '42703', message: 'm', hint: 'h', position: 8 });
    expect(bytes.subarray(5).toString()).toBe('SERROR\0VERROR\0C42703\0Mm\0Hh\0P8\0\0');
  });
});

describe('format codes', () => {
  it('none is all text, one applies to all, otherwise one each; others are errors', () => {
    const mismatch = () => 'mismatch';
    expect(resolveFormats([], 3, mismatch)).toEqual([0, 0, 0]);
    expect(resolveFormats([1], 3, mismatch)).toEqual([1, 1, 1]);
    expect(resolveFormats([0, 1], 2, mismatch)).toEqual([0, 1]);
    expect(() => resolveFormats([0, 1], 3, mismatch)).toThrow('mismatch');
    expect(() => resolveFormats([2], 1, mismatch)).toThrow('unsupported format code: 2');
  });
});

describe('DEALLOCATE, the one statement the wire layer answers itself', () => {
  it('a name (folded unless quoted), PREPARE optional, ALL; anything more goes to the session', () => {
    expect(parseDeallocate('DEALLOCATE "_PLAN0x55f7"')).toEqual({ all: false, name: '_PLAN0x55f7' });
    expect(parseDeallocate('deallocate prepare S_1;')).toEqual({ all: false, name: 's_1' });
    expect(parseDeallocate('DEALLOCATE "a""b"')).toEqual({ all: false, name: 'a"b' });
    expect(parseDeallocate(' DEALLOCATE ALL ')).toEqual({ all: true });
    expect(parseDeallocate('DEALLOCATE "all"')).toEqual({ all: false, name: 'all' });
    expect(parseDeallocate('DEALLOCATE x; select 1')).toBeUndefined();
    expect(parseDeallocate('select 1')).toBeUndefined();
  });
});
