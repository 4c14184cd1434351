import { PARTITION_EXPRESSIONS, quoteName, tableBody, type TableSchema } from '../clickhouse-schema.js';
import { readsDatabase, type FactNode, type FactTopology } from './fact-topology.js';

/** Where ClickHouse reads the dimensions from: the PostgreSQL store, as the ClickHouse nodes reach it. */
export interface PostgresSource {
  /** host:port */
  readonly address: string;
  readonly database: string;
  readonly user: string;
  readonly password: string;
}

export function postgresSource(storeUrl: string): PostgresSource {
  const url = new URL(storeUrl);
  return {
    address: `${url.hostname}:${url.port || '5432'}`,
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres',
    user: decodeURIComponent(url.username) || 'postgres',
    password: decodeURIComponent(url.password),
  };
}

/**
 * PostgreSQL connections each dimension table of each node may hold open. A statement takes one
 * per reference to the table while it reads (CTEs are inlined: a report with `compare` and
 * `totals=segments` names `accounts` or a label table more than 8 times), and one that needs more
 * than the pool waits for itself until ClickHouse gives up (POSTGRESQL_CONNECTION_FAILURE after
 * 5 s): 2 and 8 both failed the parity corpus. Pools fill only as far as they are used; a PgBouncer
 * in front of PostgreSQL keeps many nodes' connections few.
 */
export const DIMENSION_POOL_SIZE = 32;

/** The staging table of a fact table on a node: where a partition is rebuilt before it is swapped in. */
export const stagingName = (table: string) => `${table}_staging`;

/**
 * Makes every node hold what reports and the writer need, idempotently (each replica of the
 * service runs it at start):
 * - facts and rollups: a MergeTree partitioned by (organization, month), under a Distributed
 *   table sharded by organization_id on a cluster, plus its staging table;
 * - dimensions and FX rates: tables of ClickHouse's PostgreSQL engine over the store's own tables,
 *   replacing whatever had the name (the Distributed tables `clickhouse schema` prints for the
 *   replicated deployment): reports read the rows PostgreSQL holds at that moment, so a write
 *   acknowledged by any replica is in the next report without a copy to wait for.
 */
export async function prepareFactNodes(
  topology: FactTopology,
  schemas: readonly TableSchema[],
  postgres: PostgresSource,
): Promise<void> {
  for (const node of topology.nodes) await prepareNode(topology, node, schemas, postgres);
}

async function prepareNode(
  topology: FactTopology,
  node: FactNode,
  schemas: readonly TableSchema[],
  postgres: PostgresSource,
): Promise<void> {
  const ch = node.clickhouse;
  const reads = quoteName(readsDatabase(ch.database));
  await ch.command(`CREATE DATABASE IF NOT EXISTS ${reads}`);
  for (const schema of schemas) {
    const name = schema.table.name;
    if (schema.table.partition === 'organization-month') {
      const local = topology.localName(name);
      await ch.command(`CREATE TABLE IF NOT EXISTS ${quoteName(local)}\n${tableBody(schema, 'MergeTree')}`);
      if (topology.clustered)
        await ch.command(
          `CREATE TABLE IF NOT EXISTS ${quoteName(name)} AS ${quoteName(local)} ` +
            `ENGINE = Distributed(${literal(topology.cluster)}, currentDatabase(), ${literal(local)}, organization_id)`,
        );
      await ch.command(
        `CREATE TABLE IF NOT EXISTS ${quoteName(stagingName(name))} AS ${quoteName(local)} ENGINE = MergeTree ` +
          `PARTITION BY ${PARTITION_EXPRESSIONS['organization-month']} ORDER BY (${schema.table.orderBy.join(', ')})`,
      );
      await ch.command(
        `CREATE OR REPLACE VIEW ${reads}.${quoteName(name)} AS SELECT * FROM ${quoteName(ch.database)}.${quoteName(local)}`,
      );
      continue;
    }
    // The ClickHouse column of a table that borrows organization_id from its parent is not in PostgreSQL.
    const columns = schema.columns.filter(
      ([column]) => !(schema.table.organizationOf !== undefined && column === 'organization_id'),
    );
    await ch.command(
      `CREATE OR REPLACE TABLE ${quoteName(name)} (${columns.map(([c, type]) => `${quoteName(c)} ${type}`).join(', ')}) ` +
        `ENGINE = PostgreSQL(${literal(postgres.address)}, ${literal(postgres.database)}, ${literal(name)}, ` +
        `${literal(postgres.user)}, ${literal(postgres.password)}) ` +
        `SETTINGS postgresql_connection_pool_size = ${DIMENSION_POOL_SIZE}`,
    );
    await ch.command(
      `CREATE OR REPLACE VIEW ${reads}.${quoteName(name)} AS SELECT * FROM ${quoteName(ch.database)}.${quoteName(name)}`,
    );
  }
}

/** A ClickHouse string literal of configuration text (addresses, names, a password): quotes and backslashes escaped. */
function literal(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
