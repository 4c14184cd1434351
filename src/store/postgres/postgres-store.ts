import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, OverloadedError } from '../../shared/errors.js';
import { reportsUnavailable } from '../../shared/reports-unavailable.js';
import type { WriteScope } from '../data-versions.js';
import { SharedDataVersions } from './shared-data-versions.js';
import { DatabaseClosedError } from '../database.js';
import type { AppendColumn, Executor } from '../executor.js';
import type { LazyRows } from '../lazy-rows.js';
import type { ReportLaneState, ReportTicket } from '../report-scheduler.js';
import type { Row, SqlParams } from '../sql-values.js';
import { SqlDouble } from '../sql-values.js';
import type { Store } from '../store.js';
import { WorkLimiter } from '../work-limiter.js';
import { POSTGRES_DIALECT, toPostgresSql } from './postgres-dialect.js';

export interface PostgresStoreOptions {
  /** Connections this replica opens; the cheap lane and the writers share them. */
  connections: number;
  maxQueued: number;
  /** A start that finds PostgreSQL down says so here while it waits. */
  log?: ((line: string) => void) | undefined;
  /** How long a start waits for PostgreSQL to come up before it gives up; default 5 minutes. */
  startTimeoutMs?: number | undefined;
}

/** PostgreSQL is unreachable or restarting: 503 with Retry-After, never a 500; the pool reconnects by itself. */
export class StoreUnavailableError extends ApiError {
  constructor() {
    super(503, 'store_unavailable', 'The service cannot reach its database right now; retry shortly.', [], {
      'Retry-After': '2',
    });
    this.name = 'StoreUnavailableError';
  }
}

/** A start that cannot succeed by waiting (wrong password, unknown database, bad URL): one clear line. */
export class StoreConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConfigurationError';
  }
}

/** Advisory lock namespaces (the first key of the two-key form): one per organization, one for all. */
const ORGANIZATION_LOCK = 0x6f7267; // "org"
const ALL_ORGANIZATIONS_LOCK = 0x616c6c; // "all"

/** How many times a write that lost a serialization race runs again before it answers 503. */
const WRITE_ATTEMPTS = 8;

/** PostgreSQL's answer for "another transaction got there first": run the work again. */
const RETRY_CODES = new Set(['40001', '40P01']);
/** The server went away or is not accepting connections yet (restart, crash, failover). */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code && (UNAVAILABLE_CODES.has(e.code) || UNAVAILABLE_ERRNOS.has(e.code))) return true;
  return /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed/i.test(
    e.message ?? '',
  );
}

const BASE_PARSER = pg.types.getTypeParser as unknown as (oid: number, format: string) => (text: string) => unknown;

/** Values come back as DuckDB's do (Executor's contract): BIGINT and NUMERIC as numbers, DATE as UTC midnight. */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    switch (oid) {
      case 20: // int8
        return (text: string) => {
          const n = Number(text);
          return Number.isSafeInteger(n) ? n : BigInt(text);
        };
      case 1016: // int8[]
        return (text: string) =>
          (BASE_PARSER(1016, 'text')(text) as Array<string | null>).map((v) => (v === null ? null : Number(v)));
      case 1700: // numeric
        return (text: string) => Number(text);
      case 1082: // date
        return (text: string) => new Date(`${text}T00:00:00Z`);
      case 1114: // timestamp without time zone: UTC by our convention
        return (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
      default:
        return pg.types.getTypeParser(oid, format);
    }
  },
};

function toPostgresValues(params: SqlParams): unknown[] {
  return params.map((value) => {
    if (value instanceof SqlDouble) return value.value;
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'bigint') return value.toString();
    return value;
  });
}

const ARRAY_TYPES: Readonly<Record<AppendColumn['type'], string>> = {
  VARCHAR: 'TEXT[]',
  INTEGER: 'INTEGER[]',
  BIGINT: 'BIGINT[]',
  DOUBLE: 'DOUBLE PRECISION[]',
  BOOLEAN: 'BOOLEAN[]',
};

class PostgresExecutor implements Executor {
  constructor(private readonly client: pg.PoolClient) {}

  async all<T extends object = Row>(sql: string, params: SqlParams = []): Promise<T[]> {
    return (await this.query(toPostgresSql(sql), params)).rows as T[];
  }

  /** Runs PostgreSQL text as it is; a `name` prepares it once per connection (for text that never changes). */
  async query(text: string, params: SqlParams, name?: string): Promise<pg.QueryResult> {
    try {
      return await this.client.query({ name, text, values: toPostgresValues(params) });
    } catch (error) {
      // The log line of a failed statement names it; clients still see only the mapped error.
      if (error instanceof Error && !isUnavailable(error) && !(error as { statement?: string }).statement)
        Object.assign(error, { statement: text.replace(/\s+/g, ' ').slice(0, 300) });
      throw error;
    }
  }

  async one<T extends object = Row>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params: SqlParams = []): Promise<void> {
    await this.all(sql, params);
  }

  async rowsChanged(sql: string, params: SqlParams = []): Promise<number> {
    return (await this.query(toPostgresSql(sql), params)).rowCount ?? 0;
  }

  async runOnce(sql: string, params: SqlParams): Promise<void> {
    await this.run(sql, params);
  }

  lazy(): Promise<LazyRows> {
    // Only reports and the DuckDB-rendered account page read lazily; neither runs here.
    return Promise.reject(new Error('lazy rows are a DuckDB result; the PostgreSQL store reads with all()'));
  }

  /** Many rows in one statement: each column goes as one array parameter, unnest pairs them up. */
  async append(table: string, columns: readonly AppendColumn[]): Promise<void> {
    const arrays = columns.map((column, i) => `$${i + 1}::${ARRAY_TYPES[column.type]}`);
    await this.client.query({
      text: `INSERT INTO ${table} SELECT * FROM unnest(${arrays.join(', ')})`,
      values: columns.map((column) => column.values),
    });
  }

  interrupt(): void {
    // Statements here are short; a report's interrupt never reaches this store.
  }
}

/**
 * The service's own state in PostgreSQL, shared by any number of replicas (DESIGN D12). Each
 * write is one transaction with the outcome the embedded store's single writer gives (every
 * request as if alone), without one writer for the whole deployment (`begin` says how). Facts are
 * not here: they live in ClickHouse (`--facts clickhouse`), or reports answer 503
 * (`reportsUnavailable`).
 */
export class PostgresStore implements Store {
  readonly dialect = POSTGRES_DIALECT;
  readonly versions = new SharedDataVersions(async (organizationId) => {
    const rows = await this.read((r) =>
      r.all<{ organization_id: number; version: number }>(
        'SELECT organization_id, version FROM data_versions WHERE organization_id IN (0, $1)',
        [organizationId],
      ),
    );
    const of = (id: number) => Number(rows.find((row) => Number(row.organization_id) === id)?.version ?? 0);
    return { global: of(0), organization: of(organizationId) };
  });
  private writeCount = 0;
  private closed = false;
  private readonly limiter: WorkLimiter;

  get writes(): number {
    return this.writeCount;
  }

  private constructor(
    readonly dbPath: string,
    private readonly pool: pg.Pool,
    options: PostgresStoreOptions,
  ) {
    this.limiter = new WorkLimiter(options.connections, options.maxQueued);
  }

  /**
   * Connects, waiting while PostgreSQL is down or starting (saying so once, then every 30 s);
   * a refused password, an unknown database or a malformed URL stop the start at once.
   */
  static async open(url: string, options: PostgresStoreOptions): Promise<PostgresStore> {
    const label = redactedUrl(url);
    try {
      checkStoreUrl(url);
    } catch (error) {
      throw new StoreConfigurationError(`--store ${label}: ${(error as Error).message}`);
    }
    const pool = new pg.Pool({
      connectionString: url,
      // Every session in UTC from its start (a startup parameter: no statement, no race with the first query).
      options: '-c TimeZone=UTC',
      max: options.connections,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 60_000,
      types: TYPES,
      application_name: 'adreport',
    });
    // A pooled connection that PostgreSQL closes (restart) is dropped; the next query opens another.
    pool.on('error', () => undefined);
    // A checked-out connection PostgreSQL terminates (restart: 57P01) emits 'error' on its client;
    // unheard, it ends the process. The query it ran fails and the request answers 503.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const deadline = Date.now() + (options.startTimeoutMs ?? 300_000);
    let lastSaid = 0;
    for (;;) {
      try {
        const client = await pool.connect();
        client.release();
        break;
      } catch (error) {
        if (!isUnavailable(error)) {
          await pool.end().catch(() => undefined);
          throw new StoreConfigurationError(`PostgreSQL at ${label} refused the service: ${(error as Error).message}`);
        }
        if (Date.now() > deadline) {
          await pool.end().catch(() => undefined);
          throw new StoreConfigurationError(`PostgreSQL at ${label} did not answer: ${(error as Error).message}`);
        }
        if (Date.now() - lastSaid > 30_000) {
          options.log?.(`waiting for PostgreSQL at ${label} (${(error as Error).message}); retrying every second`);
          lastSaid = Date.now();
        }
        await sleep(1000);
      }
    }
    return new PostgresStore(label, pool, options);
  }

  read<T>(work: (db: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.limiter.run(() => this.onClient(async (client) => work(new PostgresExecutor(client))));
  }

  /**
   * One statement on its own (autocommit): a shared rate bucket's take, one round trip. A `name`
   * prepares it once per connection (PostgreSQL then skips parsing and planning it: 202 -> 131 µs
   * a take, bench/replicas.ts); only for statements whose text never changes.
   */
  statement<T extends object = Row>(sql: string, params: SqlParams, name?: string): Promise<T[]> {
    this.assertOpen();
    return this.limiter.run(() =>
      this.onClient(async (client) => (await new PostgresExecutor(client).query(sql, params, name)).rows as T[]),
    );
  }

  readReport<T>(_ticket: ReportTicket, _work: (db: Executor) => Promise<T>): Promise<T> {
    return Promise.reject(reportsUnavailable());
  }

  readExport<T>(_organizationId: number, _work: (db: Executor) => Promise<T>): Promise<T> {
    return Promise.reject(reportsUnavailable());
  }

  /** Reports never run here: the lane is always empty. */
  reportLane(): ReportLaneState {
    return { running: 0, slotsInUse: 0, queued: 0, queuedOf: new Map(), inReserve: 0, statementsPrepared: 0 };
  }

  write<T>(scope: WriteScope, work: (tx: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.limiter.run(() =>
      this.onClient(async (client) => {
        for (let attempt = 1; ; attempt++) {
          let committing = false;
          try {
            await this.begin(client, scope);
            const tx = new PostgresExecutor(client);
            const result = await work(tx);
            if (scope !== 'no-report-data') await advanceDataVersion(tx, scope);
            committing = true;
            await client.query('COMMIT');
            return result;
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined);
            const code = (error as { code?: string }).code;
            if (code && RETRY_CODES.has(code) && attempt < WRITE_ATTEMPTS) {
              // Jittered, so two replicas that collided do not collide again in step.
              await sleep(Math.random() * 4 * attempt);
              continue;
            }
            if (code && RETRY_CODES.has(code)) throw new OverloadedError(1);
            throw error;
          } finally {
            this.writeCount++;
            if (committing) this.versions.advance(scope);
          }
        }
      }),
    );
  }

  /**
   * Opens a write's transaction. Writes of one organization's data queue behind each other on a
   * transaction-level advisory lock and run READ COMMITTED, so each statement sees what the one
   * before committed: one writer per organization, as the embedded store has one writer in all
   * (with SERIALIZABLE alone, 35 concurrent creations in one organization collided on its data
   * version row and ran out of retries). A write for every organization excludes those; one that
   * touches no report data (job claims, deliveries, clients) runs SERIALIZABLE, retried on conflict.
   */
  private async begin(client: pg.PoolClient, scope: WriteScope): Promise<void> {
    if (scope === 'no-report-data') {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      return;
    }
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    if (scope === 'all-organizations')
      await client.query('SELECT pg_advisory_xact_lock($1, 0)', [ALL_ORGANIZATIONS_LOCK]);
    else
      await client.query('SELECT pg_advisory_xact_lock_shared($1, 0), pg_advisory_xact_lock($2, $3)', [
        ALL_ORGANIZATIONS_LOCK,
        ORGANIZATION_LOCK,
        scope.organizationId,
      ]);
  }

  /**
   * Runs work in one READ COMMITTED transaction after taking a transaction-level advisory lock:
   * replicas that start together run it one after another, and each statement after the lock
   * sees what the one before committed (a SERIALIZABLE snapshot would predate it).
   */
  exclusive<T>(lockKey: number, work: (tx: Executor) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.onClient(async (client) => {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
        const result = await work(new PostgresExecutor(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.limiter.drained();
    await this.pool.end().catch(() => undefined);
  }

  /** Runs work on a pooled connection; a connection PostgreSQL dropped is discarded and the request answers 503. */
  private async onClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw isUnavailable(error) ? new StoreUnavailableError() : error;
    }
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (isUnavailable(error)) {
        broken = error as Error;
        throw new StoreUnavailableError();
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new DatabaseClosedError();
  }
}

/** Shared by every replica: a write on one changes what all of them read as the organization's data version. */
async function advanceDataVersion(tx: Executor, scope: Exclude<WriteScope, 'no-report-data'>): Promise<void> {
  const organizationId = scope === 'all-organizations' ? 0 : scope.organizationId;
  await tx.run(
    `INSERT INTO data_versions (organization_id, version) VALUES ($1, 1)
       ON CONFLICT (organization_id) DO UPDATE SET version = data_versions.version + 1`,
    [organizationId],
  );
}

/** The URL as messages may show it: the password replaced. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

function checkStoreUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('not a URL; expected postgres://user:password@host:port/database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new Error(`scheme ${parsed.protocol} is not postgres: or postgresql:`);
  if (parsed.pathname.length <= 1)
    throw new Error('names no database; expected postgres://user:password@host:port/database');
}
