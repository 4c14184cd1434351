import type { FactWriter } from '../../statistics/fact-writer.js';
import type { ReportEngine, ReportEngineSelector } from '../../reporting/report-engine.js';
import type { ClickHouseSql } from '../clickhouse-engine.js';
import { ClickHouseFactWriter } from './clickhouse-fact-writer.js';
import type { TableSchema } from '../clickhouse-schema.js';
import { migratedSchemas } from '../cluster/migrated-schemas.js';
import { postgresSource, prepareFactNodes } from './fact-schema.js';
import { FactTopology, FactTopologyError, parseShardUrls } from './fact-topology.js';
import { ShardReportEngine } from './shard-report-engine.js';

export interface ClickHouseFactsConfig {
  /** One node with plain tables (no cluster). */
  readonly url: string | undefined;
  /** A cluster: per shard, its replicas' URLs (`a|b,c|d`); wins over `url`. */
  readonly shardUrls: readonly string[] | undefined;
  /** The remote_servers name of the cluster. */
  readonly cluster: string;
  /** The PostgreSQL store, as the ClickHouse nodes reach it. */
  readonly postgresUrl: string;
  readonly concurrency: number;
  readonly maxQueued: number;
}

/** The ClickHouse side of `--facts clickhouse`: where facts are written and where reports run. */
export interface ClickHouseFacts {
  readonly topology: FactTopology;
  readonly writer: FactWriter;
  readonly engine: ReportEngine & ReportEngineSelector;
  close(): Promise<void>;
}

/** What locates the nodes and what their dimension tables read. */
export type FactNodesConfig = Pick<ClickHouseFactsConfig, 'url' | 'shardUrls' | 'cluster' | 'postgresUrl'>;

/**
 * The nodes as configured (a cluster's, or one node, which is one of a cluster when its facts are
 * Distributed tables already: `clickhouse cluster up --shards 1 --replicas 1`), connected and
 * holding this release's tables. The caller closes the topology.
 */
export async function openFactNodes(
  config: FactNodesConfig,
): Promise<{ topology: FactTopology; schemas: TableSchema[] }> {
  const shards = config.shardUrls !== undefined ? parseShardUrls(config.shardUrls) : undefined;
  if (shards === undefined && config.url === undefined)
    throw new FactTopologyError(
      'ADREPORT_FACTS=clickhouse needs ADREPORT_CLICKHOUSE_SHARD_URLS (a cluster) or ADREPORT_CLICKHOUSE_URL (one node)',
    );
  const urls = shards ?? [[config.url!]];
  const clustered = shards !== undefined || (await FactTopology.isClusterNode(urls[0]![0]!));
  const topology = await FactTopology.connect(urls, { clustered, cluster: config.cluster });
  try {
    const schemas = await migratedSchemas();
    await prepareFactNodes(topology, schemas, postgresSource(config.postgresUrl));
    return { topology, schemas };
  } catch (error) {
    await topology.close();
    throw error;
  }
}

/**
 * Connects to every node, makes their tables (facts and rollups sharded by organization, the
 * dimensions as PostgreSQL-engine tables over the store) and returns the writer and the engine.
 * A node that does not answer stops the start with its message: the facts have no other home.
 */
export async function startClickHouseFacts(
  sql: ClickHouseSql,
  config: ClickHouseFactsConfig,
  log: (line: string) => void,
): Promise<ClickHouseFacts> {
  const { topology } = await openFactNodes(config);
  log(`clickhouse: facts on ${topology.description}; dimensions read from PostgreSQL through its table engine`);
  const engine = new ShardReportEngine(topology, sql, {
    concurrency: config.concurrency,
    maxQueued: config.maxQueued,
  });
  return {
    topology,
    writer: new ClickHouseFactWriter(topology),
    engine,
    close: () => topology.close(),
  };
}
