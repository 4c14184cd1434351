import fs from 'node:fs';
import path from 'node:path';
import { ClickHouse } from '../clickhouse-connection.js';
import { clusterDdl, DEFAULT_CLUSTER_DATABASE, parseClusterLayout, type ClusterLayout } from '../cluster-ddl.js';
import { BOOKKEEPING_DDL } from '../replicator.js';
import {
  DEFAULT_LOCAL_CLUSTER,
  nodeFiles,
  nodeLabel,
  readClusterFile,
  writeClusterFile,
  type LocalCluster,
  type LocalClusterNode,
} from './cluster-state.js';
import { buildLauncher, libchdbPath } from './launcher.js';
import { LocalClusterError } from './local-cluster-error.js';
import { migratedSchemas } from './migrated-schemas.js';
import { nodeConfigXml } from './node-config.js';
import { runningPid, spawnNode, stopNodeProcess, waitAnswering, type NodeProcessSpec } from './node-process.js';
import { freePorts } from './ports.js';

export { DEFAULT_LOCAL_CLUSTER, type LocalCluster, type LocalClusterNode } from './cluster-state.js';

/** How long a node may take to answer SELECT 1 after its start: ~0.3 s idle, far more on a loaded machine. */
const ANSWER_CEILING_MS = 180_000;

export interface LocalClusterOptions {
  readonly dir: string;
  readonly shards: number;
  readonly replicas: number;
  /** The cluster name of remote_servers and the Distributed tables (default adreport). */
  readonly cluster?: string;
  /** The database of the tables and of each node's URL (default adreport). */
  readonly database?: string;
  /** Progress lines: "node s1r1 answering on http://127.0.0.1:PORT", ... */
  readonly log?: (line: string) => void;
  readonly answerCeilingMs?: number;
}

/**
 * A ClickHouse cluster on this machine, for development and tests (issue 38): shards x replicas
 * nodes of npm's chDB, each a process of its own serving HTTP and the native protocol on
 * 127.0.0.1, under `dir`, with this release's tables on every node (`<table>_local` MergeTree +
 * Distributed by organization_id, FX and the replicator's bookkeeping local; no Keeper, so no
 * ReplicatedMergeTree: a Distributed insert writes each replica of its shard). Resolves once every
 * node answers and has its tables, with what `dir/cluster.json` then holds.
 *
 * On a directory that holds a cluster already, starts the nodes that are not running on their
 * ports over their data (none when all run), so it is safe to call again.
 */
export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  const layout = parseClusterLayout({
    cluster: options.cluster ?? DEFAULT_LOCAL_CLUSTER,
    shards: String(options.shards),
    replicas: String(options.replicas),
    database: options.database ?? DEFAULT_CLUSTER_DATABASE,
  });
  const dir = path.resolve(options.dir);
  const log = options.log ?? (() => undefined);
  fs.mkdirSync(dir, { recursive: true });
  const existing = readClusterFile(dir);
  if (existing !== undefined) assertSameLayout(dir, existing, layout);
  const planned: PlannedCluster = existing ?? (await plan(dir, layout));
  // The columns come from DuckDB's migrations: made while the nodes start.
  const schemas = migratedSchemas();
  schemas.catch(() => undefined);

  const ceiling = options.answerCeilingMs ?? ANSWER_CEILING_MS;
  const started: LocalClusterNode[] = [];
  try {
    const nodes = await startNodes(dir, planned, planned.nodes, ceiling, log, started);
    const cluster: LocalCluster = { ...planned, nodes };
    const statements = clusterDdl(layout, await schemas, BOOKKEEPING_DDL, { replicated: false });
    await Promise.all(nodes.map((node) => runStatements(node.httpPort, statements)));
    writeClusterFile(dir, cluster);
    log(
      started.length === 0
        ? `cluster ${layout.cluster} in ${dir} already running: ${nodes.length} node(s)`
        : `cluster ${layout.cluster}: ${layout.shards} shard(s) x ${layout.replicas} replica(s) answering, tables in database ${layout.database}; data and logs in ${dir}`,
    );
    return cluster;
  } catch (error) {
    // What this call started, it stops: the directory is as it found it, plus data.
    await Promise.all(started.map((n) => stopNodeProcess(nodeDir(dir, n), 'SIGTERM').catch(() => undefined)));
    throw error;
  }
}

/**
 * Stops every node (SIGTERM, SIGKILL after a ceiling) and waits until each process is gone.
 * Removes only the pid files: data, configs and logs stay for the next `startLocalCluster`.
 */
export async function stopLocalCluster(
  dir: string,
  options: { readonly log?: (line: string) => void } = {},
): Promise<Array<{ shard: number; replica: number; pid: number | null }>> {
  const cluster = clusterIn(path.resolve(dir));
  const log = options.log ?? (() => undefined);
  return Promise.all(
    cluster.nodes.map(async (node) => {
      const pid = await stopNodeProcess(nodeDir(path.resolve(dir), node), 'SIGTERM');
      const label = nodeLabel(node.shard, node.replica);
      log(pid === undefined ? `node ${label} was not running` : `node ${label} stopped (pid ${pid})`);
      return { shard: node.shard, replica: node.replica, pid: pid ?? null };
    }),
  );
}

/** Sends `signal` to one node and waits until its process is gone (a SIGTERM ignored for 60 s becomes SIGKILL). */
export async function stopNode(
  dir: string,
  shard: number,
  replica: number,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const root = path.resolve(dir);
  await stopNodeProcess(nodeDir(root, nodeOf(clusterIn(root), shard, replica)), signal);
}

/**
 * Starts one stopped node again on its ports over its data and waits until it answers (does
 * nothing to a running one). One at a time per directory: it rewrites cluster.json's pid.
 */
export async function startNode(dir: string, shard: number, replica: number): Promise<LocalClusterNode> {
  const root = path.resolve(dir);
  const cluster = clusterIn(root);
  const node = nodeOf(cluster, shard, replica);
  const [started] = await startNodes(root, cluster, [node], ANSWER_CEILING_MS, () => undefined, []);
  const current = clusterIn(root);
  writeClusterFile(root, {
    ...current,
    nodes: current.nodes.map((n) => (n.shard === shard && n.replica === replica ? started! : n)),
  });
  return started!;
}

/** A node before its first start: no pid yet. */
type PlannedNode = Omit<LocalClusterNode, 'pid'>;
type PlannedCluster = Omit<LocalCluster, 'nodes'> & { readonly nodes: readonly PlannedNode[] };

/** A new cluster's nodes: two free ports each, in shard then replica order. */
async function plan(dir: string, layout: ClusterLayout): Promise<PlannedCluster> {
  const count = layout.shards * layout.replicas;
  const ports = await freePorts(2 * count);
  const nodes: PlannedNode[] = [];
  for (let shard = 1; shard <= layout.shards; shard++)
    for (let replica = 1; replica <= layout.replicas; replica++) {
      const i = nodes.length;
      const httpPort = ports[2 * i]!;
      nodes.push({
        shard,
        replica,
        url: `http://127.0.0.1:${httpPort}/${layout.database}`,
        httpPort,
        tcpPort: ports[2 * i + 1]!,
        path: path.join(dir, nodeLabel(shard, replica)),
      });
    }
  const { cluster, database, shards, replicas } = layout;
  return { cluster, database, shards, replicas, nodes };
}

/**
 * Starts those of `nodes` that are not running (their config written afresh from `cluster`), then
 * waits until every one answers. `started` collects what this call started, for cleanup.
 */
async function startNodes(
  dir: string,
  cluster: PlannedCluster,
  nodes: readonly PlannedNode[],
  ceilingMs: number,
  log: (line: string) => void,
  started: LocalClusterNode[],
): Promise<LocalClusterNode[]> {
  let tools: Promise<{ launcher: string; libchdb: string }> | undefined;
  const needTools = () =>
    (tools ??= (async () => ({ libchdb: libchdbPath(), launcher: await buildLauncher(path.join(dir, 'bin')) }))());
  const running = nodes.map((node) => ({ node, pid: runningPid(nodeDir(dir, node)) }));
  const launched: Array<{ node: PlannedNode; spec: NodeProcessSpec; pid: number; fresh: boolean }> = [];
  for (const { node, pid } of running) {
    const spec = specOf(dir, node);
    if (pid !== undefined) {
      launched.push({ node, spec, pid, fresh: false });
      continue;
    }
    const { launcher, libchdb } = await needTools();
    const files = nodeFiles(spec.nodeDir);
    fs.mkdirSync(spec.nodeDir, { recursive: true });
    fs.writeFileSync(
      files.config,
      nodeConfigXml({
        cluster: cluster.cluster,
        shard: node.shard,
        replica: spec.label,
        logFile: files.clickhouseLog,
        errorLogFile: files.errorLog,
        shards: shardAddresses(cluster),
      }),
    );
    const newPid = spawnNode(launcher, libchdb, spec);
    started.push({ ...node, pid: newPid });
    launched.push({ node, spec, pid: newPid, fresh: true });
  }
  return Promise.all(
    launched.map(async ({ node, spec, pid, fresh }) => {
      await waitAnswering(spec, pid, ceilingMs);
      log(
        fresh
          ? `node ${spec.label} answering on http://127.0.0.1:${node.httpPort} (pid ${pid})`
          : `node ${spec.label} already running on http://127.0.0.1:${node.httpPort} (pid ${pid})`,
      );
      const { shard, replica, url, httpPort, tcpPort } = node;
      return { shard, replica, url, httpPort, tcpPort, pid, path: spec.nodeDir };
    }),
  );
}

/** Every node's native address, shard by shard, as each node's remote_servers lists them. */
function shardAddresses(cluster: PlannedCluster) {
  return Array.from({ length: cluster.shards }, (_, s) =>
    cluster.nodes
      .filter((n) => n.shard === s + 1)
      .sort((a, b) => a.replica - b.replica)
      .map((n) => ({ host: '127.0.0.1', port: n.tcpPort })),
  );
}

async function runStatements(httpPort: number, statements: readonly string[]): Promise<void> {
  // The database may not exist yet: the statements name it themselves.
  const clickhouse = await ClickHouse.connect({ kind: 'server', url: `http://127.0.0.1:${httpPort}/` });
  try {
    for (const statement of statements) await clickhouse.command(statement);
  } finally {
    await clickhouse.close();
  }
}

function specOf(dir: string, node: PlannedNode): NodeProcessSpec {
  return {
    label: nodeLabel(node.shard, node.replica),
    nodeDir: nodeDir(dir, node),
    httpPort: node.httpPort,
    tcpPort: node.tcpPort,
  };
}

/** The node's directory under `dir` (not the recorded path: the directory may have moved). */
function nodeDir(dir: string, node: { shard: number; replica: number }): string {
  return path.join(dir, nodeLabel(node.shard, node.replica));
}

function clusterIn(dir: string): LocalCluster {
  const cluster = readClusterFile(dir);
  if (cluster === undefined)
    throw new LocalClusterError(
      'no-cluster',
      `no cluster in ${dir} (no cluster.json): start one with adreport clickhouse cluster up`,
    );
  return cluster;
}

function nodeOf(cluster: LocalCluster, shard: number, replica: number): LocalClusterNode {
  const node = cluster.nodes.find((n) => n.shard === shard && n.replica === replica);
  if (node === undefined)
    throw new LocalClusterError(
      'node-unknown',
      `the cluster has no node ${nodeLabel(shard, replica)} (${cluster.shards} shard(s) x ${cluster.replicas} replica(s))`,
    );
  return node;
}

function assertSameLayout(dir: string, found: LocalCluster, wanted: ClusterLayout): void {
  const same =
    found.cluster === wanted.cluster &&
    found.database === wanted.database &&
    found.shards === wanted.shards &&
    found.replicas === wanted.replicas;
  if (!same)
    throw new LocalClusterError(
      'layout-differs',
      `${dir} holds cluster ${found.cluster} (database ${found.database}) of ${found.shards} shard(s) x ${found.replicas} replica(s), ` +
        `not ${wanted.cluster} (database ${wanted.database}) of ${wanted.shards} x ${wanted.replicas}: ` +
        `use another --dir, or the same flags`,
    );
}
