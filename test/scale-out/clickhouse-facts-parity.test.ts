import { afterAll } from 'vitest';
import { clickhouseFactsDeployment } from '../helpers/clickhouse-facts-deployment.js';
import { factsClusterEnvironment } from '../helpers/facts-cluster-environment.js';
import type { DeploymentUnderTest } from '../helpers/parity-suite.js';
import { KNOWN_DIFFERENCES, runParitySuite } from '../helpers/parity-suite.js';

/**
 * Issue 38 item 3: the parity corpus (test/helpers/parity-corpus.ts) against the scale-out
 * deployment as it runs: three replicas of the bin on PostgreSQL, facts on a real 2 x 2 ClickHouse
 * cluster (chDB nodes, test/helpers/clickhouse-cluster.ts), the same world as the embedded DuckDB
 * service it is compared with; aggregate tables on and off.
 */
const environment = factsClusterEnvironment();
afterAll(() => environment.close(), 120_000);

const onCluster: DeploymentUnderTest = {
  name: 'postgres + clickhouse 2x2',
  reportEngine: 'clickhouse',
  async start(data) {
    const { pg, cluster } = await environment.ready();
    return clickhouseFactsDeployment(pg, cluster).start(data);
  },
};

for (const rollups of [true, false])
  runParitySuite(onCluster, { rollups, missingSourceCurrency: 'CHF', knownDifferences: KNOWN_DIFFERENCES });
