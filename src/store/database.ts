import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { fromDuckDBRow, toDuckDBValues, type Row, type SqlParams } from './sql-values.js';
import { WorkLimiter } from './work-limiter.js';
import { OverloadedError } from '../shared/errors.js';

/** What store functions see: one connection, parameters always bound, never pasted. */
export interface Executor {
  all<T extends object = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  one<T extends object = Row>(sql: string, params?: SqlParams): Promise<T | undefined>;
  run(sql: string, params?: SqlParams): Promise<void>;
}

export interface DatabaseOptions {
  readConnections: number;
  maxQueued: number;
  memoryLimit?: string | undefined;
  threads?: number | undefined;
}

/** Work that arrives while the service shuts down; answered 503 like overload. */
export class DatabaseClosedError extends OverloadedError {
  constructor() {
    super(1);
    this.name = 'DatabaseClosedError';
  }
}

/** The file is locked by another process, usually a running server (DESIGN D1). */
export class DatabaseLockedError extends Error {
  constructor(
    readonly dbPath: string,
    readonly holderPid: number | undefined,
  ) {
    const holder = holderPid === undefined ? 'another process' : `a running process (pid ${holderPid})`;
    super(`${dbPath} is held by ${holder}, usually the adreport server; stop it before running admin commands on this file`);
    this.name = 'DatabaseLockedError';
  }
}

/** Prepared statements kept per connection; a profile showed extract + prepare as 4 of 6 native calls per query. */
const STATEMENT_CACHE_SIZE = 256;

class ConnectionExecutor implements Executor {
  private readonly statements = new Map<string, DuckDBPreparedStatement>();

  constructor(private readonly connection: DuckDBConnection) {}

  async all<T extends object = Row>(sql: string, params: SqlParams = []): Promise<T[]> {
    const statement = await this.prepared(sql);
    statement.bind(toDuckDBValues(params));
    const reader = await statement.runAndReadAll();
    return reader.getRowObjectsJS().map((row) => fromDuckDBRow(row) as T);
  }

  async one<T extends object = Row>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    const rows = await this.all<T>(sql, params);
    return rows[0];
  }

  async run(sql: string, params: SqlParams = []): Promise<void> {
    if (params.length === 0) {
      await this.connection.run(sql);
      return;
    }
    const statement = await this.prepared(sql);
    statement.bind(toDuckDBValues(params));
    await statement.run();
  }

  /** Least recently used statements go first once the cache is full. */
  private async prepared(sql: string): Promise<DuckDBPreparedStatement> {
    const cached = this.statements.get(sql);
    if (cached) {
      this.statements.delete(sql);
      this.statements.set(sql, cached);
      return cached;
    }
    const statement = await this.connection.prepare(sql);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      const [oldestSql, oldest] = this.statements.entries().next().value!;
      this.statements.delete(oldestSql);
      oldest.destroySync();
    }
    this.statements.set(sql, statement);
    return statement;
  }

  release(): void {
    for (const statement of this.statements.values()) statement.destroySync();
    this.statements.clear();
  }
}

/**
 * The one DuckDB instance of this process (DESIGN D1): a small pool of read connections,
 * one serialized writer that wraps each unit of work in a transaction, hardened settings.
 */
export class Database {
  private readonly writer: ConnectionExecutor;
  private readonly readers: ConnectionExecutor[];
  private readonly readLimiter: WorkLimiter;
  private readonly writeLimiter: WorkLimiter;
  private closed = false;

  private constructor(
    readonly dbPath: string,
    private readonly instance: DuckDBInstance,
    private readonly connections: DuckDBConnection[],
    options: DatabaseOptions,
  ) {
    this.writer = new ConnectionExecutor(connections[0]!);
    this.readers = connections.slice(1).map((c) => new ConnectionExecutor(c));
    this.readLimiter = new WorkLimiter(this.readers.length, options.maxQueued);
    // One writer: DuckDB's optimistic concurrency would fail one of two transactions on the same row.
    this.writeLimiter = new WorkLimiter(1, options.maxQueued);
  }

  static async open(dbPath: string, options: DatabaseOptions): Promise<Database> {
    const resolved = path.resolve(dbPath);
    fs.mkdirSync(path.dirname(resolved), { recursive: true });
    const config: Record<string, string> = {
      // No internet here, and no extension may be fetched or loaded behind our back.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    };
    if (options.memoryLimit) config.memory_limit = options.memoryLimit;
    if (options.threads) config.threads = String(options.threads);
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(resolved, config);
    } catch (error) {
      throw translateOpenError(error, dbPath);
    }
    const connections: DuckDBConnection[] = [];
    try {
      const first = await instance.connect();
      connections.push(first);
      await harden(first, path.dirname(resolved));
      for (let i = 0; i < options.readConnections; i++) connections.push(await instance.connect());
    } catch (error) {
      for (const c of connections) c.closeSync();
      instance.closeSync();
      throw error;
    }
    return new Database(dbPath, instance, connections, options);
  }

  /** Runs read-only work on a pooled connection; 503 when the queue is full. */
  read<T>(work: (db: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.readLimiter.run(async () => {
      // The limiter admits at most readers.length callers, so one connection is always free.
      const reader = this.readers.pop()!;
      try {
        return await work(reader);
      } finally {
        this.readers.push(reader);
      }
    });
  }

  /** Runs work in one transaction on the single writer: all of it lands, or none of it. */
  write<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.writeLimiter.run(async () => {
      await this.writer.run('BEGIN TRANSACTION');
      try {
        const result = await work(this.writer);
        await this.writer.run('COMMIT');
        return result;
      } catch (error) {
        await this.writer.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Refuses new work, waits for what runs or waits, checkpoints so the next open needs no WAL
   * replay, then closes. Statements must not be destroyed under a query still running.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([this.readLimiter.drained(), this.writeLimiter.drained()]);
    await this.writer.run('CHECKPOINT').catch(() => undefined);
    for (const executor of [this.writer, ...this.readers]) executor.release();
    for (const c of this.connections) c.closeSync();
    this.instance.closeSync();
  }

  private assertOpen(): void {
    if (this.closed) throw new DatabaseClosedError();
  }
}

async function harden(connection: DuckDBConnection, dataDir: string): Promise<void> {
  const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;
  const allowed = [dataDir, os.tmpdir()].map(quote).join(', ');
  // Global so every pooled connection inherits it; lock_configuration last so no query can undo it.
  await connection.run("SET GLOBAL TimeZone = 'UTC'");
  await connection.run(`SET GLOBAL allowed_directories = [${allowed}]`);
  await connection.run('SET GLOBAL enable_external_access = false');
  await connection.run('SET GLOBAL lock_configuration = true');
}

function translateOpenError(error: unknown, dbPath: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/Could not set lock on file/i.test(message)) {
    const pid = /PID (\d+)/.exec(message)?.[1];
    return new DatabaseLockedError(dbPath, pid === undefined ? undefined : Number(pid));
  }
  return error instanceof Error ? error : new Error(message);
}
