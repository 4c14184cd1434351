import type { Executor } from '../store/database.js';
import type { SourceColumn } from './clickhouse-schema.js';
import { REPLICATED_TABLES } from './replicated-tables.js';

/** The DuckDB columns of every replicated table, from the migrated file itself (one source of truth). */
export async function readSourceColumns(db: Executor): Promise<ReadonlyMap<string, SourceColumn[]>> {
  const rows = await db.all<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = 'main' AND table_name IN (SELECT unnest($1::VARCHAR[]))
      ORDER BY table_name, ordinal_position`,
    [REPLICATED_TABLES.map((t) => t.name)],
  );
  const byTable = new Map<string, SourceColumn[]>();
  for (const row of rows) {
    const list = byTable.get(row.table_name) ?? [];
    list.push({ name: row.column_name, type: row.data_type, nullable: row.is_nullable === 'YES' });
    byTable.set(row.table_name, list);
  }
  return byTable;
}
