import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBinary, encodeBinary, hasBinaryFormat } from '../../src/sql-endpoint/wire/binary-format.js';
import { formatDate, formatTimestamp, parseDate, parseTimestamp } from '../../src/sql-endpoint/wire/datetime.js';
import { formatFloat4, formatFloat8 } from '../../src/sql-endpoint/wire/float-text.js';
import {
  decodeNumericBinary,
  encodeNumericBinary,
  formatNumeric,
  parseNumeric,
} from '../../src/sql-endpoint/wire/numeric.js';
import { PgType, typeLength } from '../../src/sql-endpoint/wire/pg-types.js';
import { encodeText } from '../../src/sql-endpoint/wire/text-format.js';

/*
 * The wire codecs against what PostgreSQL 15.18 itself prints and sends. Every expected value below
 * was produced by a real server (`select x::float8::text`, `encode(numeric_send(x), 'hex')`, ...),
 * not by this code; test/service/sql-wire-postgres-parity.test.ts checks random values live.
 */

describe('float8 text: shortest round-trip, %g layout from e+15 and below e-4 (PostgreSQL 12+)', () => {
  // [the value to 17 digits, float8out]
  const golden: [string, string][] = [
    ['0.10000000000000001', '0.1'],
    ['0.30000000000000004', '0.30000000000000004'],
    ['0.33333333333333331', '0.3333333333333333'],
    ['1000000000000000.0', '1e+15'],
    ['100000000000000.00', '100000000000000'],
    ['123456789012345.59', '123456789012345.6'],
    ['1234567890123456.8', '1.2345678901234568e+15'],
    ['0.00010000000000000000', '0.0001'],
    ['0.000010000000000000001', '1e-05'],
    ['0.000015000000000000000', '1.5e-05'],
    ['4.9406564584124654e-324', '5e-324'],
    ['2.2250738585072014e-308', '2.2250738585072014e-308'],
    ['1.7976931348623157e+308', '1.7976931348623157e+308'],
    ['100.00000000000000', '100'],
    ['1.0000000000000000e+21', '1e+21'],
    ['-0.50000000000000000', '-0.5'],
    ['9007199254740992.0', '9.007199254740992e+15'],
    ['4.3499999999999996', '4.35'],
    ['0.00012345678900000000', '0.000123456789'],
    ['1894334554.6722412', '1894334554.6722412'],
    ['-2.7368468046188352e-20', '-2.736846804618835e-20'],
    ['-2.4367070198059079e-7', '-2.436707019805908e-07'],
    ['-0.0021882092952728270', '-0.002188209295272827'],
    ['-4545110464096.0693', '-4545110464096.069'],
    ['1.4955747127532957e-8', '1.4955747127532957e-08'],
    ['-3605266809463501.0', '-3.605266809463501e+15'],
    // 1e23 is exactly halfway between two doubles: PostgreSQL's Ryu never prints a halfway decimal (JavaScript prints 1e+23).
    ['1e23', '9.999999999999999e+22'],
    ['9.5e-1', '0.95'],
  ];
  it.each(golden)('%s prints %s', (value, printed) => {
    expect(formatFloat8(Number(value))).toBe(printed);
  });

  it('NaN, Infinity, -Infinity, 0 and -0 as PostgreSQL spells them', () => {
    expect([NaN, Infinity, -Infinity, 0, -0].map(formatFloat8)).toEqual(['NaN', 'Infinity', '-Infinity', '0', '-0']);
  });

  it('reads back as the same double, always', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (value) => {
        expect(Object.is(Number(formatFloat8(value)), value)).toBe(true);
      }),
    );
  });
});

describe('float4 text: shortest decimal that reads back as the same float4, %g layout from e+06', () => {
  const golden: [string, string][] = [
    ['0.10000000149011612', '0.1'],
    ['0.33333334326744080', '0.33333334'],
    ['1000000.0000000000', '1e+06'],
    ['123456.00000000000', '123456'],
    ['1234567.0000000000', '1.234567e+06'],
    ['0.000099999997473787516', '0.0001'],
    ['0.0000099999997473787516', '1e-05'],
    ['3.4028234663852886e+38', '3.4028235e+38'],
    ['1.4012984643248171e-45', '1e-45'],
    ['16777216.000000000', '1.6777216e+07'],
    ['0.30000001192092896', '0.3'],
    ['10000000000.000000', '1e+10'],
    // Read as a double and then a float, 7.038531e-26 comes back; read straight as a float (as PostgreSQL does) it does not.
    ['7.0385313081487913e-26', '7.0385313e-26'],
    ['-1.1283133715539462e-12', '-1.1283134e-12'],
    ['-25908780.000000000', '-2.590878e+07'],
    ['846.68280029296875', '846.6828'],
    ['107900.74218750000', '107900.74'],
    ['-41.118705749511719', '-41.118706'],
    ['47605024.000000000', '4.7605024e+07'],
    // Found by the parity test: -196077410 is the float4 -196077408, and -1.960774e+08 lies exactly halfway to its neighbour.
    ['-196077408', '-1.9607741e+08'],
    // 309427.125 exactly: the 8-digit candidates 309427.12 and .13 are equally close, and Ryu takes the even one.
    ['309427.125', '309427.12'],
  ];
  it.each(golden)('%s prints %s', (value, printed) => {
    expect(formatFloat4(Number(value))).toBe(printed);
  });

  it('reads back as the same float4, always', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true }), (value) => {
        expect(Object.is(Math.fround(Number(formatFloat4(value))), Math.fround(value))).toBe(true);
      }),
    );
  });
});

describe('numeric: exact text and base-10000 binary', () => {
  // [input, numeric_out, numeric_send as hex]
  const golden: [string, string, string][] = [
    ['0', '0', '0000000000000000'],
    ['0.00', '0.00', '0000000000000002'],
    ['-0.000', '0.000', '0000000000000003'],
    ['1', '1', '00010000000000000001'],
    ['-1', '-1', '00010000400000000001'],
    ['12345.678', '12345.678', '0003000100000003000109291a7c'],
    ['-12345.678900', '-12345.678900', '0003000140000006000109291a85'],
    ['0.0001', '0.0001', '0001ffff000000040001'],
    ['0.00001', '0.00001', '0001fffe0000000503e8'],
    ['1e20', '100000000000000000000', '00010005000000000001'],
    ['1.5e-3', '0.0015', '0001ffff00000004000f'],
    ['9999', '9999', '0001000000000000270f'],
    ['10000', '10000', '00010001000000000001'],
    ['99999999.99999999', '99999999.99999999', '0004000100000008270f270f270f270f'],
    [
      '123456789012345678901234567890.123456789',
      '123456789012345678901234567890.123456789',
      '000b000700000009000c0d801ed204d2162e23340d801ed204d2162e2328',
    ],
    ['NaN', 'NaN', '00000000c0000000'],
    ['Infinity', 'Infinity', '00000000d0000020'],
    ['-Infinity', '-Infinity', '00000000f0000020'],
    ['  42  ', '42', '0001000000000000002a'],
    ['+7.50', '7.50', '000200000000000200071388'],
    ['.5', '0.5', '0001ffff000000011388'],
    ['5.', '5', '00010000000000000005'],
  ];
  it.each(golden)('%j prints %s and sends %s', (input, printed, hex) => {
    const value = parseNumeric(input)!;
    expect(formatNumeric(value)).toBe(printed);
    expect(encodeNumericBinary(value).toString('hex')).toBe(hex);
    expect(formatNumeric(decodeNumericBinary(Buffer.from(hex, 'hex')))).toBe(printed);
  });

  it('refuses what numeric_in refuses', () => {
    for (const text of ['', '.', '1.2.3', 'abc', '1e', '--1', '-NaN', '1 2'])
      expect(parseNumeric(text), text).toBeUndefined();
  });

  it('numeric_recv truncates digits beyond dscale and refuses bad signs and digits', () => {
    // 1.2345 sent with dscale 2: PostgreSQL keeps 1.23.
    expect(formatNumeric(decodeNumericBinary(Buffer.from('000200000000000200010929', 'hex')))).toBe('1.23');
    expect(() => decodeNumericBinary(Buffer.from('00010000123400000001', 'hex'))).toThrow(/sign/);
    expect(() => decodeNumericBinary(Buffer.from('00010000000000002710', 'hex'))).toThrow(/digit/);
    expect(() => decodeNumericBinary(Buffer.from('0002000000000000', 'hex'))).toThrow(/length/);
  });

  it('binary round-trips any decimal exactly', () => {
    const decimal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^\d{1,40}$/), fc.stringMatching(/^\d{0,30}$/))
      .map(([negative, integer, fraction]) => `${negative ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}`);
    fc.assert(
      fc.property(decimal, (text) => {
        const value = parseNumeric(text)!;
        expect(formatNumeric(decodeNumericBinary(encodeNumericBinary(value)))).toBe(formatNumeric(value));
        // The same number (as far as a double can tell): no digit moved across the point.
        expect(Number(formatNumeric(value)) === Number(text)).toBe(true);
      }),
    );
  });
});

describe('date: days since 2000-01-01, ISO text with BC', () => {
  // [input, date_out, date_send as hex]
  const golden: [string, string, string][] = [
    ['2000-01-01', '2000-01-01', '00000000'],
    ['1999-12-31', '1999-12-31', 'ffffffff'],
    ['2024-02-29', '2024-02-29', '00002279'],
    ['1970-01-01', '1970-01-01', 'ffffd533'],
    ['1900-03-01', '1900-03-01', 'ffff718f'],
    ['0001-01-01', '0001-01-01', 'fff4dbf9'],
    ['0001-12-31 BC', '0001-12-31 BC', 'fff4dbf8'],
    ['0044-03-15 BC', '0044-03-15 BC', 'fff49d7b'],
    ['9999-12-31', '9999-12-31', '002c95d3'],
    ['2400-02-29', '2400-02-29', '00023aec'],
    ['infinity', 'infinity', '7fffffff'],
    ['-infinity', '-infinity', '80000000'],
  ];
  it.each(golden)('%s prints %s and sends %s', (input, printed, hex) => {
    expect(encodeText(PgType.date, input)).toBe(printed);
    expect(encodeBinary(PgType.date, input).toString('hex')).toBe(hex);
    // A binary parameter comes back as ISO 8601 (signed years before 1 AD) that the same codecs read as the same day.
    expect(encodeText(PgType.date, decodeBinary(PgType.date, Buffer.from(hex, 'hex')))).toBe(printed);
  });

  it('refuses days past their month and month 13', () => {
    for (const text of ['2023-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '0000-01-01 BC'])
      expect(parseDate(text), text).toBeUndefined();
  });

  it('every day from 1582 to 2600 round-trips through its text and its day number', () => {
    fc.assert(
      fc.property(fc.integer({ min: -152_000, max: 219_000 }), (days) => {
        expect(parseDate(formatDate(days))).toBe(days);
      }),
    );
  });
});

describe('timestamp and timestamptz: microseconds since 2000-01-01, TimeZone UTC', () => {
  // [input, timestamp_out, timestamp_send, timestamptz_out, timestamptz_send]
  const golden: [string, string, string, string, string][] = [
    ['2000-01-01 00:00:00', '2000-01-01 00:00:00', '0000000000000000', '2000-01-01 00:00:00+00', '0000000000000000'],
    [
      '1999-12-31 23:59:59.999999',
      '1999-12-31 23:59:59.999999',
      'ffffffffffffffff',
      '1999-12-31 23:59:59.999999+00',
      'ffffffffffffffff',
    ],
    [
      '2024-02-29 12:34:56.789012',
      '2024-02-29 12:34:56.789012',
      '0002b58341728614',
      '2024-02-29 12:34:56.789012+00',
      '0002b58341728614',
    ],
    [
      '2024-02-29T12:34:56.5+02:00',
      '2024-02-29 12:34:56.5',
      '0002b583416e1d20',
      '2024-02-29 10:34:56.5+00',
      '0002b5819446d520',
    ],
    ['1970-01-01 00:00:00Z', '1970-01-01 00:00:00', 'fffca2fec4c82000', '1970-01-01 00:00:00+00', 'fffca2fec4c82000'],
    [
      '1900-01-01 00:00:00.000001',
      '1900-01-01 00:00:00.000001',
      'fff4c9ee7c0b8001',
      '1900-01-01 00:00:00.000001+00',
      'fff4c9ee7c0b8001',
    ],
    [
      '0044-03-15 12:00:00 BC',
      '0044-03-15 12:00:00 BC',
      'ff1af9e8fb46d000',
      '0044-03-15 12:00:00+00 BC',
      'ff1af9e8fb46d000',
    ],
    [
      '2024-06-30 23:59:59.9999995',
      '2024-07-01 00:00:00',
      '0002bf230c078000',
      '2024-07-01 00:00:00+00',
      '0002bf230c078000',
    ],
    ['2024-01-01 24:00:00', '2024-01-02 00:00:00', '0002b0e9f2c0a000', '2024-01-02 00:00:00+00', '0002b0e9f2c0a000'],
    [
      '294276-12-31 23:59:59',
      '294276-12-31 23:59:59',
      '7fffff5bb3a35dc0',
      '294276-12-31 23:59:59+00',
      '7fffff5bb3a35dc0',
    ],
    ['infinity', 'infinity', '7fffffffffffffff', 'infinity', '7fffffffffffffff'],
    ['-infinity', '-infinity', '8000000000000000', '-infinity', '8000000000000000'],
    [
      '2024-03-10T02:30:00-05:30',
      '2024-03-10 02:30:00',
      '0002b643f8673a00',
      '2024-03-10 08:00:00+00',
      '0002b64894934000',
    ],
  ];
  it.each(golden)('%s', (input, text, binary, textTz, binaryTz) => {
    expect(encodeText(PgType.timestamp, input)).toBe(text);
    expect(encodeBinary(PgType.timestamp, input).toString('hex')).toBe(binary);
    expect(encodeText(PgType.timestamptz, input)).toBe(textTz);
    expect(encodeBinary(PgType.timestamptz, input).toString('hex')).toBe(binaryTz);
    // A binary parameter comes back as ISO 8601 that the same codecs read as the same instant.
    const decoded = decodeBinary(PgType.timestamptz, Buffer.from(binaryTz, 'hex')) as string;
    expect(encodeBinary(PgType.timestamptz, decoded).toString('hex')).toBe(binaryTz);
  });

  it('every microsecond from 1 AD to 9999 round-trips through its text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -63_082_281_600_000_000n, max: 252_455_615_999_999_999n }), (micros) => {
        expect(parseTimestamp(formatTimestamp(micros, true), true)).toBe(micros);
        expect(parseTimestamp(formatTimestamp(micros, false), false)).toBe(micros);
      }),
    );
  });
});

describe('the other types', () => {
  it('text output of bool, integers, text types, json', () => {
    expect(encodeText(PgType.bool, true)).toBe('t');
    expect(encodeText(PgType.bool, false)).toBe('f');
    expect(encodeText(PgType.int8, 9007199254740993n)).toBe('9007199254740993');
    expect(encodeText(PgType.int4, '-42')).toBe('-42');
    expect(encodeText(PgType.oid, 4294967295)).toBe('4294967295');
    expect(encodeText(PgType.text, 'Grüße')).toBe('Grüße');
    expect(encodeText(PgType.json, '{"a":1}')).toBe('{"a":1}');
    expect(encodeText(PgType.numeric, 0.1)).toBe('0.1');
    expect(encodeText(PgType.numeric, 12345678901234567890n)).toBe('12345678901234567890');
  });

  it('values that do not fit their column are errors, not different answers', () => {
    expect(() => encodeText(PgType.int2, 40000)).toThrow(RangeError);
    expect(() => encodeText(PgType.int4, 1.5)).toThrow(TypeError);
    expect(() => encodeText(PgType.bool, 'yes')).toThrow(TypeError);
    expect(() => encodeText(PgType.date, '2024-02-30')).toThrow(TypeError);
    expect(() => encodeBinary(PgType.int4, 2 ** 31)).toThrow(RangeError);
  });

  it('binary of the fixed-width types, as PostgreSQL sends them', () => {
    const hex = (oid: number, value: Parameters<typeof encodeBinary>[1]) => encodeBinary(oid, value).toString('hex');
    expect(hex(PgType.bool, true)).toBe('01');
    expect(hex(PgType.int2, -2)).toBe('fffe');
    expect(hex(PgType.int4, 1)).toBe('00000001');
    expect(hex(PgType.int8, -1n)).toBe('ffffffffffffffff');
    expect(hex(PgType.oid, 4294967295)).toBe('ffffffff');
    // float4send(0.1), float8send(0.1)
    expect(hex(PgType.float4, 0.1)).toBe('3dcccccd');
    expect(hex(PgType.float8, 0.1)).toBe('3fb999999999999a');
    expect(hex(PgType.float8, 'NaN')).toBe('7ff8000000000000');
    expect(hex(PgType.text, 'é')).toBe('c3a9');
  });

  it('binary parameters decode to the values the session takes', () => {
    const from = (oid: number, hex: string) => decodeBinary(oid, Buffer.from(hex, 'hex'));
    expect(from(PgType.bool, '01')).toBe(true);
    expect(from(PgType.int2, 'fffe')).toBe(-2);
    expect(from(PgType.int4, '7fffffff')).toBe(2147483647);
    expect(from(PgType.int8, '0020000000000001')).toBe(9007199254740993n);
    expect(from(PgType.float4, '3dcccccd')).toBe(Math.fround(0.1));
    expect(from(PgType.float8, '3fb999999999999a')).toBe(0.1);
    expect(from(PgType.numeric, '0003000140000006000109291a85')).toBe('-12345.678900');
    expect(from(PgType.date, 'fff49d7b')).toBe('-0043-03-15');
    expect(from(PgType.date, '00002279')).toBe('2024-02-29');
    expect(from(PgType.timestamp, '0002b58341728614')).toBe('2024-02-29T12:34:56.789012');
    expect(from(PgType.timestamptz, '0002b58341728614')).toBe('2024-02-29T12:34:56.789012Z');
    expect(from(PgType.varchar, 'c3a9')).toBe('é');
    expect(() => from(PgType.int4, '0001')).toThrow(RangeError);
    expect(() => from(PgType.bool, '02')).toThrow(RangeError);
    expect(() => from(PgType.text, 'ff')).toThrow(RangeError);
  });

  it('every listed type has a binary form and a typlen; others do not travel in binary', () => {
    for (const oid of Object.values(PgType)) expect(hasBinaryFormat(oid), String(oid)).toBe(true);
    expect(hasBinaryFormat(1186 /* interval */)).toBe(false);
    expect([PgType.int8, PgType.name, PgType.text, PgType.unknown, PgType.date].map(typeLength)).toEqual([
      8, 64, -1, -2, 4,
    ]);
  });
});
