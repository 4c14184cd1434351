import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import pg from 'pg';
import { selfSignedPair } from '../../src/http/tls.js';
import { PgType } from '../../src/sql-endpoint/wire/pg-types.js';
import { makeScramVerifier } from '../../src/sql-endpoint/wire/scram.js';
import {
  startSqlWireServer,
  type SqlWireServer,
  type SqlWireServerOptions,
} from '../../src/sql-endpoint/wire/server.js';
import {
  SqlError,
  type PreparedSql,
  type ScramVerifier,
  type SqlAuthenticator,
  type SqlColumn,
  type SqlParam,
  type SqlResult,
  type SqlSession,
  type SqlValue,
  type TransactionStatus,
} from '../../src/sql-endpoint/wire/session.js';

/*
 * The wire tier's world: the real server on port 0 with a self-signed pair, and an in-test
 * SqlSession that answers a few fixed statements (the real session is another module's). What it
 * answers is listed in STATEMENTS; `select pg_sleep(N)` waits on its AbortSignal so tests can see
 * cancels and disconnects arrive.
 */

export const PASSWORD = 'correct horse battery staple';
export const USER = 'analyst';

/** One per server: the cert is slow to make (EC keygen) only compared with nothing. */
let pair: Promise<{ cert: string; key: string }> | undefined;
export const tlsPair = () => (pair ??= selfSignedPair(Date.now()));

export interface WireWorld {
  readonly server: SqlWireServer;
  readonly port: number;
  readonly authenticator: FixtureAuthenticator;
  readonly logs: string[];
  /** A node-postgres client config for the fixture user over TLS. */
  pgConfig(overrides?: Partial<pg.ClientConfig>): pg.ClientConfig;
  connect(overrides?: Partial<pg.ClientConfig>): Promise<pg.Client>;
  close(): Promise<void>;
}

export async function startWireWorld(options: Partial<SqlWireServerOptions> = {}): Promise<WireWorld> {
  const authenticator = new FixtureAuthenticator({ [USER]: PASSWORD });
  const logs: string[] = [];
  const server = await startSqlWireServer({
    host: '127.0.0.1',
    port: 0,
    tls: await tlsPair(),
    authenticator,
    serverVersion: '15.0 (adreport 0.1.0)',
    log: (line) => logs.push(line),
    ...options,
  });
  const clients: pg.Client[] = [];
  const pgConfig = (overrides: Partial<pg.ClientConfig> = {}): pg.ClientConfig => ({
    host: '127.0.0.1',
    port: server.port,
    user: USER,
    password: PASSWORD,
    database: 'reports',
    ssl: { rejectUnauthorized: false },
    ...overrides,
  });
  return {
    server,
    port: server.port,
    authenticator,
    logs,
    pgConfig,
    async connect(overrides) {
      const client = new pg.Client(pgConfig(overrides));
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.end().catch(() => {})));
      await server.close();
    },
  };
}

export class FixtureAuthenticator implements SqlAuthenticator {
  readonly sessions: FixtureSession[] = [];
  readonly verifierCalls: string[] = [];
  /** When set, openSession waits for it (a slow session start). */
  openGate: Promise<void> | undefined;
  private readonly verifiers: Map<string, ScramVerifier>;

  constructor(users: Record<string, string>) {
    this.verifiers = new Map(Object.entries(users).map(([user, password]) => [user, makeScramVerifier(password)]));
  }

  async verifierOf(user: string): Promise<ScramVerifier | undefined> {
    this.verifierCalls.push(user);
    return this.verifiers.get(user);
  }

  async openSession(connection: {
    user: string;
    database: string;
    parameters: Readonly<Record<string, string>>;
  }): Promise<SqlSession> {
    await this.openGate;
    const session = new FixtureSession(connection);
    this.sessions.push(session);
    return session;
  }
}

const int4 = (name: string): SqlColumn => ({ name, typeOid: PgType.int4 });
const text = (name: string): SqlColumn => ({ name, typeOid: PgType.text });

/** Every type of pg-types.ts once, with values whose text PostgreSQL 15 prints as TYPES_ROW_TEXT says. */
export const TYPES_COLUMNS: readonly SqlColumn[] = [
  { name: 'b', typeOid: PgType.bool },
  { name: 'i2', typeOid: PgType.int2 },
  { name: 'i4', typeOid: PgType.int4 },
  { name: 'i8', typeOid: PgType.int8 },
  { name: 'f4', typeOid: PgType.float4 },
  { name: 'f8', typeOid: PgType.float8 },
  { name: 'n', typeOid: PgType.numeric },
  { name: 't', typeOid: PgType.text },
  { name: 'v', typeOid: PgType.varchar },
  { name: 'c', typeOid: PgType.bpchar },
  { name: 'nm', typeOid: PgType.name },
  { name: 'o', typeOid: PgType.oid },
  { name: 'd', typeOid: PgType.date },
  { name: 'ts', typeOid: PgType.timestamp },
  { name: 'tz', typeOid: PgType.timestamptz },
  { name: 'j', typeOid: PgType.json },
  { name: 'u', typeOid: PgType.unknown },
  { name: 'nul', typeOid: PgType.text },
];
export const TYPES_ROW: readonly SqlValue[] = [
  true,
  -32768,
  2147483647,
  9007199254740993n,
  0.1,
  1 / 3,
  '-12345.678900',
  'Grüße, 世界',
  'vc',
  'ab  ',
  'pg_class',
  4294967295,
  '2024-02-29',
  '2024-02-29T12:34:56.789012',
  '2024-02-29T12:34:56.5+02:00',
  '{"a": [1, 2]}',
  'unknown text',
  null,
];
export const TYPES_ROW_TEXT = [
  't',
  '-32768',
  '2147483647',
  '9007199254740993',
  '0.1',
  '0.3333333333333333',
  '-12345.678900',
  'Grüße, 世界',
  'vc',
  'ab  ',
  'pg_class',
  '4294967295',
  '2024-02-29',
  '2024-02-29 12:34:56.789012',
  '2024-02-29 10:34:56.5+00',
  '{"a": [1, 2]}',
  'unknown text',
  null,
];

const SETTINGS: Record<string, string> = { max_identifier_length: '63', transaction_isolation: 'read committed' };

interface Statement {
  columns(paramTypes: readonly number[]): readonly SqlColumn[] | null;
  run(params: readonly SqlParam[], signal: AbortSignal, session: FixtureSession): Promise<SqlResult>;
}

const rows = (columns: readonly SqlColumn[], values: SqlValue[][]): SqlResult => ({
  columns,
  rows: values,
  commandTag: `SELECT ${values.length}`,
});

/** The fixture's "SQL": a few statements by pattern. */
function statementOf(sql: string): Statement {
  let match: RegExpExecArray | null;
  if ((match = /^select (-?\d+)$/i.exec(sql))) {
    const value = Number(match[1]);
    return { columns: () => [int4('?column?')], run: async () => rows([int4('?column?')], [[value]]) };
  }
  if (/^select \$1(, \$\d+)*$/.test(sql))
    return {
      columns: (types) => types.map((typeOid, i) => ({ name: `p${i + 1}`, typeOid })),
      run: async (params) => ({
        columns: params.map((_, i) => ({ name: `p${i + 1}`, typeOid: PgType.text })),
        rows: [params as SqlValue[]],
        commandTag: 'SELECT 1',
      }),
    };
  if ((match = /^select \* from series\((\d+)\)$/i.exec(sql))) {
    const count = Number(match[1]);
    const columns = [int4('i'), text('label')];
    return {
      columns: () => columns,
      run: async () =>
        rows(
          columns,
          Array.from({ length: count }, (_, i) => [i + 1, `row ${i + 1}`]),
        ),
    };
  }
  if ((match = /^select pg_sleep\((\d+)\)$/i.exec(sql))) {
    const ms = Number(match[1]) * 1000;
    return {
      columns: () => [text('pg_sleep')],
      run: (_params, signal, session) =>
        new Promise<SqlResult>((resolve, reject) => {
          session.sleeping.push(signal);
          session.events.emit('sleeping');
          const timer = setTimeout(() => resolve(rows([text('pg_sleep')], [['']])), ms);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            session.abortedSleeps++;
            session.events.emit('aborted');
            reject(new SqlError('57014', 'canceling statement due to user request'));
          });
        }),
    };
  }
  if (sql === 'select types')
    return { columns: () => TYPES_COLUMNS, run: async () => rows([...TYPES_COLUMNS], [[...TYPES_ROW]]) };
  if (sql === 'select error')
    return {
      columns: () => [int4('nope')],
      run: async () => {
        throw new SqlError('42703', 'column "nope" does not exist', { position: 8, hint: 'Look at /fields.' });
      },
    };
  if (sql === 'select boom')
    return {
      columns: () => [int4('boom')],
      run: async () => {
        throw new Error('boom: a bug in the session');
      },
    };
  if (sql === 'select fatal')
    return {
      columns: () => [int4('fatal')],
      run: async () => {
        throw new SqlError('57P01', 'terminating connection', { severity: 'FATAL' });
      },
    };
  if (/^(begin|commit|rollback)$/i.test(sql)) {
    const tag = sql.toUpperCase();
    return {
      columns: () => null,
      run: async (_params, _signal, session) => {
        session.status = tag === 'BEGIN' ? 'transaction' : 'idle';
        return { columns: null, rows: [], commandTag: tag };
      },
    };
  }
  // Drivers' connection setup: pgJDBC's SET extra_float_digits = 3, psqlODBC's SHOW max_identifier_length.
  if (/^set /i.test(sql))
    return { columns: () => null, run: async () => ({ columns: null, rows: [], commandTag: 'SET' }) };
  if (/^select oid, typbasetype from pg_type where typname = 'lo'$/i.test(sql)) {
    const columns = [
      { name: 'oid', typeOid: PgType.oid },
      { name: 'typbasetype', typeOid: PgType.oid },
    ];
    return { columns: () => columns, run: async () => rows(columns, []) };
  }
  if ((match = /^show (\w+)$/i.exec(sql))) {
    const column = text(match[1]!.toLowerCase());
    const value = SETTINGS[column.name] ?? '';
    return { columns: () => [column], run: async () => ({ columns: [column], rows: [[value]], commandTag: 'SHOW' }) };
  }
  if (sql === '') return { columns: () => null, run: async () => ({ columns: null, rows: [], commandTag: '' }) };
  return {
    columns: () => null,
    run: async () => {
      throw new SqlError('42601', `syntax error at or near "${sql.split(' ')[0]}"`, { position: 1 });
    },
  };
}

function splitStatements(sql: string): string[] {
  return sql
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

export class FixtureSession implements SqlSession {
  status: TransactionStatus = 'idle';
  closed = false;
  readonly sleeping: AbortSignal[] = [];
  abortedSleeps = 0;
  readonly events = new (class extends EventTarget {
    emit(type: string) {
      this.dispatchEvent(new Event(type));
    }
  })();

  constructor(readonly connection: { user: string; database: string; parameters: Readonly<Record<string, string>> }) {}

  /** Resolves at the next `type` event ('sleeping', 'aborted', 'closed'), or now if the condition already holds. */
  when(type: 'sleeping' | 'aborted' | 'closed', already: () => boolean): Promise<void> {
    if (already()) return Promise.resolve();
    return new Promise((resolve) => this.events.addEventListener(type, () => resolve(), { once: true }));
  }

  async *query(sql: string, signal: AbortSignal): AsyncIterable<SqlResult> {
    for (const part of splitStatements(sql)) yield await this.run(part, [], signal);
  }

  async prepare(sql: string, paramTypeOids: readonly number[]): Promise<PreparedSql> {
    const parts = splitStatements(sql);
    if (parts.length > 1) throw new SqlError('42601', 'cannot insert multiple commands into a prepared statement');
    const text = parts[0] ?? '';
    const statement = statementOf(text);
    const count = Math.max(0, ...[...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const types = Array.from({ length: count }, (_, i) => paramTypeOids[i] || PgType.text);
    const columns = statement.columns(types);
    return {
      paramTypeOids: types,
      columns,
      execute: async (params, signal) => {
        const result = await this.run(text, params, signal);
        return columns && result.columns ? { ...result, columns } : result;
      },
    };
  }

  transactionStatus(): TransactionStatus {
    return this.status;
  }

  close(): void {
    this.closed = true;
    this.events.emit('closed');
  }

  private async run(sql: string, params: readonly SqlParam[], signal: AbortSignal): Promise<SqlResult> {
    const statement = statementOf(sql);
    if (this.status === 'error' && !/^(rollback|commit)$/i.test(sql))
      throw new SqlError('25P02', 'current transaction is aborted, commands ignored until end of transaction block');
    try {
      return await statement.run(params, signal, this);
    } catch (error) {
      if (this.status === 'transaction') this.status = 'error';
      throw error;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// A raw protocol client: what the drivers do not let a test do (max-rows Execute, CancelRequest,
// half a startup, exact bytes).

export interface BackendMessage {
  readonly type: string;
  readonly body: Buffer;
}

export class RawClient {
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  ended = false;
  processId = 0;
  secretKey = 0;

  private constructor(public socket: net.Socket | tls.TLSSocket) {
    this.listen(socket);
  }

  private listen(socket: net.Socket | tls.TLSSocket): void {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }

  static async plain(port: number): Promise<RawClient> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    // Each message is its own write: without this, Nagle holds the second one until an ACK comes.
    socket.setNoDelay(true);
    return new RawClient(socket);
  }

  /** SSLRequest, 'S', TLS handshake. */
  static async secure(port: number): Promise<RawClient> {
    const client = await RawClient.plain(port);
    client.socket.write(int32s(8, 80877103));
    const answer = await client.readBytes(1);
    if (answer.toString() !== 'S') throw new Error(`SSLRequest answered ${answer.toString()}`);
    const raw = client.socket;
    raw.removeAllListeners('data');
    raw.removeAllListeners('close');
    const secure = tls.connect({ socket: raw as net.Socket, rejectUnauthorized: false });
    await new Promise((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
    client.socket = secure;
    client.listen(secure);
    return client;
  }

  /** A secure connection through SCRAM to the first ReadyForQuery. */
  static async session(port: number, user = USER, password = PASSWORD): Promise<RawClient> {
    const client = await RawClient.secure(port);
    client.startup({ user, database: 'reports' });
    await client.scram(user, password);
    for (;;) {
      const message = await client.read();
      if (message.type === 'K') {
        client.processId = message.body.readInt32BE(0);
        client.secretKey = message.body.readInt32BE(4);
      }
      if (message.type === 'E') throw new Error(`startup failed: ${errorOf(message).M}`);
      if (message.type === 'Z') return client;
    }
  }

  startup(parameters: Record<string, string>, version = 196608): void {
    const pairs = Object.entries(parameters).flatMap(([k, v]) => [cstring(k), cstring(v)]);
    const body = Buffer.concat([int32s(version), ...pairs, Buffer.from([0])]);
    this.socket.write(Buffer.concat([int32s(body.length + 4), body]));
  }

  async scram(_user: string, password: string): Promise<void> {
    const sasl = await this.read();
    if (sasl.type !== 'R' || sasl.body.readInt32BE(0) !== 10)
      throw new Error(`expected AuthenticationSASL, got ${sasl.type}`);
    const clientNonce = crypto.randomBytes(18).toString('base64');
    const clientFirstBare = `n=,r=${clientNonce}`;
    const first = Buffer.from(`n,,${clientFirstBare}`);
    this.send('p', Buffer.concat([cstring('SCRAM-SHA-256'), int32s(first.length), first]));
    const cont = await this.read();
    if (cont.type !== 'R') throw new Error(`expected SASLContinue, got ${cont.type}: ${errorOf(cont).M}`);
    const serverFirst = cont.body.subarray(4).toString();
    const attrs = Object.fromEntries(serverFirst.split(',').map((a) => [a[0], a.slice(2)]));
    const salted = crypto.pbkdf2Sync(password, Buffer.from(attrs.s!, 'base64'), Number(attrs.i), 32, 'sha256');
    const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
    const storedKey = crypto.createHash('sha256').update(clientKey).digest();
    const withoutProof = `c=biws,r=${attrs.r}`;
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = crypto.createHmac('sha256', storedKey).update(authMessage).digest();
    const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]!));
    this.send('p', Buffer.from(`${withoutProof},p=${proof.toString('base64')}`));
  }

  send(type: string, body: Buffer = Buffer.alloc(0)): void {
    this.socket.write(Buffer.concat([Buffer.from(type), int32s(body.length + 4), body]));
  }

  query(sql: string): void {
    this.send('Q', cstring(sql));
  }

  parse(name: string, sql: string, types: number[] = []): void {
    this.send('P', Buffer.concat([cstring(name), cstring(sql), int16s(types.length), ...types.map((t) => int32s(t))]));
  }

  bind(
    portal: string,
    statement: string,
    params: (Buffer | string | null)[] = [],
    formats: number[] = [],
    resultFormats: number[] = [],
  ): void {
    const values = params.map((p) => {
      if (p === null) return int32s(-1);
      const bytes = typeof p === 'string' ? Buffer.from(p) : p;
      return Buffer.concat([int32s(bytes.length), bytes]);
    });
    this.send(
      'B',
      Buffer.concat([
        cstring(portal),
        cstring(statement),
        int16s(formats.length),
        ...formats.map((f) => int16s(f)),
        int16s(params.length),
        ...values,
        int16s(resultFormats.length),
        ...resultFormats.map((f) => int16s(f)),
      ]),
    );
  }

  describe(target: 'S' | 'P', name: string): void {
    this.send('D', Buffer.concat([Buffer.from(target), cstring(name)]));
  }

  execute(portal: string, maxRows = 0): void {
    this.send('E', Buffer.concat([cstring(portal), int32s(maxRows)]));
  }

  sync(): void {
    this.send('S');
  }

  async readBytes(count: number): Promise<Buffer> {
    while (this.buffer.length < count) {
      if (this.ended) throw new Error(`connection closed after ${this.buffer.length} of ${count} bytes`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    const bytes = this.buffer.subarray(0, count);
    this.buffer = this.buffer.subarray(count);
    return bytes;
  }

  async read(): Promise<BackendMessage> {
    const header = await this.readBytes(5);
    const body = await this.readBytes(header.readInt32BE(1) - 4);
    return { type: String.fromCharCode(header[0]!), body: Buffer.from(body) };
  }

  /** Messages up to and including the next ReadyForQuery. */
  async untilReady(): Promise<BackendMessage[]> {
    const messages: BackendMessage[] = [];
    for (;;) {
      const message = await this.read();
      messages.push(message);
      if (message.type === 'Z') return messages;
    }
  }

  /** Resolves when the server closed the connection, with whatever bytes it sent first. */
  async closed(): Promise<Buffer> {
    while (!this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.buffer;
  }

  end(): void {
    this.socket.destroy();
  }
}

export const int32s = (...values: number[]) => {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => out.writeInt32BE(v, i * 4));
  return out;
};
export const int16s = (...values: number[]) => {
  const out = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => out.writeInt16BE(v, i * 2));
  return out;
};
const cstring = (value: string) => Buffer.from(`${value}\0`);

/** An ErrorResponse's fields by their one-letter codes. */
export function errorOf(message: BackendMessage): Record<string, string> {
  const fields: Record<string, string> = {};
  let offset = 0;
  while (offset < message.body.length && message.body[offset] !== 0) {
    const code = String.fromCharCode(message.body[offset]!);
    const end = message.body.indexOf(0, offset + 1);
    fields[code] = message.body.subarray(offset + 1, end).toString();
    offset = end + 1;
  }
  return fields;
}

/** A DataRow's values as text (binary values as hex). */
export function dataRowOf(message: BackendMessage, binary = false): (string | null)[] {
  const count = message.body.readInt16BE(0);
  const values: (string | null)[] = [];
  let offset = 2;
  for (let i = 0; i < count; i++) {
    const length = message.body.readInt32BE(offset);
    offset += 4;
    if (length < 0) values.push(null);
    else {
      const bytes = message.body.subarray(offset, offset + length);
      values.push(binary ? bytes.toString('hex') : bytes.toString());
      offset += length;
    }
  }
  return values;
}

export const types = (messages: readonly BackendMessage[]) => messages.map((m) => m.type).join('');

/** psql 15 against the server: exit code, stdout, stderr. */
export function psql(
  port: number,
  args: string[],
  password = PASSWORD,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sql-wire-psql-'));
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/psql',
      [`host=127.0.0.1 port=${port} sslmode=require user=${USER} dbname=reports`, '-X', ...args],
      { env: { PATH: process.env.PATH, HOME: home, PGPASSWORD: password, PGCONNECT_TIMEOUT: '20' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        fs.rmSync(home, { recursive: true, force: true });
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}
