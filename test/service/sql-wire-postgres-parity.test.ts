import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBinary } from '../../src/sql-endpoint/wire/binary-format.js';
import { formatDate, formatTimestamp } from '../../src/sql-endpoint/wire/datetime.js';
import { formatFloat4, formatFloat8 } from '../../src/sql-endpoint/wire/float-text.js';
import { encodeNumericBinary, formatNumeric, parseNumeric } from '../../src/sql-endpoint/wire/numeric.js';
import { PgType } from '../../src/sql-endpoint/wire/pg-types.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';

/*
 * The wire codecs against a real PostgreSQL 15 (a throwaway cluster of this file), on random values:
 * what it prints (typoutput) and what it sends (typsend) must be what we print and send. The unit
 * tests hold fixed cases; this finds the ones nobody thought of. FC_SEED=<seed> replays a run.
 */

const RUNS = 300;
const SEED = process.env.FC_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FC_SEED);

let postgres: TestPostgres;
let client: pg.Client;
beforeAll(async () => {
  postgres = await startTestPostgres('adreport-sql-wire-');
  client = new pg.Client({ connectionString: postgres.url('postgres') });
  await client.connect();
  await client.query("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET extra_float_digits = 1");
});
afterAll(async () => {
  await client?.end();
  await postgres?.close();
});

/** Each input through `expression` (over `x`, a text) in PostgreSQL: its text and the hex of its send function. */
async function postgresOf(inputs: readonly string[], text: string, send: string): Promise<[string, string][]> {
  const result = await client.query<{ text: string; send: string }>(
    `select ${text} as text, encode(${send}, 'hex') as send from unnest($1::text[]) with ordinality as t(x, n) order by n`,
    [inputs],
  );
  return result.rows.map((row) => [row.text, row.send]);
}

function sample<T>(arbitrary: fc.Arbitrary<T>): T[] {
  return fc.sample(arbitrary, { numRuns: RUNS, seed: SEED });
}

describe(`the codecs agree with PostgreSQL 15 (seed ${SEED})`, () => {
  it('float8: text and float8send', async () => {
    const values = [...sample(fc.double({ noNaN: true, noDefaultInfinity: true })), NaN, Infinity, -0];
    // toPrecision drops the sign of -0.
    const inputs = values.map((value) =>
      Object.is(value, -0) ? '-0' : Number.isFinite(value) ? value.toPrecision(17) : String(value),
    );
    const expected = await postgresOf(inputs, 'x::float8::text', 'float8send(x::float8)');
    expect(values.map((value) => [formatFloat8(value), encodeBinary(PgType.float8, value).toString('hex')])).toEqual(
      expected,
    );
  });

  it('float4: text and float4send', async () => {
    const values = sample(fc.float({ noNaN: true, noDefaultInfinity: true }));
    const inputs = values.map((value) => (Object.is(value, -0) ? '-0' : value.toPrecision(17)));
    const expected = await postgresOf(inputs, 'x::float4::text', 'float4send(x::float4)');
    expect(values.map((value) => [formatFloat4(value), encodeBinary(PgType.float4, value).toString('hex')])).toEqual(
      expected,
    );
  });

  it('numeric: text and numeric_send', async () => {
    const decimal = fc
      .tuple(
        fc.constantFrom('', '-', '+'),
        fc.stringMatching(/^\d{0,25}$/),
        fc.stringMatching(/^\d{0,20}$/),
        fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }),
      )
      .filter(([, integer, fraction]) => integer !== '' || fraction !== '')
      .map(
        ([sign, integer, fraction, exponent]) =>
          `${sign}${integer}${fraction ? `.${fraction}` : ''}${exponent === undefined ? '' : `e${exponent}`}`,
      );
    const inputs = [...sample(decimal), 'NaN', 'Infinity', '-Infinity', '0.000', '-0'];
    const expected = await postgresOf(inputs, 'x::numeric::text', 'numeric_send(x::numeric)');
    const ours = inputs.map((input) => {
      const value = parseNumeric(input)!;
      return [formatNumeric(value), encodeNumericBinary(value).toString('hex')];
    });
    expect(ours).toEqual(expected);
  });

  it('date: text and date_send from 4713 BC to 9999', async () => {
    const days = sample(fc.integer({ min: -2_451_545, max: 2_921_938 }));
    const expected = await postgresOf(
      days.map(String),
      "('2000-01-01'::date + x::int)::text",
      "date_send('2000-01-01'::date + x::int)",
    );
    expect(days.map((n) => [formatDate(n), encodeBinary(PgType.date, formatDate(n)).toString('hex')])).toEqual(
      expected,
    );
  });

  it('timestamp and timestamptz: text and send, microseconds from 4713 BC to 9999', async () => {
    const micros = sample(fc.bigInt({ min: -211_813_488_000_000_000n, max: 252_455_615_999_999_999n }));
    const inputs = micros.map(String);
    // Whole days and the microseconds left, each an exact interval product (one in seconds would go through a double).
    const at =
      "'2000-01-01 00:00:00'::timestamp + (x::bigint / 86400000000) * interval '1 day' + (x::bigint % 86400000000) * interval '1 microsecond'";
    const plain = await postgresOf(inputs, `(${at})::text`, `timestamp_send(${at})`);
    const zoned = await postgresOf(inputs, `(${at})::timestamptz::text`, `timestamptz_send((${at})::timestamptz)`);
    expect(
      micros.map((n) => [
        formatTimestamp(n, false),
        encodeBinary(PgType.timestamp, formatTimestamp(n, false)).toString('hex'),
      ]),
    ).toEqual(plain);
    expect(
      micros.map((n) => [
        formatTimestamp(n, true),
        encodeBinary(PgType.timestamptz, formatTimestamp(n, true)).toString('hex'),
      ]),
    ).toEqual(zoned);
  });
});
