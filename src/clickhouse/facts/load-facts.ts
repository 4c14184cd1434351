import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../../store/database.js';
import { quoteName, type TableSchema } from '../clickhouse-schema.js';
import { stagingName } from './fact-schema.js';
import type { FactTopology } from './fact-topology.js';

/**
 * Facts made in a DuckDB file (the generator's scratch file, or an embedded deployment being
 * upgraded) into ClickHouse: per organization and fact or rollup table, DuckDB writes the rows as
 * Parquet, every replica of the organization's shard loads them into the staging table, and each
 * (organization, month) partition is swapped in with REPLACE PARTITION. Loading the same file
 * twice gives the same partitions (a run stopped half-way is run again). Returns the rows loaded.
 */
export async function loadFactsFromDuckDb(
  source: Database,
  topology: FactTopology,
  schemas: readonly TableSchema[],
  organizations: readonly number[],
  progress: (done: number, total: number) => void = () => undefined,
): Promise<number> {
  const facts = schemas.filter((s) => s.table.partition === 'organization-month');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-facts-'));
  let rows = 0;
  let done = 0;
  try {
    for (const organizationId of organizations) {
      for (const schema of facts) {
        rows += await loadTable(source, topology, schema, organizationId, directory);
        progress(++done, organizations.length * facts.length);
      }
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
  return rows;
}

async function loadTable(
  source: Database,
  topology: FactTopology,
  schema: TableSchema,
  organizationId: number,
  directory: string,
): Promise<number> {
  if (!Number.isSafeInteger(organizationId)) throw new Error(`not an organization id: ${organizationId}`);
  const name = schema.table.name;
  const columns = schema.columns.map(([column]) => column);
  const file = path.join(directory, `${name}-${organizationId}.parquet`);
  const select = `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${quoteDuckDb(name)} WHERE organization_id = ${organizationId} ORDER BY ${schema.table.orderBy.join(', ')}`;
  await source.readExport(organizationId, (r) =>
    r.runOnce(`COPY (${select}) TO '${file.replace(/'/g, "''")}' (FORMAT parquet)`, []),
  );
  let loaded = 0;
  try {
    for (const node of topology.shardOf(organizationId)) {
      const ch = node.clickhouse;
      const staging = quoteName(stagingName(name));
      const where = { organization: organizationId };
      await ch.command(`ALTER TABLE ${staging} DELETE WHERE organization_id = {organization:Int64}`, where, {
        mutations_sync: '2',
      });
      await ch.loadParquet(stagingName(name), file, columns);
      const months = await ch.rows<{ month: number; n: number }>(
        `SELECT toYYYYMM(day) AS month, count() AS n FROM ${staging} WHERE organization_id = {organization:Int64} GROUP BY month ORDER BY month`,
        where,
        { output_format_json_quote_64bit_integers: 0 },
      );
      const target = quoteName(topology.localName(name));
      for (const { month } of months) {
        const partition = `tuple(${organizationId}, ${Math.trunc(Number(month))})`;
        await ch.command(`ALTER TABLE ${target} REPLACE PARTITION ${partition} FROM ${staging}`);
        await ch.command(`ALTER TABLE ${staging} DROP PARTITION ${partition}`);
      }
      loaded = months.reduce((sum, m) => sum + Number(m.n), 0);
    }
  } finally {
    fs.rmSync(file, { force: true });
  }
  return loaded;
}

/** Table names come from REPLICATED_TABLES; the check keeps it that way. */
function quoteDuckDb(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a table name: ${name}`);
  return `"${name}"`;
}
