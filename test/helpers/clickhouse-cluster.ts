import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startLocalCluster,
  startNode,
  stopNode,
  type LocalCluster,
  type LocalClusterNode,
} from '../../src/clickhouse/cluster/local-cluster.js';

/**
 * A real ClickHouse cluster for a test file (issue 38): `adreport clickhouse cluster up`'s
 * library on a temp directory, shards x replicas chDB node processes on 127.0.0.1 with this
 * release's tables (Distributed by organization_id over `<table>_local`). About 200 MB per node:
 * start it in beforeAll, close it in afterAll. Nodes still running when the test process exits
 * are SIGKILLed.
 */
export interface TestCluster {
  readonly dir: string;
  readonly cluster: string;
  readonly database: string;
  /** Shard then replica order; a restarted node's entry has its new pid. */
  readonly nodes: readonly LocalClusterNode[];
  /** Each node's `http://127.0.0.1:PORT/<database>` (what ADREPORT_CLICKHOUSE_URL takes), in `nodes` order. */
  readonly urls: readonly string[];
  node(shard: number, replica: number): LocalClusterNode;
  /** SIGKILL, and wait until the process is gone. */
  kill(shard: number, replica: number): Promise<void>;
  /** Start a stopped node again on its ports over its data; resolves once it answers. */
  restart(shard: number, replica: number): Promise<LocalClusterNode>;
  /** One statement over HTTP in the cluster's database; a SELECT's rows as JSON objects. */
  query<T = Record<string, unknown>>(shard: number, replica: number, sql: string): Promise<T[]>;
  /** Stop every node and remove the directory. */
  close(): Promise<void>;
}

export async function startTestCluster(options: { shards: number; replicas: number }): Promise<TestCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-ch-cluster-'));
  let running: readonly LocalClusterNode[] = [];
  const killAll = () => {
    for (const node of running)
      try {
        process.kill(node.pid, 'SIGKILL');
      } catch {
        // gone already
      }
  };
  // A test process that ends without afterAll (a crash, a timeout) must not leave nodes behind.
  process.on('exit', killAll);
  let state: LocalCluster;
  try {
    // It stops what it started when it fails.
    state = await startLocalCluster({ dir, shards: options.shards, replicas: options.replicas });
  } catch (error) {
    process.off('exit', killAll);
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  running = state.nodes;
  const node = (shard: number, replica: number) => {
    const found = state.nodes.find((n) => n.shard === shard && n.replica === replica);
    if (found === undefined)
      throw new Error(`no node s${shard}r${replica} in this ${state.shards}x${state.replicas} cluster`);
    return found;
  };
  return {
    dir,
    cluster: state.cluster,
    database: state.database,
    get nodes() {
      return state.nodes;
    },
    get urls() {
      return state.nodes.map((n) => n.url);
    },
    node,
    async kill(shard, replica) {
      await stopNode(dir, shard, replica, 'SIGKILL');
    },
    async restart(shard, replica) {
      const started = await startNode(dir, shard, replica);
      state = { ...state, nodes: state.nodes.map((n) => (n.shard === shard && n.replica === replica ? started : n)) };
      running = state.nodes;
      return started;
    },
    async query<T>(shard: number, replica: number, sql: string): Promise<T[]> {
      const { httpPort } = node(shard, replica);
      const url = `http://127.0.0.1:${httpPort}/?database=${state.database}&default_format=JSONEachRow`;
      const response = await fetch(url, { method: 'POST', body: sql });
      const text = await response.text();
      if (!response.ok) throw new Error(`node s${shard}r${replica}: ${text.trim()}`);
      return text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as T);
    },
    async close() {
      try {
        await Promise.all(state.nodes.map((n) => stopNode(dir, n.shard, n.replica, 'SIGKILL')));
      } finally {
        process.off('exit', killAll);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
