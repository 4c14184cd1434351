import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  errorOf,
  int32s,
  RawClient,
  startWireWorld,
  types,
  type FixtureSession,
  type WireWorld,
} from './sql-wire-fixture.js';

/*
 * A connection's life around its statements (issue 41): CancelRequest on a connection of its own
 * (plain, as libpq 15 and pgJDBC send it, or over TLS), a client that goes away mid-statement, the
 * idle timeout, the server's shutdown, a large result. Every wait is for an event: the fixture
 * session says when a statement sleeps, is aborted, is closed.
 */

let world: WireWorld;
beforeAll(async () => {
  world = await startWireWorld();
});
afterAll(async () => {
  await world?.close();
});

const sessionOf = (client: pg.Client): FixtureSession => {
  const pid = (client as unknown as { processID: number }).processID;
  expect(pid).toBeGreaterThan(0);
  return world.authenticator.sessions.at(-1)!;
};

/** Sends a CancelRequest on a fresh connection; resolves with what the server answered on it (nothing, always). */
async function cancelRequest(port: number, processId: number, secretKey: number, overTls = false): Promise<Buffer> {
  const client = overTls ? await RawClient.secure(port) : await RawClient.plain(port);
  client.socket.write(int32s(16, 80877102, processId, secretKey));
  return client.closed();
}

const keyOf = (client: pg.Client) => client as unknown as { processID: number; secretKey: number };

describe('CancelRequest', () => {
  it('sent in plain TCP with the right key aborts the running statement: 57014, and no answer on the cancel connection', async () => {
    const client = await world.connect();
    const session = sessionOf(client);
    const running = client.query('select pg_sleep(60)').catch((error: unknown) => error as pg.DatabaseError);
    await session.when('sleeping', () => session.sleeping.length > 0);
    const answer = await cancelRequest(world.port, keyOf(client).processID, keyOf(client).secretKey);
    expect(answer.length).toBe(0);
    const error = await running;
    expect({ code: (error as pg.DatabaseError).code, message: (error as pg.DatabaseError).message }).toEqual({
      code: '57014',
      message: 'canceling statement due to user request',
    });
    // The connection goes on.
    expect((await client.query('select 1')).rows).toEqual([{ '?column?': 1 }]);
  });

  it('after an SSLRequest too', async () => {
    const client = await world.connect();
    const session = sessionOf(client);
    const running = client.query('select pg_sleep(60)').catch((error: unknown) => error as pg.DatabaseError);
    await session.when('sleeping', () => session.sleeping.length > 0);
    expect((await cancelRequest(world.port, keyOf(client).processID, keyOf(client).secretKey, true)).length).toBe(0);
    expect(((await running) as pg.DatabaseError).code).toBe('57014');
  });

  it('a wrong secret or an unknown process id is ignored, just as silently', async () => {
    const client = await world.connect();
    const session = sessionOf(client);
    const running = client.query('select pg_sleep(60)').catch((error: unknown) => error as pg.DatabaseError);
    await session.when('sleeping', () => session.sleeping.length > 0);
    const { processID, secretKey } = keyOf(client);
    expect((await cancelRequest(world.port, processID, secretKey ^ 1)).length).toBe(0);
    expect((await cancelRequest(world.port, processID ^ 0x40000000, secretKey)).length).toBe(0);
    expect(session.abortedSleeps).toBe(0);
    expect(session.sleeping[0]!.aborted).toBe(false);
    await cancelRequest(world.port, processID, secretKey);
    expect(((await running) as pg.DatabaseError).code).toBe('57014');
  });

  it('a cancel in an extended-protocol pipeline fails that Execute and skips to Sync', async () => {
    const raw = await RawClient.session(world.port);
    const session = world.authenticator.sessions.at(-1)!;
    raw.parse('', 'select pg_sleep(60)');
    raw.bind('', '');
    raw.execute('');
    raw.parse('', 'select 1');
    raw.bind('', '');
    raw.execute('');
    raw.sync();
    await session.when('sleeping', () => session.sleeping.length > 0);
    await cancelRequest(world.port, raw.processId, raw.secretKey);
    const messages = await raw.untilReady();
    expect(types(messages)).toBe('12EZ');
    expect(errorOf(messages[2]!)).toMatchObject({ C: '57014' });
    raw.end();
  });
});

describe('a client that goes away', () => {
  it('mid-statement: the statement is aborted and the session closed', async () => {
    const raw = await RawClient.session(world.port);
    const session = world.authenticator.sessions.at(-1)!;
    raw.query('select pg_sleep(60)');
    await session.when('sleeping', () => session.sleeping.length > 0);
    raw.end();
    await session.when('aborted', () => session.abortedSleeps > 0);
    await session.when('closed', () => session.closed);
    expect(session.sleeping[0]!.aborted).toBe(true);
  });

  it('with Terminate: the session is closed', async () => {
    const raw = await RawClient.session(world.port);
    const session = world.authenticator.sessions.at(-1)!;
    raw.send('X');
    await raw.closed();
    await session.when('closed', () => session.closed);
  });

  it('a protocol violation is FATAL 08P01 and the end of the connection', async () => {
    const raw = await RawClient.session(world.port);
    raw.send('z', Buffer.alloc(0));
    expect(errorOf(await raw.read())).toMatchObject({ S: 'FATAL', C: '08P01', M: 'invalid frontend message type 122' });
    await raw.closed();
  });
});

describe('large results', () => {
  it('200,000 rows arrive whole and in order through node-postgres', async () => {
    const client = await world.connect();
    const result = await client.query('select * from series(200000)');
    expect(result.rowCount).toBe(200_000);
    expect(result.rows[199_999]).toEqual({ i: 200_000, label: 'row 200000' });
  });

  it('a client that reads nothing holds the server at the socket: it can still cancel, and reads the rest after', async () => {
    const raw = await RawClient.session(world.port);
    raw.socket.pause();
    raw.query('select * from series(300000)');
    // Reading nothing, the client gets nothing more until it reads: cancel it from the side, then read.
    await cancelRequest(world.port, raw.processId, raw.secretKey);
    raw.socket.resume();
    const messages = await raw.untilReady();
    const last = messages.at(-2)!;
    // Either the cancel stopped the rows between batches (57014), or every row had already been sent.
    if (last.type === 'E') {
      expect(errorOf(last)).toMatchObject({ C: '57014' });
      expect(messages.filter((m) => m.type === 'D').length).toBeLessThan(300_000);
    } else expect(messages.filter((m) => m.type === 'D').length).toBe(300_000);
    raw.end();
  });
});

describe('timeouts and shutdown', () => {
  it('an idle session past idleTimeoutMs is closed with FATAL 57P05', async () => {
    const idle = await startWireWorld({ idleTimeoutMs: 200 });
    try {
      const client = await idle.connect();
      const ended = new Promise<pg.DatabaseError>((resolve) =>
        client.once('error', (error) => resolve(error as pg.DatabaseError)),
      );
      expect(((await ended) as pg.DatabaseError).code).toBe('57P05');
    } finally {
      await idle.close();
    }
  });

  it('close() ends every session with 57P01, aborts running statements, and resolves when all sockets are closed', async () => {
    const closing = await startWireWorld();
    const client = await closing.connect();
    const session = closing.authenticator.sessions.at(-1)!;
    const running = client.query('select pg_sleep(60)').catch((error: unknown) => error as pg.DatabaseError);
    await session.when('sleeping', () => session.sleeping.length > 0);
    const unauthenticated = net.connect(closing.port, '127.0.0.1');
    await new Promise((resolve) => unauthenticated.once('connect', resolve));
    const unauthenticatedClosed = new Promise((resolve) => unauthenticated.once('close', resolve));
    await closing.server.close();
    expect(((await running) as pg.DatabaseError).code).toBe('57P01');
    expect(session.sleeping[0]!.aborted).toBe(true);
    await unauthenticatedClosed;
    await session.when('closed', () => session.closed);
    await closing.close();
  });
});
