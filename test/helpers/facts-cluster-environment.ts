import { startTestCluster, type TestCluster } from './clickhouse-cluster.js';
import { startTestPostgres, type TestPostgres } from './postgres-server.js';

/** PostgreSQL and a 2 x 2 ClickHouse cluster for one test file, started once on first use. */
export interface FactsClusterEnvironment {
  ready(): Promise<{ pg: TestPostgres; cluster: TestCluster }>;
  close(): Promise<void>;
}

export function factsClusterEnvironment(layout = { shards: 2, replicas: 2 }): FactsClusterEnvironment {
  let started: Promise<{ pg: TestPostgres; cluster: TestCluster }> | undefined;
  return {
    ready() {
      started ??= (async () => {
        // Every dimension table of every node keeps a pool of connections to the store (DIMENSION_POOL_SIZE).
        const pg = await startTestPostgres('adreport-facts-pg-', { max_connections: 2000 });
        try {
          return { pg, cluster: await startTestCluster(layout) };
        } catch (error) {
          await pg.close();
          throw error;
        }
      })();
      return started;
    },
    async close() {
      if (started === undefined) return;
      const { pg, cluster } = await started;
      await cluster.close();
      await pg.close();
    },
  };
}
