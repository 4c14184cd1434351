import fs from 'node:fs';
import type { ClickHouseSettings } from '@clickhouse/client';
import os from 'node:os';
import path from 'node:path';
import type { ReportEngine } from '../reporting/report-engine.js';
import type { Store } from '../store/store.js';
import { ClickHouse, ClickHouseFailure, type ClickHouseTarget } from './clickhouse-connection.js';
import { ClickHouseReportEngine, type ClickHouseSql } from './clickhouse-engine.js';
import { ClickHouseSelection, type ClickHouseFallback } from './engine-selection.js';
import { ClickHouseReplicator } from './replicator.js';

export interface ClickHouseReportsConfig {
  /** A server URL (credentials in it), or undefined: embedded next to the DuckDB file. */
  readonly url: string | undefined;
  readonly dbPath: string;
  readonly fallback: ClickHouseFallback;
  /** A sharded cluster: a URL per shard, for replication (reads go through `url`). */
  readonly shardUrls?: readonly string[] | undefined;
  readonly concurrency: number;
  readonly maxQueued: number;
}

export interface ClickHouseReports {
  readonly selection: ClickHouseSelection;
  readonly replicator: ClickHouseReplicator;
  readonly engine: ClickHouseReportEngine;
  readonly description: string;
  close(): Promise<void>;
}

/** Where the embedded engine keeps its data: `<db dir>/clickhouse`. */
export function embeddedDirectory(dbPath: string): string {
  return path.join(path.dirname(path.resolve(dbPath)), 'clickhouse');
}

/**
 * `serve --report-engine clickhouse`: connects, checks or creates the replica's schema (a
 * mismatch stops the start with its message), then replicates in the background; until an
 * organization is caught up, DuckDB answers its reports.
 */
export async function startClickHouseReports(
  db: Store,
  duckdb: ReportEngine,
  sql: ClickHouseSql,
  config: ClickHouseReportsConfig,
  log: (line: string) => void,
): Promise<ClickHouseReports> {
  const target: ClickHouseTarget =
    config.url === undefined
      ? { kind: 'embedded', directory: path.join(embeddedDirectory(config.dbPath), 'data') }
      : { kind: 'server', url: config.url };
  const clickhouse = await ClickHouse.connect(target);
  const shards = await Promise.all((config.shardUrls ?? []).map((url) => ClickHouse.connect({ kind: 'server', url })));
  // DuckDB writes files under the temp directory only (the store's allowed_directories).
  const stagingDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-replication-'));
  // On a cluster: joins of co-sharded tables run on each shard, a one-organization query on its own.
  const clusterSettings: ClickHouseSettings =
    shards.length === 0 ? {} : { distributed_product_mode: 'local', optimize_skip_unused_shards: 1 };
  const engine = new ClickHouseReportEngine(
    clickhouse,
    { ...sql, settings: { ...sql.settings, ...clusterSettings } },
    {
      concurrency: config.concurrency,
      maxQueued: config.maxQueued,
    },
  );
  const replicator = new ClickHouseReplicator(db, clickhouse, {
    stagingDirectory,
    log,
    shards,
    onReachability: (up) => (up ? engine.markReachable() : engine.markUnreachable()),
  });
  try {
    await replicator.prepare();
  } catch (error) {
    // Away at start: serve anyway (DuckDB answers until replicated); the replicator retries.
    if (error instanceof ClickHouseFailure && error.unreachable) {
      log(`clickhouse: ${error.message}; reports stay on DuckDB until it answers`);
    } else {
      await Promise.all([clickhouse, ...shards].map((c) => c.close().catch(() => undefined)));
      throw error;
    }
  }
  db.versions.onAdvance((scope) => replicator.changed(scope));
  const selection = new ClickHouseSelection(duckdb, engine, replicator, config.fallback);
  log(`clickhouse: reports on ${clickhouse.description}; replicating from DuckDB in the background`);
  replicator.start();
  return {
    selection,
    replicator,
    engine,
    description: clickhouse.description,
    async close() {
      engine.close();
      await replicator.stop();
      await Promise.all([clickhouse, ...shards].map((c) => c.close()));
    },
  };
}
