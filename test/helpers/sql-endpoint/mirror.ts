import pg from 'pg';
import type { TestPostgres } from '../postgres-server.js';
import { textQuery, type TextResult } from './text-results.js';

/**
 * A real PostgreSQL holding what the SQL endpoint shows one organization: every relation of the
 * endpoint's catalog (information_schema, read through the endpoint) becomes a table with the
 * catalog's column types, filled with the rows `SELECT * FROM <relation>` answers through the
 * endpoint, value for value as text. The database's collation is the one the endpoint reports
 * (SHOW lc_collate / lc_ctype), so that ORDER BY over text means the same on both sides.
 */

export interface MirroredColumn {
  readonly name: string;
  /** information_schema.columns.data_type, e.g. "bigint", "double precision". */
  readonly type: string;
}

export interface MirroredRelation {
  readonly name: string;
  readonly columns: readonly MirroredColumn[];
  readonly rows: number;
}

export interface Mirror {
  readonly database: string;
  readonly relations: readonly MirroredRelation[];
  /** A client of the mirror database (closed by `close`). */
  readonly client: pg.Client;
  close(): Promise<void>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const BATCH = 5_000;

export async function mirrorEndpoint(endpoint: pg.Client, postgres: TestPostgres, database: string): Promise<Mirror> {
  const catalog = await textQuery(
    endpoint,
    `SELECT c.table_name, c.column_name, c.data_type
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const byRelation = new Map<string, MirroredColumn[]>();
  for (const [table, column, type] of catalog.rows) {
    const columns = byRelation.get(table!) ?? [];
    columns.push({ name: column!, type: type! });
    byRelation.set(table!, columns);
  }
  if (byRelation.size === 0) throw new Error('the endpoint lists no relations in information_schema.columns');

  const collate = (await textQuery(endpoint, 'SHOW lc_collate')).rows[0]![0]!;
  const ctype = (await textQuery(endpoint, 'SHOW lc_ctype')).rows[0]![0]!;
  await postgres.query(
    'postgres',
    `CREATE DATABASE ${quote(database)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE '${collate}' LC_CTYPE '${ctype}'`,
  );
  const client = new pg.Client({ connectionString: postgres.url(database) });
  client.on('error', () => {});
  await client.connect();

  const relations: MirroredRelation[] = [];
  for (const [name, columns] of byRelation) {
    const rows: TextResult = await textQuery(endpoint, `SELECT * FROM ${quote(name)}`);
    const names = rows.columns.map((c) => c.name);
    if (JSON.stringify(names) !== JSON.stringify(columns.map((c) => c.name)))
      throw new Error(
        `SELECT * FROM ${name} answers columns ${names.join(', ')}, the catalog lists ${columns.map((c) => c.name).join(', ')}`,
      );
    await client.query(`CREATE TABLE ${quote(name)} (${columns.map((c) => `${quote(c.name)} ${c.type}`).join(', ')})`);
    for (let start = 0; start < rows.rows.length; start += BATCH) {
      const batch = rows.rows.slice(start, start + BATCH);
      const arrays = columns.map((_, i) => batch.map((row) => row[i] ?? null));
      await client.query(
        `INSERT INTO ${quote(name)} SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')})`,
        arrays,
      );
    }
    await client.query(`ANALYZE ${quote(name)}`);
    relations.push({ name, columns, rows: rows.rows.length });
  }
  return {
    database,
    relations,
    client,
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}
