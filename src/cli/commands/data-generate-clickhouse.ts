import { postgresSource, prepareFactNodes, releaseSchemas } from '../../clickhouse/facts/fact-schema.js';
import { connectTopology } from '../../clickhouse/facts/clickhouse-facts.js';
import { parseShardUrls } from '../../clickhouse/facts/fact-topology.js';
import { loadFactsFromDuckDb } from '../../clickhouse/facts/load-facts.js';
import type { ServiceConfig } from '../../config/config.js';
import type { GenerateResult } from '../../generator/generate.js';
import type { Database } from '../../store/database.js';
import { CliError } from '../command.js';

/** The generated organizations' facts and rollups from the scratch file into the deployment's ClickHouse. */
export async function loadGeneratedFacts(
  db: Database,
  config: ServiceConfig,
  result: GenerateResult,
  log: (line: string) => void,
): Promise<void> {
  const shards = config.clickhouseShardUrls ? parseShardUrls(config.clickhouseShardUrls) : undefined;
  if (shards === undefined && config.clickhouseUrl === undefined)
    throw new CliError('ADREPORT_FACTS=clickhouse needs ADREPORT_CLICKHOUSE_SHARD_URLS or ADREPORT_CLICKHOUSE_URL', 2);
  const topology = await connectTopology({ url: config.clickhouseUrl, cluster: config.clickhouseCluster }, shards);
  try {
    const schemas = await releaseSchemas();
    await prepareFactNodes(topology, schemas, postgresSource(config.clickhousePostgresUrl ?? config.storeUrl!));
    const started = performance.now();
    const rows = await loadFactsFromDuckDb(
      db,
      topology,
      schemas,
      result.organizations.map((o) => o.id),
    );
    const seconds = (performance.now() - started) / 1000;
    log(
      `data generate: ${rows} fact and rollup rows loaded into ClickHouse (${topology.description}) in ${seconds.toFixed(1)} s`,
    );
  } finally {
    await topology.close();
  }
}
