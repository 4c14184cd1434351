import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * A ClickHouse server for tests: ClickHouse's HTTP interface (the part @clickhouse/client speaks)
 * in front of embedded ClickHouse (chdb, the same SQL engine). No ClickHouse server can be
 * installed on this machine; this lets the service's server path run for real (URL, credentials,
 * database, query parameters and settings over HTTP, Parquet inserts streamed in the body) and be
 * switched off and on to test an unreachable engine.
 *
 * Query parameters are substituted by this shim as literals (a server binds them after parsing;
 * the service never sees the difference). Settings become `SET`s of the one chdb session.
 */
export interface ClickHouseShim {
  readonly port: number;
  /** `http://user:password@127.0.0.1:port/database`. */
  url(database: string): string;
  /** Stops answering: the listener closes and open connections are cut. */
  stop(): Promise<void>;
  /** Answers again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** Requests answered (ping, queries, inserts). */
  readonly requests: number;
}

interface Reply {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
}

const RESERVED = new Set(['query_id', 'database', 'query', 'session_id', 'role', 'default_format']);

export async function startClickHouseShim(
  directory: string,
  credentials: { user: string; password: string },
): Promise<ClickHouseShim> {
  const { Session } = await import('chdb');
  fs.mkdirSync(directory, { recursive: true });
  const session = new Session(path.join(directory, 'data'));
  const uploads = path.join(directory, 'uploads');
  fs.mkdirSync(uploads, { recursive: true });
  let uploadCount = 0;
  let requests = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let currentDatabase = '';
  const sockets = new Set<Socket>();

  /** chdb runs one statement at a time here, in arrival order. */
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work, work);
    chain = next.catch(() => undefined);
    return next;
  };

  async function run(sql: string): Promise<Buffer> {
    const format = /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(sql)?.[1] ?? 'TabSeparated';
    const result = await session.queryAsync(sql, { format });
    return Buffer.from(result.bytes());
  }

  async function answer(req: http.IncomingMessage, body: Buffer): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://shim');
    if (url.pathname === '/ping') return { status: 200, body: Buffer.from('Ok.\n'), headers: {} };
    const [user, password] = userOf(req);
    if (user !== credentials.user || password !== credentials.password) {
      return failure(
        516,
        `${user}: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)`,
      );
    }
    const params = url.searchParams;
    const database = params.get('database') ?? 'default';
    let sql = params.get('query') ?? body.toString('utf8');
    let insertFile: string | undefined;
    if (params.has('query') && body.length > 0) {
      // INSERT INTO t (cols) FORMAT Parquet + the data in the body: read from a file instead.
      const insert = /^\s*INSERT\s+INTO\s+(.+?)\s+FORMAT\s+(\w+)\s*$/is.exec(sql);
      if (!insert) return failure(62, 'the shim takes INSERT ... FORMAT <format> with a body only. (SYNTAX_ERROR)');
      insertFile = path.join(uploads, `upload-${++uploadCount}`);
      fs.writeFileSync(insertFile, body);
      sql = `INSERT INTO ${insert[1]} SELECT * FROM file('${insertFile}', ${insert[2]})`;
    }
    sql = substituteParams(sql, params);
    try {
      return await serial(async () => {
        if (database !== currentDatabase) {
          await session.queryAsync(`CREATE DATABASE IF NOT EXISTS \`${database.replace(/`/g, '')}\``);
          await session.queryAsync(`USE \`${database.replace(/`/g, '')}\``);
          currentDatabase = database;
        }
        for (const [key, value] of params) {
          if (RESERVED.has(key) || key.startsWith('param_') || !/^[a-z_0-9]+$/.test(key)) continue;
          if (key === 'enable_http_compression') continue;
          await session.queryAsync(`SET ${key} = ${/^-?\d+(\.\d+)?$/.test(value) ? value : quoteLiteral(value)}`);
        }
        const out = await run(sql);
        const gzip =
          params.get('enable_http_compression') === '1' && /gzip/.test(String(req.headers['accept-encoding']));
        const reply: Reply = gzip
          ? { status: 200, body: gzipSync(out), headers: { 'Content-Encoding': 'gzip' } }
          : { status: 200, body: out, headers: {} };
        return reply;
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code = /Code: (\d+)\./.exec(message)?.[1] ?? '1000';
      return {
        status: 500,
        body: Buffer.from(message.startsWith('Code:') ? message : `Code: ${code}. DB::Exception: ${message}`),
        headers: { 'X-ClickHouse-Exception-Code': code },
      };
    } finally {
      if (insertFile) fs.rmSync(insertFile, { force: true });
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests++;
      answer(req, Buffer.concat(chunks)).then(
        (reply) => {
          res.writeHead(reply.status, { 'Content-Length': String(reply.body.length), ...reply.headers });
          res.end(reply.body);
        },
        (error: unknown) => {
          res.writeHead(500);
          res.end(`Code: 1000. DB::Exception: ${String(error)}`);
        },
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    get requests() {
      return requests;
    },
    url: (database) =>
      `http://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async start() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      if (server.listening) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await closed;
      }
      await chain;
      session.close();
    },
  };
}

function failure(code: number, message: string) {
  return {
    status: code === 516 ? 403 : 500,
    body: Buffer.from(`Code: ${code}. DB::Exception: ${message}`),
    headers: { 'X-ClickHouse-Exception-Code': String(code) },
  };
}

function userOf(req: http.IncomingMessage): [string, string] {
  const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
  if (basic) {
    const text = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    return [text.slice(0, colon), text.slice(colon + 1)];
  }
  return [String(req.headers['x-clickhouse-user'] ?? 'default'), String(req.headers['x-clickhouse-key'] ?? '')];
}

/**
 * `{name:Type}` -> a literal of the `param_name` value (ClickHouse's escaped text format): strings
 * unescaped and quoted, other types cast from their text, `\N` a typed NULL.
 */
function substituteParams(sql: string, params: URLSearchParams): string {
  return sql.replace(/\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g, (whole, name: string, type: string) => {
    const value = params.get(`param_${name}`);
    if (value === null) return whole;
    if (value === '\\N')
      return `CAST(NULL, ${quoteLiteral(type.startsWith('Nullable(') ? type : `Nullable(${type})`)})`;
    const inner = type.replace(/^Nullable\((.*)\)$/, '$1').replace(/^LowCardinality\((.*)\)$/, '$1');
    if (inner === 'String') return `CAST(${quoteLiteral(unescapeText(value))}, ${quoteLiteral(type)})`;
    return `CAST(${quoteLiteral(value)}, ${quoteLiteral(type)})`;
  });
}

function unescapeText(text: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', '\\': '\\', "'": "'" };
  return text.replace(/\\(.)/g, (_, c: string) => map[c] ?? c);
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
