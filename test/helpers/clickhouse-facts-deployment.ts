import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openFactNodes } from '../../src/clickhouse/facts/clickhouse-facts.js';
import { loadFactsFromDuckDb } from '../../src/clickhouse/facts/load-facts.js';
import { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { loadFxReference } from '../../src/reference/fx-rates.js';
import { copyFromDuckDb, planCopy } from '../../src/store/postgres/copy-from-duckdb.js';
import { migratePostgres } from '../../src/store/postgres/postgres-migrate.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { TestCluster } from './clickhouse-cluster.js';
import type { Deployment, DeploymentUnderTest, ParityData } from './parity-suite.js';
import type { TestPostgres } from './postgres-server.js';
import { issueToken, startReplicas, type ReplicaSet } from './replicas.js';
import { copyWorld, WORLD_FILE } from './worlds.js';

/** The deployment of issue 38 as it runs: replicas of the bin on PostgreSQL, facts on a ClickHouse cluster. */
export interface FactsDeployment extends Deployment {
  readonly replicas: ReplicaSet;
  /** The ClickHouse database (on every node) and the PostgreSQL store of this deployment. */
  readonly database: string;
  readonly storeUrl: string;
  /** ADREPORT_CLICKHOUSE_SHARD_URLS of its replicas. */
  readonly shardUrls: string;
  readonly organizations: ReadonlyArray<{ id: number; clientId: string; clientSecret: string }>;
}

/** A DeploymentUnderTest whose start says what it started. */
export interface FactsDeploymentUnderTest extends DeploymentUnderTest {
  start(data: ParityData): Promise<FactsDeployment>;
}

let deployments = 0;

/** The cluster's node URLs as ADREPORT_CLICKHOUSE_SHARD_URLS, on `database`. */
export function shardUrlsOf(cluster: TestCluster, database: string): string {
  const shards = new Map<number, string[]>();
  for (const node of cluster.nodes) {
    const url = new URL(node.url);
    url.pathname = `/${database}`;
    shards.set(node.shard, [...(shards.get(node.shard) ?? []), url.toString()]);
  }
  return [...shards.keys()]
    .sort((a, b) => a - b)
    .map((shard) => shards.get(shard)!.join('|'))
    .join(',');
}

/**
 * A world served by `replicas` processes of the built bin with `--store` on a fresh PostgreSQL
 * database and `ADREPORT_FACTS=clickhouse` on a fresh database of every node of `cluster`: the
 * world's DuckDB file (with the corpus's edits) is moved in as an upgrade would move it (the
 * store's rows with migrate-store's copy, the facts and rollups with the loader `data generate`
 * uses), so both deployments of a comparison serve the same rows.
 */
export function clickhouseFactsDeployment(
  pg: TestPostgres,
  cluster: TestCluster,
  options: { replicas?: number; env?: Record<string, string> } = {},
): FactsDeploymentUnderTest {
  return {
    name: `postgres + clickhouse ${cluster.nodes.length} nodes`,
    reportEngine: 'clickhouse',
    async start({ world, rollups, edit }): Promise<FactsDeployment> {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-facts-deployment-'));
      const made = await copyWorld(world, dir);
      const database = `facts_${process.pid}_${++deployments}`;
      for (const node of cluster.nodes) await cluster.query(node.shard, node.replica, `CREATE DATABASE ${database}`);
      const shardUrls = shardUrlsOf(cluster, database);
      const storeUrl = await pg.createDatabase();
      const db = await Database.open(path.join(dir, WORLD_FILE), { readConnections: 1, maxQueued: 16 });
      try {
        await migrate(db);
        // As a service starting on the file would (the reference does): the edits remove some of these rates.
        await loadFxReference(db);
        await edit((sql, params) => db.write('all-organizations', (tx) => tx.run(sql, params)));
        const target = await PostgresStore.open(storeUrl, { connections: 2, maxQueued: 16 });
        try {
          await migratePostgres(target);
          await copyFromDuckDb(db, target, await planCopy(db, target, { factsElsewhere: true }));
        } finally {
          await target.close();
        }
        const { topology, schemas } = await openFactNodes({
          url: undefined,
          shardUrls: shardUrls.split(','),
          cluster: cluster.cluster,
          postgresUrl: storeUrl,
        });
        try {
          await loadFactsFromDuckDb(
            db,
            topology,
            schemas,
            made.organizations.map((o) => o.id),
          );
        } finally {
          await topology.close();
        }
      } finally {
        await db.close();
      }
      const replicas = await startReplicas({
        storeUrl,
        filesDir: path.join(dir, 'files'),
        count: options.replicas ?? 3,
        env: {
          ADREPORT_FACTS: 'clickhouse',
          ADREPORT_CLICKHOUSE_SHARD_URLS: shardUrls,
          ADREPORT_CLICKHOUSE_CLUSTER: cluster.cluster,
          ADREPORT_ROLLUPS: String(rollups),
          ADREPORT_DB_TIME_MS_PER_SECOND: '0',
          ...options.env,
        },
      });
      const first = replicas.all[0]!;
      const tokens = [];
      for (const org of made.organizations) tokens.push(await issueToken(first, org.clientId, org.clientSecret));
      return {
        url: first.url,
        ca: replicas.ca,
        tokens,
        get errors() {
          return replicas.all.flatMap((r) =>
            r
              .stderr()
              .split('\n')
              .filter((line) => line.includes('"level":"error"')),
          );
        },
        replicas,
        database,
        storeUrl,
        shardUrls,
        organizations: made.organizations,
        async close() {
          await replicas.close();
          // Its PostgreSQL-engine tables hold connections to the store until dropped.
          for (const node of cluster.nodes)
            await cluster
              .query(node.shard, node.replica, `DROP DATABASE IF EXISTS ${database}_reads`)
              .catch(() => undefined);
          for (const node of cluster.nodes)
            await cluster.query(node.shard, node.replica, `DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
