import { openFactNodes } from '../../clickhouse/facts/clickhouse-facts.js';
import { FactTopologyError } from '../../clickhouse/facts/fact-topology.js';
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
  const { topology, schemas } = await openFactNodes({
    url: config.clickhouseUrl,
    shardUrls: config.clickhouseShardUrls,
    cluster: config.clickhouseCluster,
    postgresUrl: config.clickhousePostgresUrl ?? config.storeUrl!,
  }).catch((error: unknown) => {
    throw error instanceof FactTopologyError ? new CliError(error.message, 2) : error;
  });
  try {
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
