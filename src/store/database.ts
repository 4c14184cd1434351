import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBDataChunk,
  DuckDBInstance,
  INTEGER,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { secureDatabaseFiles } from './file-permissions.js';
import { LazyRows } from './lazy-rows.js';
import {
  AbortedStatement,
  type AppendColumn,
  type DescribingExecutor,
  type Executor,
  type StatementShape,
} from './executor.js';
import { fromDuckDBRow, toDuckDBTypes, toDuckDBValues, type Row, type SqlParams } from './sql-values.js';
import { ReportScheduler, type ReportLaneState, type ReportTicket } from './report-scheduler.js';
import { WorkLimiter } from './work-limiter.js';
import { DataVersions, type WriteScope } from './data-versions.js';
import { OverloadedError } from '../shared/errors.js';
import type { Store } from './store.js';
import { DUCKDB_DIALECT, type StoreDialect } from './store-dialect.js';
import { timed } from '../runtime/request-timing.js';

export type { AppendColumn, Executor } from './executor.js';

const APPEND_TYPES: Readonly<Record<AppendColumn['type'], DuckDBType>> = { VARCHAR, INTEGER, BIGINT, DOUBLE, BOOLEAN };
/** DuckDB's vector size: the most rows one data chunk holds. */
const CHUNK_ROWS = 2048;

export interface DatabaseOptions {
  /** Connections of the cheap lane (`read`): everything that is not a report. */
  readConnections: number;
  maxQueued: number;
  /** Report slots (`readReport`), one connection each; default DEFAULT_REPORT_CONCURRENCY. */
  reportConcurrency?: number | undefined;
  /** Report units beyond the slots for organizations with nothing running (ReportScheduler), a connection each; default 0. */
  reportReserve?: number | undefined;
  /** Connections of streaming exports (`readExport`); default DEFAULT_EXPORT_CONNECTIONS. */
  exportConnections?: number | undefined;
  /** Told of each report's query time (ms its work held a report connection), e.g. for the cost-based rate limit. */
  onReportTime?: ((organizationId: number, ms: number) => void) | undefined;
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
    super(
      `${dbPath} is held by ${holder}, usually the adreport server; stop it before running admin commands on this file`,
    );
    this.name = 'DatabaseLockedError';
  }
}

/**
 * Which cached statements a write makes stale: `every` (prepared before the last commit) or
 * `parameterless` (only those that bind no value).
 */
type StaleAfterWrite = 'every' | 'parameterless';

/**
 * Runs statements on one connection. A plan is only as good as the table statistics it was
 * prepared with: DuckDB folds `WHERE disabled_at IS NOT NULL` to "no rows" while every value is
 * NULL and a prepared statement keeps that plan after an UPDATE (reproduced on 1.5.6; it stalled
 * the job runner), and a perfect-hash GROUP BY planned on the ids there were fails once larger
 * ones arrive ("aggregate group exceeded total groups"). So statements are cached per read
 * connection only while no write has committed since they were prepared (`writeEpoch`); the
 * writer never caches. Caching doubled the token endpoint's throughput (478 -> 944 requests/s).
 *
 * Report statements are the exception (`staleAfterWrite: 'parameterless'`): DuckDB never keeps
 * the plan of a statement whose scan filters on a parameter (every report statement filters its
 * scans on `organization_id = $1`): it binds and optimizes it again at every execution, with the
 * values, so that they reach the scans' zone maps (measured on 1.5.6: campaigns30d 4.4 ms
 * prepared with parameters, 4.5 ms unprepared, 2.2 ms prepared with the same values written in).
 * What the cache keeps of them is the parse and first bind (~1.5 ms), and that holds no
 * statistics. test/service/report-plan-cache.test.ts holds DuckDB to it.
 */
class ConnectionExecutor implements DescribingExecutor {
  private readonly statements = new Map<string, { statement: DuckDBPreparedStatement; epoch: number }>();
  /** Statements prepared on this connection, cached or not (diagnostics). */
  prepared = 0;

  constructor(
    private readonly connection: DuckDBConnection,
    /** Told of rows left in DuckDB's memory, so that closing the store can copy them out first. */
    private readonly track: (rows: LazyRows) => void,
    /** The current write epoch, for a connection whose statements may be reused; none for the writer. */
    private readonly writeEpoch?: () => number,
    private readonly staleAfterWrite: StaleAfterWrite = 'every',
  ) {}

  async all<T extends object = Row>(sql: string, params: SqlParams = []): Promise<T[]> {
    return this.withStatement(sql, params, async (statement) => {
      statement.bind(toDuckDBValues(params), toDuckDBTypes(params));
      return timed('execute', async () => {
        const reader = await statement.runAndReadAll();
        return reader.getRowObjectsJS().map((row) => fromDuckDBRow(row) as T);
      });
    });
  }

  async one<T extends object = Row>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    const rows = await this.all<T>(sql, params);
    return rows[0];
  }

  async lazy(sql: string, params: SqlParams = []): Promise<LazyRows> {
    return this.withStatement(sql, params, async (statement) => {
      statement.bind(toDuckDBValues(params), toDuckDBTypes(params));
      const rows = await timed('execute', async () => {
        const result = await statement.run();
        return new LazyRows(result, await result.fetchAllChunks());
      });
      this.track(rows);
      return rows;
    });
  }

  async run(sql: string, params: SqlParams = []): Promise<void> {
    if (params.length === 0) {
      await this.connection.run(sql);
      return;
    }
    await this.withStatement(sql, params, async (statement) => {
      statement.bind(toDuckDBValues(params), toDuckDBTypes(params));
      await statement.run();
    });
  }

  async rowsChanged(sql: string, params: SqlParams = []): Promise<number> {
    // DuckDB answers a write statement with one row holding the number of rows it changed.
    const row = await this.one<{ Count: number | bigint }>(sql, params);
    return Number(row?.Count ?? 0);
  }

  async runOnce(sql: string, params: SqlParams): Promise<void> {
    const statement = await this.connection.prepare(sql);
    try {
      statement.bind(toDuckDBValues(params), toDuckDBTypes(params));
      await statement.run();
    } finally {
      statement.destroySync();
    }
  }

  interrupt(): void {
    this.connection.interrupt();
  }

  async describe(sql: string): Promise<StatementShape> {
    const statement = await this.prepare(sql);
    let shape: StatementShape;
    try {
      shape = shapeOf(statement);
    } finally {
      statement.destroySync();
    }
    if (!shape.columns.some((c) => c.type === 'UNKNOWN' || c.type === '"NULL"' || c.name === 'unknown')) return shape;
    // Some statements (an aggregate with DISTINCT and ORDER BY) are bound only when they run, and
    // their prepared form shows one 'unknown' column; DuckDB's DESCRIBE binds them without running.
    const described = await this.prepare(`DESCRIBE ${sql}`);
    try {
      described.bind(
        shape.parameterTypes.map(() => null),
        shape.parameterTypes.map(() => VARCHAR),
      );
      const reader = await described.runAndReadAll();
      const columns = reader
        .getRowObjectsJS()
        .map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
      return { parameterTypes: shape.parameterTypes, columns };
    } finally {
      described.destroySync();
    }
  }

  async allDescribed(
    sql: string,
    params: readonly (string | number | null)[],
    signal?: AbortSignal,
    maxRows?: number,
  ): Promise<{ shape: StatementShape; rows: unknown[][] }> {
    const statement = await this.prepare(sql);
    const onAbort = () => this.connection.interrupt();
    try {
      const shape = shapeOf(statement);
      statement.bind(
        params.map((p) => p as DuckDBValue),
        params.map((p) => (typeof p === 'string' ? VARCHAR : p === null ? undefined : DOUBLE)) as DuckDBType[],
      );
      signal?.addEventListener('abort', onAbort);
      // An interrupt before the run starts is dropped by DuckDB: an abort during the prepare is seen here.
      if (signal?.aborted) throw new AbortedStatement();
      const reader = await timed('execute', () =>
        maxRows === undefined ? statement.runAndReadAll() : statement.streamAndReadUntil(maxRows),
      );
      // The run may have ended before the interrupt reached it: an aborted statement answers nothing.
      if (signal?.aborted) throw new AbortedStatement();
      const rows = reader.getRows();
      return { shape, rows: (maxRows === undefined ? rows : rows.slice(0, maxRows)).map((row) => row.map(plainValue)) };
    } catch (error) {
      throw signal?.aborted ? new AbortedStatement() : error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      statement.destroySync();
    }
  }

  async append(table: string, columns: readonly AppendColumn[]): Promise<void> {
    const rows = columns[0]?.values.length ?? 0;
    if (columns.some((c) => c.values.length !== rows)) throw new Error(`append to ${table}: columns differ in length`);
    if (rows === 0) return;
    const types = columns.map((c) => APPEND_TYPES[c.type]);
    const appender = await this.connection.createAppender(table);
    try {
      for (let offset = 0; offset < rows; offset += CHUNK_ROWS) {
        const end = Math.min(rows, offset + CHUNK_ROWS);
        const chunk = DuckDBDataChunk.create(types, end - offset);
        chunk.setColumns(
          columns.map((c) => {
            const slice = c.values.slice(offset, end);
            // BIGINT vectors take bigint; ids and counts arrive as safe integers.
            return c.type === 'BIGINT'
              ? slice.map((v) => (v === null ? null : BigInt(v as number)))
              : (slice as (string | number | boolean | null)[]);
          }),
        );
        appender.appendDataChunk(chunk);
        // Appending runs on the event loop (the bindings' appender calls are synchronous, and
        // DuckDB flushes its buffer every ~200k rows): flush every ~8k rows and let requests in.
        if ((offset / CHUNK_ROWS) % 4 === 3) {
          appender.flushSync();
          await setImmediate();
        }
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  release(): void {
    for (const { statement } of this.statements.values()) statement.destroySync();
    this.statements.clear();
  }

  private async withStatement<R>(
    sql: string,
    params: SqlParams,
    use: (statement: DuckDBPreparedStatement) => Promise<R>,
  ): Promise<R> {
    if (!this.writeEpoch) {
      const statement = await this.prepare(sql);
      try {
        return await use(statement);
      } finally {
        statement.destroySync();
      }
    }
    const survivesWrites = this.staleAfterWrite === 'parameterless' && params.length > 0;
    return use(await this.cached(sql, survivesWrites ? SURVIVES_WRITES : this.writeEpoch()));
  }

  private prepare(sql: string): Promise<DuckDBPreparedStatement> {
    this.prepared++;
    return timed('prepare', () => this.connection.prepare(sql));
  }

  /** Least recently used first out; a statement older than the last write is prepared again. */
  private async cached(sql: string, epoch: number): Promise<DuckDBPreparedStatement> {
    const entry = this.statements.get(sql);
    this.statements.delete(sql);
    if (entry && entry.epoch === epoch) {
      this.statements.set(sql, entry);
      return entry.statement;
    }
    entry?.statement.destroySync();
    // The epoch is read before preparing: a write committing meanwhile makes this entry stale, never the reverse.
    const statement = await this.prepare(sql);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      const [oldestSql, oldest] = this.statements.entries().next().value!;
      this.statements.delete(oldestSql);
      oldest.statement.destroySync();
    }
    this.statements.set(sql, { statement, epoch });
    return statement;
  }
}

/** A DuckDB value as the SQL endpoint carries it: exact text for what JS numbers cannot hold. */
function plainValue(value: DuckDBValue): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (typeof value === 'bigint') return value;
  return String(value);
}

function shapeOf(statement: DuckDBPreparedStatement): StatementShape {
  const parameterTypes = Array.from({ length: statement.parameterCount }, (_, i) => {
    try {
      return statement.parameterType(i + 1).toString();
    } catch {
      // A parameter whose type DuckDB could not infer yet.
      return 'UNKNOWN';
    }
  });
  const columns = Array.from({ length: statement.columnCount }, (_, i) => {
    try {
      return { name: statement.columnName(i), type: statement.columnType(i).toString() };
    } catch {
      // A column whose type rests on a parameter DuckDB could not type yet (`SELECT $1`).
      return { name: statement.columnName(i), type: 'UNKNOWN' };
    }
  });
  return { parameterTypes, columns };
}

const STATEMENT_CACHE_SIZE = 256;
/** The epoch of a cached statement that no write makes stale. */
const SURVIVES_WRITES = -1;

/**
 * Report queries in flight when the configuration says nothing (the service's default is in
 * src/config, measured there); the CLI's stores run one export or report at a time anyway.
 */
export const DEFAULT_REPORT_CONCURRENCY = 2;
/** The service's default of exports.maxConcurrent. */
export const DEFAULT_EXPORT_CONNECTIONS = 2;

/**
 * A checkpoint follows the write that took the WAL file past this many bytes. Replaying a crash's
 * WAL of account creates took ~0.45 s per MiB (6 MiB: 2.5-2.7 s), while a checkpoint of that much
 * costs ~0.1 s, and 4-22 ms after a few small writes on 3.9 M fact rows. So 1 MiB: a restart after
 * a crash replays at most ~0.5 s (README, Design: WAL and checkpoints).
 */
const WAL_CHECKPOINT_BYTES = 1024 * 1024;

/**
 * DuckDB's own checkpoint-at-commit is switched off, measured on the WAL bytes a commit would add
 * as DuckDB estimates them, and for a large one it does not write the WAL at all: it publishes
 * the commit to other connections, then checkpoints, then returns (`auto_checkpoint_skip_wal_threshold`,
 * 100 KB). A `kill -9` in between lost values other clients had read and let ids they had seen be
 * issued again (issue 34). The estimate of an UPDATE is ~40 KB per column changed, whatever the
 * row (an account PUT: ~1.5 MB for 5 KB of WAL), so every PUT ran a checkpoint inside its commit.
 * With both thresholds out of reach every commit is in the WAL, synced, before anyone sees it, and
 * the service checkpoints on the WAL file's real size instead (`checkpointIfDue`).
 */
const DUCKDB_NEVER = {
  checkpoint_threshold: '1000000GB',
  auto_checkpoint_skip_wal_threshold: String(Number.MAX_SAFE_INTEGER),
};

/**
 * The one DuckDB instance of this process (DESIGN D1): a small pool of read connections,
 * one serialized writer that wraps each unit of work in a transaction, hardened settings.
 */
export class Database implements Store {
  readonly dialect: StoreDialect = DUCKDB_DIALECT;
  private readonly writer: ConnectionExecutor;
  private readonly readers: ConnectionExecutor[];
  private readonly readLimiter: WorkLimiter;
  private readonly reportReaders: ConnectionExecutor[];
  private readonly reportScheduler: ReportScheduler;
  private readonly exportReaders: ConnectionExecutor[];
  private readonly exportLimiter: WorkLimiter;
  private readonly onReportTime: DatabaseOptions['onReportTime'];
  private readonly writeLimiter: WorkLimiter;
  private closed = false;
  /** A checkpoint is queued in the write lane and has not run yet. */
  private checkpointQueued = false;
  private readonly walPath: string;
  /** Bumped by every commit, so read connections know which cached plans predate a data change. */
  private writeEpoch = 0;

  /** Transactions the writer has ended (committed or not): whatever any table holds is unchanged while it is. */
  get writes(): number {
    return this.writeEpoch;
  }
  /** Per-organization versions of the data reports read: what ETags and the page cache key on. */
  readonly versions = new DataVersions();
  /** Rows still in DuckDB's memory (a JSON page being written); weak, so an abandoned one is collected. */
  private readonly lazyRows = new Set<WeakRef<LazyRows>>();

  private constructor(
    readonly dbPath: string,
    private readonly instance: DuckDBInstance,
    private readonly connections: DuckDBConnection[],
    options: DatabaseOptions,
  ) {
    this.walPath = `${path.resolve(dbPath)}.wal`;
    const track = (rows: LazyRows) => this.trackLazyRows(rows);
    this.writer = new ConnectionExecutor(connections[0]!, track);
    const reader = (c: DuckDBConnection) => new ConnectionExecutor(c, track, () => this.writeEpoch);
    this.readers = connections.slice(1, 1 + options.readConnections).map(reader);
    const reportSlots = options.reportConcurrency ?? DEFAULT_REPORT_CONCURRENCY;
    const reportReserve = options.reportReserve ?? 0;
    const reportEnd = 1 + options.readConnections + reportSlots + reportReserve;
    this.reportReaders = connections
      .slice(1 + options.readConnections, reportEnd)
      .map((c) => new ConnectionExecutor(c, track, () => this.writeEpoch, 'parameterless'));
    this.exportReaders = connections.slice(reportEnd).map(reader);
    // The exports' own bound (ExportService) admits at most this many; no queue.
    this.exportLimiter = new WorkLimiter(this.exportReaders.length, 0);
    this.readLimiter = new WorkLimiter(this.readers.length, options.maxQueued);
    this.reportScheduler = new ReportScheduler(reportSlots, options.maxQueued, reportReserve);
    this.onReportTime = options.onReportTime;
    // One writer: DuckDB's optimistic concurrency would fail one of two transactions on the same row.
    this.writeLimiter = new WorkLimiter(1, options.maxQueued);
  }

  static async open(dbPath: string, options: DatabaseOptions): Promise<Database> {
    const resolved = path.resolve(dbPath);
    secureDatabaseFiles(resolved);
    const config: Record<string, string> = {
      // No internet here, and no extension may be fetched or loaded behind our back.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      // Set here, since the hardening locks the configuration.
      ...DUCKDB_NEVER,
    };
    if (options.memoryLimit) config.memory_limit = options.memoryLimit;
    if (options.threads) config.threads = String(options.threads);
    // A WAL left beside the file means the last process did not close it (a crash, kill -9).
    const recovering = (fs.statSync(`${resolved}.wal`, { throwIfNoEntry: false })?.size ?? 0) > 0;
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
      await harden(first);
      // DuckDB replays the WAL at open but does not checkpoint it: the next crash would replay it
      // again, plus everything since (restarts grew from 0.6 to 2.7 s over 16 crashes). Write it
      // into the file now, before anything is served.
      if (recovering) await first.run('CHECKPOINT');
      const reportConnections =
        (options.reportConcurrency ?? DEFAULT_REPORT_CONCURRENCY) + (options.reportReserve ?? 0);
      const exportConnections = options.exportConnections ?? DEFAULT_EXPORT_CONNECTIONS;
      for (let i = 0; i < options.readConnections + reportConnections + exportConnections; i++)
        connections.push(await instance.connect());
    } catch (error) {
      for (const c of connections) c.closeSync();
      instance.closeSync();
      throw error;
    }
    return new Database(dbPath, instance, connections, options);
  }

  /**
   * Runs read-only work on a connection of the cheap lane (provisioning, organization, tokens,
   * jobs: everything but reports), so it never waits behind a report; 503 when its queue is full.
   */
  read<T>(work: (db: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.readLimiter.run(() => this.onConnection(this.readers, work));
  }

  /**
   * Runs a report's read-only work in the report lane (ReportScheduler: round-robin over
   * organizations, `ticket.slots` of the lane's slots); 503 when its queue is full. The time the
   * work holds its connection is reported to `onReportTime`, also when it fails.
   */
  readReport<T>(ticket: ReportTicket, work: (db: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.reportScheduler.run(ticket, () => this.onConnection(this.reportReaders, work, ticket.organizationId));
  }

  /**
   * Runs an export's streaming query on a connection of its own. It runs as fast as its client
   * reads (up to minutes): in the report lane two slow downloads would hold its slots and stop
   * every tenant's reports. ExportService bounds exports (in total and per organization); its
   * time is reported to `onReportTime` like a report's.
   */
  readExport<T>(organizationId: number, work: (db: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.exportLimiter.run(() => this.onConnection(this.exportReaders, work, organizationId));
  }

  /**
   * Runs work on a connection of a lane's pool; its admission (limiter or scheduler) lets in at
   * most as many callers as the pool has connections, so one is always free. With `chargeTo`,
   * the time the work held the connection goes to `onReportTime`, also when it fails.
   */
  private async onConnection<T>(
    pool: ConnectionExecutor[],
    work: (db: Executor) => Promise<T>,
    chargeTo?: number,
  ): Promise<T> {
    const reader = pool.pop()!;
    const started = performance.now();
    try {
      return await work(reader);
    } finally {
      pool.push(reader);
      if (chargeTo !== undefined) this.onReportTime?.(chargeTo, performance.now() - started);
    }
  }

  /** What the report lane runs and queues now. */
  reportLane(): ReportLaneState {
    const statementsPrepared = this.reportReaders.reduce((sum, reader) => sum + reader.prepared, 0);
    return { ...this.reportScheduler.state(), statementsPrepared };
  }

  /**
   * Runs work in one transaction on the single writer: all of it lands, or none of it. `scope`
   * says whose reports it may change (required, so each call site decides; first, so adding it
   * left every call's body as it was); the versions advance after COMMIT, so a report that read
   * the new version saw the new data.
   */
  write<T>(scope: WriteScope, work: (tx: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.writeLimiter.run(async () => {
      await this.writer.run('BEGIN TRANSACTION');
      let committing = false;
      try {
        const result = await work(this.writer);
        committing = true;
        await this.writer.run('COMMIT');
        this.checkpointIfDue();
        return result;
      } catch (error) {
        await this.writer.run('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        // Also after a rollback: a failed COMMIT may still have changed what a plan would see.
        this.writeEpoch++;
        // Work that threw before COMMIT was rolled back whole (a 4xx changes nothing, nor the ETags);
        // a COMMIT that was tried, failed or not, advances: its outcome is not known for certain.
        if (committing) this.versions.advance(scope);
      }
    });
  }

  /**
   * Queues a checkpoint behind the current write once the WAL file holds more than
   * WAL_CHECKPOINT_BYTES: the write that crossed it answers at once, the next one waits for the
   * checkpoint (~10-30 ms). Every commit is in the WAL already, so a checkpoint that fails or is
   * refused (a full queue) loses nothing: a later write queues it again.
   */
  private checkpointIfDue(): void {
    if (this.checkpointQueued || this.closed) return;
    const walBytes = fs.statSync(this.walPath, { throwIfNoEntry: false })?.size ?? 0;
    if (walBytes <= WAL_CHECKPOINT_BYTES) return;
    this.checkpointQueued = true;
    this.writeLimiter
      .run(() => {
        this.checkpointQueued = false;
        return this.writer.run('CHECKPOINT');
      })
      .catch(() => {
        this.checkpointQueued = false;
      });
  }

  /**
   * Refuses new work, waits for what runs or waits, checkpoints so the next open needs no WAL
   * replay, then closes. Statements must not be destroyed under a query still running.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([
      this.readLimiter.drained(),
      this.reportScheduler.drained(),
      this.exportLimiter.drained(),
      this.writeLimiter.drained(),
    ]);
    await this.writer.run('CHECKPOINT').catch(() => undefined);
    // A response still being written keeps its rows, copied out of the memory about to go.
    for (const ref of this.lazyRows) ref.deref()?.detach();
    this.lazyRows.clear();
    for (const reader of [...this.readers, ...this.reportReaders, ...this.exportReaders]) reader.release();
    for (const c of this.connections) c.closeSync();
    this.instance.closeSync();
  }

  private trackLazyRows(rows: LazyRows): void {
    const ref = new WeakRef(rows);
    this.lazyRows.add(ref);
    rows.onRelease = () => this.lazyRows.delete(ref);
    // Rows dropped without release (a response never read) are collected; forget their refs.
    if (this.lazyRows.size > 1024) for (const r of this.lazyRows) if (r.deref() === undefined) this.lazyRows.delete(r);
  }

  private assertOpen(): void {
    if (this.closed) throw new DatabaseClosedError();
  }
}

/**
 * Only the OS temp dir (the exports' named pipes) is open to SQL file functions. Not the data
 * directory: the token key file lives there, and no query of ours reads a file from it (the FX
 * reference is parsed from a bound parameter; DuckDB's own spill files are not subject to this).
 */
async function harden(connection: DuckDBConnection): Promise<void> {
  const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;
  const allowed = [os.tmpdir()].map(quote).join(', ');
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
