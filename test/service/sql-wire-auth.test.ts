import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  errorOf,
  int32s,
  PASSWORD,
  psql,
  RawClient,
  startWireWorld,
  types,
  USER,
  type WireWorld,
} from './sql-wire-fixture.js';

/*
 * The PostgreSQL wire endpoint's front door (issue 41): TLS required, SCRAM-SHA-256 only, an
 * unknown user indistinguishable from a wrong password, the startup parameters, connection limits.
 * Real sockets; node-postgres and psql 15 as the clients, a raw client for what they cannot send.
 */

let world: WireWorld;
beforeAll(async () => {
  world = await startWireWorld({ startupTimeoutMs: 1500 });
});
afterAll(async () => {
  await world?.close();
});

async function connectError(config: pg.ClientConfig): Promise<pg.DatabaseError> {
  const client = new pg.Client(config);
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    return error as pg.DatabaseError;
  } finally {
    await client.end().catch(() => {});
  }
  throw new Error('connected');
}

describe('authentication', () => {
  it('SCRAM-SHA-256 with the right password opens a session of that user on that database', async () => {
    const client = await world.connect({ application_name: 'wire-test' });
    const result = await client.query('select 1');
    expect(result.rows).toEqual([{ '?column?': 1 }]);
    const session = world.authenticator.sessions.at(-1)!;
    expect(session.connection).toMatchObject({ user: USER, database: 'reports' });
    expect(session.connection.parameters.application_name).toBe('wire-test');
    await client.end();
    await session.when('closed', () => session.closed);
  });

  it('a wrong password and an unknown user get the same FATAL 28P01, naming the user', async () => {
    const wrong = await connectError(world.pgConfig({ password: 'nope' }));
    const unknown = await connectError(world.pgConfig({ user: 'mallory', password: 'nope' }));
    expect({ code: wrong.code, severity: wrong.severity, message: wrong.message }).toEqual({
      code: '28P01',
      severity: 'FATAL',
      message: `password authentication failed for user "${USER}"`,
    });
    expect({ code: unknown.code, severity: unknown.severity, message: unknown.message }).toEqual({
      code: '28P01',
      severity: 'FATAL',
      message: 'password authentication failed for user "mallory"',
    });
    expect(world.authenticator.verifierCalls).toContain('mallory');
  });

  it('an unknown user is offered the same salt and iterations on every attempt (nothing tells it apart from a real one)', async () => {
    const serverFirst = async (user: string, port = world.port) => {
      const client = await RawClient.secure(port);
      client.startup({ user, database: 'reports' });
      expect((await client.read()).type).toBe('R');
      const first = Buffer.from('n,,n=,r=abcdefghijklmnop');
      client.send('p', Buffer.concat([Buffer.from('SCRAM-SHA-256\0'), int32s(first.length), first]));
      const answer = await client.read();
      client.end();
      const attributes = answer.body.subarray(4).toString().split(',');
      return attributes.filter((attribute) => !attribute.startsWith('r='));
    };
    const [a, b] = [await serverFirst('nobody'), await serverFirst('nobody')];
    expect(a).toEqual(b);
    expect(a[0]).toMatch(/^s=[A-Za-z0-9+/]{22}==$/);
    expect(a[1]).toBe('i=4096');
    expect(await serverFirst('somebody else')).not.toEqual(a);
    // Across restarts too, given the same mockSecret (as a real user's stored salt stays).
    const mockSecret = Buffer.alloc(32, 9);
    const [first, second] = [await startWireWorld({ mockSecret }), await startWireWorld({ mockSecret })];
    try {
      expect(await serverFirst('nobody', first.port)).toEqual(await serverFirst('nobody', second.port));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('only SCRAM-SHA-256 is offered; another mechanism is FATAL 08P01', async () => {
    const client = await RawClient.secure(world.port);
    client.startup({ user: USER });
    const sasl = await client.read();
    expect(sasl.body.readInt32BE(0)).toBe(10);
    expect(sasl.body.subarray(4).toString()).toBe('SCRAM-SHA-256\0\0');
    client.send('p', Buffer.concat([Buffer.from('SCRAM-SHA-256-PLUS\0'), int32s(-1)]));
    const error = await client.read();
    expect(errorOf(error)).toMatchObject({ S: 'FATAL', C: '08P01' });
    await client.closed();
  });

  it('a client proof for another nonce is refused', async () => {
    const client = await RawClient.secure(world.port);
    client.startup({ user: USER });
    await client.read();
    const first = Buffer.from('n,,n=,r=abc');
    client.send('p', Buffer.concat([Buffer.from('SCRAM-SHA-256\0'), int32s(first.length), first]));
    await client.read();
    client.send('p', Buffer.from(`c=biws,r=abcOTHER,p=${Buffer.alloc(32).toString('base64')}`));
    expect(errorOf(await client.read())).toMatchObject({ S: 'FATAL', C: '08P01', M: 'malformed SCRAM message' });
  });

  it('channel binding data is refused when -PLUS was not offered; "y" (client could bind, thinks we cannot) is accepted', async () => {
    const client = await RawClient.secure(world.port);
    client.startup({ user: USER });
    await client.read();
    const first = Buffer.from('p=tls-server-end-point,,n=,r=abc');
    client.send('p', Buffer.concat([Buffer.from('SCRAM-SHA-256\0'), int32s(first.length), first]));
    expect(errorOf(await client.read())).toMatchObject({ C: '08P01' });

    const yes = await RawClient.secure(world.port);
    yes.startup({ user: USER });
    await yes.read();
    const firstY = Buffer.from('y,,n=,r=abc');
    yes.send('p', Buffer.concat([Buffer.from('SCRAM-SHA-256\0'), int32s(firstY.length), firstY]));
    expect((await yes.read()).type).toBe('R');
    yes.end();
  });
});

describe('TLS', () => {
  it('a StartupMessage without TLS is FATAL 28000 "SSL is required"', async () => {
    const error = await connectError(world.pgConfig({ ssl: false }));
    expect({ code: error.code, severity: error.severity, message: error.message }).toEqual({
      code: '28000',
      severity: 'FATAL',
      message: 'SSL is required',
    });
  });

  it('GSSENCRequest is answered N, and the client may go on to TLS on the same socket', async () => {
    const client = await RawClient.plain(world.port);
    client.socket.write(int32s(8, 80877104));
    expect((await client.readBytes(1)).toString()).toBe('N');
    client.socket.write(int32s(8, 80877103));
    expect((await client.readBytes(1)).toString()).toBe('S');
    client.end();
  });

  it('bytes sent after the SSLRequest before the handshake are refused (CVE-2021-23214)', async () => {
    const client = await RawClient.plain(world.port);
    client.socket.write(Buffer.concat([int32s(8, 80877103), Buffer.from('Q\0\0\0\x0dselect 1\0')]));
    const bytes = await client.closed();
    expect(bytes.subarray(0, 1).toString()).toBe('E');
    expect(bytes.toString()).toContain('received unencrypted data after SSL request');
  });
});

describe('startup', () => {
  it('reports the parameters drivers read, then BackendKeyData, then ReadyForQuery idle', async () => {
    const client = await RawClient.secure(world.port);
    client.startup({ user: USER, database: 'reports', application_name: 'bi-tool' });
    await client.scram(USER, PASSWORD);
    const messages = await client.untilReady();
    client.end();
    expect(types(messages)).toMatch(/^RRS+KZ$/);
    const parameters = Object.fromEntries(
      messages.filter((m) => m.type === 'S').map((m) => m.body.toString().split('\0').slice(0, 2) as [string, string]),
    );
    expect(parameters).toEqual({
      server_version: '15.0 (adreport 0.1.0)',
      server_encoding: 'UTF8',
      client_encoding: 'UTF8',
      DateStyle: 'ISO, MDY',
      IntervalStyle: 'postgres',
      TimeZone: 'UTC',
      integer_datetimes: 'on',
      standard_conforming_strings: 'on',
      is_superuser: 'off',
      session_authorization: USER,
      application_name: 'bi-tool',
      in_hot_standby: 'off',
      default_transaction_read_only: 'on',
    });
    expect(messages.at(-1)!.body.toString()).toBe('I');
    expect(messages.find((m) => m.type === 'K')!.body.length).toBe(8);
  });

  it('a protocol 3.2 client with _pq_ options gets NegotiateProtocolVersion 3.0 and goes on', async () => {
    const client = await RawClient.secure(world.port);
    client.startup({ user: USER, '_pq_.compression': 'on' }, 196610);
    const negotiate = await client.read();
    expect(negotiate.type).toBe('v');
    expect(negotiate.body.readInt32BE(0)).toBe(0);
    expect(negotiate.body.readInt32BE(4)).toBe(1);
    expect((await client.read()).type).toBe('R');
    client.end();
  });

  it('protocol 2 is FATAL 0A000; a missing user name FATAL 28000', async () => {
    const old = await RawClient.secure(world.port);
    old.startup({ user: USER }, 2 << 16);
    expect(errorOf(await old.read())).toMatchObject({ S: 'FATAL', C: '0A000' });
    const anonymous = await RawClient.secure(world.port);
    anonymous.startup({ database: 'reports' });
    expect(errorOf(await anonymous.read())).toMatchObject({
      C: '28000',
      M: 'no PostgreSQL user name specified in startup packet',
    });
  });

  it('a client_encoding other than UTF8 (or SQL_ASCII, its subset) is refused', async () => {
    const latin1 = await RawClient.secure(world.port);
    latin1.startup({ user: USER, client_encoding: 'LATIN1' });
    expect(errorOf(await latin1.read())).toMatchObject({ S: 'FATAL', C: '22023' });
    const utf8 = await RawClient.secure(world.port);
    utf8.startup({ user: USER, client_encoding: 'UTF8' });
    expect((await utf8.read()).type).toBe('R');
    utf8.end();
  });

  it('a socket that does not finish its startup in time is closed', async () => {
    const client = await RawClient.secure(world.port);
    client.startup({ user: USER });
    await client.read();
    const started = Date.now();
    await client.closed();
    expect(Date.now() - started).toBeGreaterThan(500);
  });

  it("the startup timeout is the client's: a session that takes longer to open than it does not cut the connection", async () => {
    const slow = await startWireWorld({ startupTimeoutMs: 200 });
    try {
      // The session opens only well after the timeout would have fired, had it still been running.
      slow.authenticator.openGate = new Promise((resolve) => setTimeout(resolve, 600));
      const client = await slow.connect();
      expect((await client.query('select 1')).rows).toEqual([{ '?column?': 1 }]);
    } finally {
      await slow.close();
    }
  });

  it('beyond maxConnections sessions the next is FATAL 53300; a slot frees when a session ends', async () => {
    const small = await startWireWorld({ maxConnections: 2 });
    try {
      const open = [await small.connect(), await small.connect()];
      const error = await connectError(small.pgConfig());
      expect({ code: error.code, severity: error.severity, message: error.message }).toEqual({
        code: '53300',
        severity: 'FATAL',
        message: 'sorry, too many clients already',
      });
      const first = small.authenticator.sessions[0]!;
      await open[0]!.end();
      await first.when('closed', () => first.closed);
      const again = await small.connect();
      expect((await again.query('select 2')).rows).toEqual([{ '?column?': 2 }]);
    } finally {
      await small.close();
    }
  });
});

describe('psql 15', () => {
  it('connects with sslmode=require and SCRAM, runs -c "select 1"', async () => {
    const result = await psql(world.port, ['-At', '-c', 'select 1']);
    expect(result).toMatchObject({ code: 0, stdout: '1\n' });
  });

  it('a wrong password is its one-line FATAL', async () => {
    const result = await psql(world.port, ['-c', 'select 1'], 'wrong');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`password authentication failed for user "${USER}"`);
  });
});
