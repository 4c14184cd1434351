import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';

/** Where reports' ClickHouse is: a server (or cluster) at a URL, or embedded (chdb) in a directory. */
export type ClickHouseTarget =
  { readonly kind: 'server'; readonly url: string } | { readonly kind: 'embedded'; readonly directory: string };

/** Query parameters as @clickhouse/client binds them (server-side, never pasted into the SQL). */
export type ClickHouseParams = Readonly<Record<string, unknown>>;

/**
 * The few things adreport asks of ClickHouse, over @clickhouse/client whichever the target: the
 * embedded engine is chdb's in-process connection plugged into the same client, so both run the
 * same code down to the wire format.
 */
export class ClickHouse {
  private constructor(
    private readonly client: ClickHouseClient,
    /** The database unqualified names resolve in. */
    readonly database: string,
    /** The target as logs and errors may show it: never the password. */
    readonly description: string,
    private readonly embedded: boolean,
  ) {}

  static async connect(target: ClickHouseTarget): Promise<ClickHouse> {
    if (target.kind === 'embedded') {
      fs.mkdirSync(target.directory, { recursive: true, mode: 0o700 });
      // chdb is a native library of 500 MB: loaded only by services that use it.
      const { createChdbConnection } = await import('chdb/connection');
      // chdb builds on its own copy of @clickhouse/client-common's types; the interface is the same.
      const connection = createChdbConnection({ path: path.resolve(target.directory) }) as unknown as NonNullable<
        Parameters<typeof createClient>[0]
      >['connection'];
      const client = createClient({ connection, log: { level: ClickHouseLogLevel.OFF } });
      // chdb's connection ignores `database`: everything lives in its default database.
      return new ClickHouse(client, 'default', `embedded ClickHouse in ${target.directory}`, true);
    }
    const url = new URL(target.url);
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'default';
    const description = redactedUrl(target.url);
    const client = createClient({
      url: `${url.protocol}//${url.host}`,
      username: decodeURIComponent(url.username) || 'default',
      password: decodeURIComponent(url.password),
      database,
      request_timeout: 60_000,
      // Its own console log would repeat each failure; ours says it once, without the password.
      log: { level: ClickHouseLogLevel.OFF },
    });
    return new ClickHouse(client, database, `ClickHouse at ${description}`, false);
  }

  async rows<T>(sql: string, params: ClickHouseParams = {}, settings: ClickHouseSettings = {}): Promise<T[]> {
    return this.json<T>(sql, params, settings, 'JSONEachRow');
  }

  /** Rows as arrays, in the SELECT's column order. */
  async compactRows(
    sql: string,
    params: ClickHouseParams = {},
    settings: ClickHouseSettings = {},
  ): Promise<unknown[][]> {
    return this.json<unknown[]>(sql, params, settings, 'JSONCompactEachRow');
  }

  private json<T>(
    sql: string,
    params: ClickHouseParams,
    settings: ClickHouseSettings,
    format: 'JSONEachRow' | 'JSONCompactEachRow',
  ): Promise<T[]> {
    return this.guard(async () => {
      const result = await this.client.query({
        query: sql,
        query_params: params,
        format,
        clickhouse_settings: settings,
      });
      return result.json<T>();
    });
  }

  /** The result in a raw output format (CSVWithNames, TSVRaw, Parquet), as a byte stream. */
  async raw(
    sql: string,
    params: ClickHouseParams,
    format: RawFormat,
    settings: ClickHouseSettings = {},
  ): Promise<Readable> {
    return this.guard(async () => {
      const result = await this.client.exec({
        query: `${sql}\nFORMAT ${format}`,
        query_params: params,
        clickhouse_settings: settings,
      });
      return result.stream;
    });
  }

  async command(sql: string, params: ClickHouseParams = {}, settings: ClickHouseSettings = {}): Promise<void> {
    await this.guard(() => this.client.command({ query: sql, query_params: params, clickhouse_settings: settings }));
  }

  /** Loads a Parquet file into `table` (columns by position): read in place when embedded, sent over HTTP otherwise. */
  async loadParquet(table: string, file: string, columns: readonly string[]): Promise<void> {
    const list = columns.map((c) => `\`${c}\``).join(', ');
    if (this.embedded) {
      await this.command(`INSERT INTO ${table} (${list}) SELECT ${list} FROM file({file:String}, Parquet)`, { file });
      return;
    }
    await this.guard(() =>
      this.client.insert({
        table,
        values: fs.createReadStream(file),
        format: 'Parquet',
        columns: [...columns] as [string, ...string[]],
      }),
    );
  }

  /** Rows as JSON objects into `table` (JSONEachRow): values travel as data, never as SQL text. */
  async insertRows(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    await this.guard(() =>
      this.client.insert({
        table,
        values: rows as Record<string, unknown>[],
        format: 'JSONEachRow',
        // Timestamps as ISO text with their zone (2026-11-29T10:00:00.123456Z).
        clickhouse_settings: { date_time_input_format: 'best_effort' },
      }),
    );
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.client.ping()).success;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** Every error that leaves here says which ClickHouse, never with its password. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw ClickHouseFailure.of(error, this.description);
    }
  }
}

export type RawFormat = 'CSVWithNames' | 'TSVRaw' | 'Parquet';

/**
 * A failed ClickHouse call. `unreachable` when no answer came (connection refused, timeout): the
 * reports of ClickHouse answer 503 then. The message is the server's, minus anything that looks
 * like a URL's credentials.
 */
export class ClickHouseFailure extends Error {
  constructor(
    message: string,
    readonly unreachable: boolean,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ClickHouseFailure';
  }

  static of(error: unknown, description: string): ClickHouseFailure {
    if (error instanceof ClickHouseFailure) return error;
    const e = error as { message?: string; code?: string | number; type?: string };
    const message = redactUrls(String(e.message ?? error));
    const networkCodes = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', 'EAI_AGAIN'];
    const unreachable =
      (typeof e.code === 'string' && networkCodes.includes(e.code)) ||
      /timeout|socket hang up|ECONNREFUSED/i.test(message);
    return new ClickHouseFailure(
      `${description}: ${message}`,
      unreachable,
      e.type ?? (e.code === undefined ? undefined : String(e.code)),
    );
  }
}

/** `https://user:secret@host:8443/db` -> `https://user:***@host:8443/db`. */
export function redactedUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = '***';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '(not a URL)';
  }
}

function redactUrls(text: string): string {
  return text.replace(/(\w+:\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');
}
