import fs from 'node:fs';
import path from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { localTableDdl, quoteName, tableSchema } from '../../src/clickhouse/clickhouse-schema.js';
import { REPLICATED_TABLES } from '../../src/clickhouse/replicated-tables.js';
import { readSourceColumns } from '../../src/clickhouse/source-columns.js';
import { bindClickhouseParams, CLICKHOUSE_QUERY_SETTINGS, type CompiledQuery } from '../../src/sql/compile-report.js';
import type { Database } from '../../src/store/database.js';

type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];

/** An embedded ClickHouse (chdb) holding a copy of the replicated tables of a DuckDB file. */
export interface ClickhouseCopy {
  readonly client: ClickHouseClient;
  /** A compiled ClickHouse statement's rows (JSONEachRow), bound as the engine binds them. */
  rows(query: CompiledQuery): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/**
 * Copies every table of REPLICATED_TABLES from `db` into a chdb data path under `dir`: DuckDB
 * writes each table as Parquet (a table without organization_id gets its parent's, last, as the
 * lead's schema declares it), ClickHouse creates it with localTableDdl and reads the file.
 */
export async function copyToClickhouse(db: Database, dir: string): Promise<ClickhouseCopy> {
  // The compiler names tables unqualified: they live in the session's database.
  const database = 'default';
  const sources = await db.read((r) => readSourceColumns(r));
  const client = createClient({
    // chdb types its connection against its own copy of @clickhouse/client-common: same shape.
    connection: createChdbConnection({ path: path.join(dir, 'clickhouse') }) as unknown as ClientConnection,
  });
  fs.mkdirSync(path.join(dir, 'parquet'), { recursive: true });
  for (const table of REPLICATED_TABLES) {
    const schema = tableSchema(table, sources.get(table.name) ?? []);
    const file = path.join(dir, 'parquet', `${table.name}.parquet`);
    const parent = table.organizationOf;
    const select =
      parent !== undefined && !(sources.get(table.name) ?? []).some((c) => c.name === 'organization_id')
        ? `SELECT t.*, o.organization_id FROM ${table.name} t JOIN ${parent.parent} o ON o.id = t.${parent.column}`
        : `SELECT * FROM ${table.name}`;
    await db.read((r) => r.run(`COPY (${select}) TO '${file}' (FORMAT parquet)`));
    await client.command({ query: localTableDdl(database, schema) });
    await client.command({
      query: `INSERT INTO ${quoteName(database)}.${quoteName(table.name)} SELECT * FROM file('${file}', Parquet)`,
    });
  }
  return {
    client,
    async rows(query) {
      const { sql, query_params } = bindClickhouseParams(query.sql, query.params);
      const result = await client.query({
        query: sql,
        query_params,
        format: 'JSONEachRow',
        clickhouse_settings: CLICKHOUSE_QUERY_SETTINGS,
      });
      return result.json<Record<string, unknown>>();
    },
    close: () => client.close(),
  };
}
