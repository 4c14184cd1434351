import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../../store/database.js';
import { migrate } from '../../store/migrate.js';
import { tableSchema, type TableSchema } from '../clickhouse-schema.js';
import { REPLICATED_TABLES } from '../replicated-tables.js';
import { readSourceColumns } from '../source-columns.js';

/**
 * The replicated tables' ClickHouse columns, from a scratch DuckDB migrated to this release's
 * schema (as `adreport clickhouse schema` derives them): a cluster made for this release takes
 * what its replicator will copy.
 */
export async function migratedSchemas(): Promise<TableSchema[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-schema-'));
  try {
    const db = await Database.open(path.join(dir, 'schema.duckdb'), {
      readConnections: 1,
      maxQueued: 4,
      exportConnections: 0,
      threads: 1,
    });
    try {
      await migrate(db);
      const columns = await db.read((r) => readSourceColumns(r));
      return REPLICATED_TABLES.map((table) => tableSchema(table, columns.get(table.name) ?? []));
    } finally {
      await db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
