import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgType } from '../../src/sql-endpoint/wire/pg-types.js';
import {
  dataRowOf,
  errorOf,
  int16s,
  int32s,
  psql,
  RawClient,
  startWireWorld,
  TYPES_COLUMNS,
  TYPES_ROW_TEXT,
  types,
  type WireWorld,
} from './sql-wire-fixture.js';

/*
 * Statements over the wire (issue 41): the simple and the extended query protocol, text and binary
 * formats, portals read in pages, errors and the skip to Sync. node-postgres and psql where they
 * can show it, the raw client for exact message sequences.
 */

let world: WireWorld;
let client: pg.Client;
beforeAll(async () => {
  world = await startWireWorld();
  client = await world.connect();
});
afterAll(async () => {
  await world?.close();
});

/** Parse's declared parameter types for node-postgres, which sends `types` in Parse and reads parsers from it. */
const paramTypes = (...oids: number[]) => Object.assign(oids, { getTypeParser: pg.types.getTypeParser });

describe('simple query', () => {
  it('answers each statement of a string in order', async () => {
    const results = (await client.query(
      'select 1; select * from series(3); begin; commit',
    )) as unknown as pg.QueryResult[];
    expect(results.map((result) => [result.command, result.rowCount])).toEqual([
      ['SELECT', 1],
      ['SELECT', 3],
      ['BEGIN', null],
      ['COMMIT', null],
    ]);
    expect(results[1]!.rows).toEqual([
      { i: 1, label: 'row 1' },
      { i: 2, label: 'row 2' },
      { i: 3, label: 'row 3' },
    ]);
    expect(results[1]!.fields.map((field) => [field.name, field.dataTypeID, field.format])).toEqual([
      ['i', PgType.int4, 'text'],
      ['label', PgType.text, 'text'],
    ]);
  });

  it('message by message: RowDescription, DataRows, CommandComplete per result; EmptyQueryResponse for nothing', async () => {
    const raw = await RawClient.session(world.port);
    raw.query('select 1; select * from series(2)');
    expect(types(await raw.untilReady())).toBe('TDCTDDCZ');
    raw.query('');
    expect(types(await raw.untilReady())).toBe('IZ');
    raw.query(' ; ');
    expect(types(await raw.untilReady())).toBe('IZ');
    raw.end();
  });

  it('every type in text as PostgreSQL prints it', async () => {
    const raw = await RawClient.session(world.port);
    raw.query('select types');
    const messages = await raw.untilReady();
    expect(dataRowOf(messages.find((m) => m.type === 'D')!)).toEqual(TYPES_ROW_TEXT);
    raw.end();
  });

  it('a SqlError is an ErrorResponse with its code, position and hint; the statements before it are answered', async () => {
    const raw = await RawClient.session(world.port);
    raw.query('select 1; select error; select 2');
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('TDCEZ');
    expect(errorOf(messages[3]!)).toEqual({
      S: 'ERROR',
      V: 'ERROR',
      C: '42703',
      M: 'column "nope" does not exist',
      H: 'Look at /fields.',
      P: '8',
    });
    raw.end();
  });

  it('any other error is XX000 "internal error" to the client, its stack in the log; the connection goes on', async () => {
    const error = await client.query('select boom').catch((failure: unknown) => failure as pg.DatabaseError);
    expect({ code: (error as pg.DatabaseError).code, message: (error as pg.DatabaseError).message }).toEqual({
      code: 'XX000',
      message: 'internal error',
    });
    expect(world.logs.some((line) => line.includes('boom: a bug in the session'))).toBe(true);
    expect((await client.query('select 3')).rows).toEqual([{ '?column?': 3 }]);
  });

  it('ReadyForQuery carries the transaction status: T in a block, E after an error in it, I after ROLLBACK', async () => {
    const raw = await RawClient.session(world.port);
    const status = async (sql: string) => {
      raw.query(sql);
      return (await raw.untilReady()).at(-1)!.body.toString();
    };
    expect(await status('begin')).toBe('T');
    expect(await status('select 1')).toBe('T');
    expect(await status('select error')).toBe('E');
    expect(await status('select 1')).toBe('E');
    expect(await status('rollback')).toBe('I');
    raw.end();
  });

  it('a FATAL from the session ends the connection after its ErrorResponse', async () => {
    const raw = await RawClient.session(world.port);
    raw.query('select fatal');
    const error = await raw.read();
    expect(errorOf(error)).toMatchObject({ S: 'FATAL', C: '57P01' });
    await raw.closed();
  });
});

describe('extended query protocol', () => {
  it('parameters in text, node-postgres style (unnamed statement and portal)', async () => {
    const result = await client.query('select $1, $2', ['a', 42]);
    expect(result.rows).toEqual([{ p1: 'a', p2: '42' }]);
  });

  it('declared parameter types: text values decode by type in the session; results come back typed', async () => {
    const result = await client.query({
      text: 'select $1, $2, $3',
      values: ['7', '-12345.678900', '2024-02-29'],
      types: paramTypes(PgType.int4, PgType.numeric, PgType.date),
    });
    expect(result.fields.map((field) => field.dataTypeID)).toEqual([PgType.int4, PgType.numeric, PgType.date]);
    expect(result.rows[0]).toEqual({ p1: 7, p2: '-12345.678900', p3: new Date(2024, 1, 29) });
  });

  it('binary parameters (node-postgres sends a Buffer in binary) decode to the session values', async () => {
    const int8 = Buffer.alloc(8);
    int8.writeBigInt64BE(9007199254740993n);
    const float8 = Buffer.alloc(8);
    float8.writeDoubleBE(0.1);
    const result = await client.query({
      text: 'select $1, $2, $3, $4',
      values: [int8, float8, Buffer.from('0003000140000006000109291a85', 'hex'), Buffer.from('00002279', 'hex')],
      types: paramTypes(PgType.int8, PgType.float8, PgType.numeric, PgType.date),
      rowMode: 'array',
    });
    expect(result.rows[0]).toEqual(['9007199254740993', 0.1, '-12345.678900', new Date(2024, 1, 29)]);
  });

  // Binary results are checked on the raw client: node-postgres 8 reads every DataRow value as UTF-8 text, even with
  // `binary: true`, so bytes such as int2 -32768's 0x8000 reach its parsers mangled.
  it('binary results, exact bytes (raw client)', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('', 'select types');
    raw.bind('', '', [], [], [1]);
    raw.describe('P', '');
    raw.execute('');
    raw.sync();
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('12TDCZ');
    const formats = [];
    const description = messages[2]!.body;
    for (let i = 0, offset = 2; i < TYPES_COLUMNS.length; i++) {
      offset = description.indexOf(0, offset) + 1 + 4 + 2 + 4 + 2 + 4;
      formats.push(description.readInt16BE(offset));
      offset += 2;
    }
    expect(formats).toEqual(TYPES_COLUMNS.map(() => 1));
    const row = dataRowOf(messages[3]!, true);
    // bool, int2 -32768, int4 max, int8 2^53+1, float4 0.1, float8 1/3, numeric -12345.678900 (numeric_send's bytes), date 2024-02-29, timestamp.
    expect(row.slice(0, 8)).toEqual([
      '01',
      '8000',
      '7fffffff',
      '0020000000000001',
      '3dcccccd',
      '3fd5555555555555',
      '0003000140000006000109291a85',
      Buffer.from('Grüße, 世界').toString('hex'),
    ]);
    expect(row[12]).toBe('00002279');
    expect(row[13]).toBe('0002b58341728614');
    expect(row.at(-1)).toBeNull();
    raw.end();
  });

  it('result formats per column: binary for the first, text for the second', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('', 'select * from series(1)');
    raw.bind('', '', [], [], [1, 0]);
    raw.describe('P', '');
    raw.execute('');
    raw.sync();
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('12TDCZ');
    const description = messages[2]!.body;
    expect(description.readInt16BE(description.indexOf('label') - 2)).toBe(1);
    expect(description.readInt16BE(description.length - 2)).toBe(0);
    expect(dataRowOf(messages[3]!, true)).toEqual(['00000001', Buffer.from('row 1').toString('hex')]);
    raw.end();
  });

  it('Describe statement: ParameterDescription then RowDescription, or NoData for a statement without rows', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('s', 'select $1, $2', [PgType.int4, 0]);
    raw.describe('S', 's');
    raw.parse('b', 'begin');
    raw.describe('S', 'b');
    raw.sync();
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('1tT1tnZ');
    expect(messages[1]!.body.toString('hex')).toBe(
      int16s(2).toString('hex') + int32s(PgType.int4, PgType.text).toString('hex'),
    );
    raw.end();
  });

  it('max rows: PortalSuspended, then the next Execute goes on where it stopped; CommandComplete counts the last page', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('', 'select * from series(5)');
    raw.bind('', '');
    raw.execute('', 2);
    raw.execute('', 2);
    raw.execute('', 2);
    raw.execute('', 2);
    raw.sync();
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('12DDsDDsDCCZ');
    expect(messages.filter((m) => m.type === 'D').map((m) => dataRowOf(m)[0])).toEqual(['1', '2', '3', '4', '5']);
    expect(messages.filter((m) => m.type === 'C').map((m) => m.body.toString())).toEqual(['SELECT 1\0', 'SELECT 0\0']);
    raw.end();
  });

  it('max rows through node-postgres (Query `rows`: Execute and Flush until done)', async () => {
    const rows = await new Promise<unknown[]>((resolve, reject) => {
      const query = new pg.Query({ text: 'select * from series(7)', rows: 3 } as pg.QueryConfig);
      const seen: unknown[] = [];
      query.on('row', (row: unknown) => seen.push(row));
      query.on('end', () => resolve(seen));
      query.on('error', reject);
      client.query(query);
    });
    expect(rows).toHaveLength(7);
    expect(rows.at(-1)).toEqual({ i: 7, label: 'row 7' });
  });

  it('named statements and portals live until closed; a portal survives Sync inside a transaction block', async () => {
    const raw = await RawClient.session(world.port);
    raw.query('begin');
    await raw.untilReady();
    raw.parse('s1', 'select * from series(3)');
    raw.bind('c1', 's1');
    raw.execute('c1', 1);
    raw.sync();
    expect(types(await raw.untilReady())).toBe('12DsZ');
    raw.execute('c1', 0);
    raw.sync();
    expect(types(await raw.untilReady())).toBe('DDCZ');
    raw.send('C', Buffer.from('Pc1\0'));
    raw.send('C', Buffer.from('Ss1\0'));
    raw.bind('', 's1');
    raw.sync();
    const closed = await raw.untilReady();
    expect(types(closed)).toBe('33EZ');
    expect(errorOf(closed[2]!)).toMatchObject({ C: '26000', M: 'prepared statement "s1" does not exist' });
    raw.end();
  });

  it('after an error everything up to Sync is skipped; then the connection serves again', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('', 'select 1');
    raw.bind('', '');
    raw.execute('');
    raw.parse('', 'select error');
    raw.bind('', '');
    raw.execute('');
    raw.parse('', 'select 2');
    raw.bind('', '');
    raw.execute('');
    raw.sync();
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('12DC12EZ');
    expect(errorOf(messages[6]!)).toMatchObject({ C: '42703', P: '8' });
    raw.query('select 4');
    expect(types(await raw.untilReady())).toBe('TDCZ');
    raw.end();
  });

  it('the errors of PostgreSQL: a named statement twice, unknown statement and portal, parameter count, format code', async () => {
    const raw = await RawClient.session(world.port);
    const errorAfter = async (send: () => void) => {
      send();
      raw.sync();
      const messages = await raw.untilReady();
      return errorOf(messages.find((m) => m.type === 'E')!);
    };
    raw.parse('dup', 'select 1');
    raw.sync();
    await raw.untilReady();
    expect(await errorAfter(() => raw.parse('dup', 'select 1'))).toMatchObject({
      C: '42P05',
      M: 'prepared statement "dup" already exists',
    });
    expect(await errorAfter(() => raw.bind('', 'nope'))).toMatchObject({ C: '26000' });
    expect(await errorAfter(() => raw.execute('nope'))).toMatchObject({
      C: '34000',
      M: 'portal "nope" does not exist',
    });
    expect(await errorAfter(() => raw.describe('P', 'nope'))).toMatchObject({ C: '34000' });
    expect(await errorAfter(() => raw.bind('', 'dup', ['1']))).toMatchObject({
      C: '08P01',
      M: 'bind message supplies 1 parameters, but prepared statement "dup" requires 0',
    });
    expect(await errorAfter(() => raw.bind('', 'dup', [], [], [2]))).toMatchObject({
      C: '22023',
      M: 'unsupported format code: 2',
    });
    raw.parse('p', 'select $1', [PgType.int4]);
    expect(await errorAfter(() => raw.bind('', 'p', [Buffer.from([1, 2])], [1]))).toMatchObject({
      C: '22P03',
      M: 'incorrect binary data format in bind parameter 1',
    });
    // Unnamed statements may be replaced at will.
    raw.parse('', 'select 1');
    raw.parse('', 'select 2');
    raw.bind('', '');
    raw.execute('');
    raw.sync();
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('112DCZ');
    expect(dataRowOf(messages[3]!)).toEqual(['2']);
    raw.end();
  });

  it('DEALLOCATE in a simple Query frees a named statement, as psqlODBC does before it reuses a plan name', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('_PLAN0x1', 'select 1');
    raw.sync();
    await raw.untilReady();
    raw.query('DEALLOCATE "_PLAN0x1"');
    const freed = await raw.untilReady();
    expect(types(freed)).toBe('CZ');
    expect(freed[0]!.body.toString()).toBe('DEALLOCATE\0');
    raw.parse('_PLAN0x1', 'select 2');
    raw.bind('', '_PLAN0x1');
    raw.execute('');
    raw.sync();
    expect(types(await raw.untilReady())).toBe('12DCZ');
    raw.query('deallocate prepare nope');
    expect(errorOf((await raw.untilReady())[0]!)).toMatchObject({
      C: '26000',
      M: 'prepared statement "nope" does not exist',
    });
    raw.query('DEALLOCATE ALL');
    expect((await raw.untilReady())[0]!.body.toString()).toBe('DEALLOCATE ALL\0');
    raw.bind('', '_PLAN0x1');
    raw.sync();
    expect(errorOf((await raw.untilReady())[0]!)).toMatchObject({ C: '26000' });
    raw.end();
  });

  it('an empty statement answers EmptyQueryResponse to Execute', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('', '');
    raw.bind('', '');
    raw.describe('P', '');
    raw.execute('');
    raw.sync();
    expect(types(await raw.untilReady())).toBe('12nIZ');
    raw.end();
  });

  it('Flush sends what is pending without ending the pipeline', async () => {
    const raw = await RawClient.session(world.port);
    raw.parse('', 'select 5');
    raw.send('H');
    expect((await raw.read()).type).toBe('1');
    raw.sync();
    expect(types(await raw.untilReady())).toBe('Z');
    raw.end();
  });
});

describe('psql 15', () => {
  it('prints every result of a string with -c', async () => {
    const result = await psql(world.port, ['-At', '-c', 'select * from series(3)']);
    expect(result).toMatchObject({ code: 0, stdout: '1|row 1\n2|row 2\n3|row 3\n' });
  });

  it('shows an error with its position and hint, exit code 1', async () => {
    const result = await psql(world.port, ['-c', 'select error']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ERROR:  column "nope" does not exist');
    expect(result.stderr).toContain('LINE 1: select error');
    expect(result.stderr).toContain('HINT:  Look at /fields.');
  });
});
