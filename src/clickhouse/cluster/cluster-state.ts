import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * What `adreport clickhouse cluster up` prints and keeps in `<dir>/cluster.json`: enough to reach
 * every node and to start a stopped one again on the same ports over the same data. The pids are
 * those of the last start; a node's pid file (removed when it stops) says whether it runs.
 */
const nodeSchema = z.object({
  shard: z.number().int().positive(),
  replica: z.number().int().positive(),
  /** `http://127.0.0.1:<httpPort>/<database>`: the form ADREPORT_CLICKHOUSE_URL takes. */
  url: z.string(),
  httpPort: z.number().int().positive(),
  /** The native protocol port, which the other nodes' Distributed tables reach it on. */
  tcpPort: z.number().int().positive(),
  pid: z.number().int().positive(),
  /** The node's directory: config.xml, data/, node.log, clickhouse.log, clickhouse.err.log, pid. */
  path: z.string(),
});

const clusterSchema = z.object({
  cluster: z.string(),
  database: z.string(),
  shards: z.number().int().positive(),
  replicas: z.number().int().positive(),
  nodes: z.array(nodeSchema),
});

export type LocalClusterNode = z.infer<typeof nodeSchema>;
export type LocalCluster = z.infer<typeof clusterSchema>;

export const CLUSTER_FILE = 'cluster.json';
/** The cluster name when none is given. */
export const DEFAULT_LOCAL_CLUSTER = 'adreport';

/** `<dir>/cluster.json`, or undefined when the directory holds no cluster. */
export function readClusterFile(dir: string): LocalCluster | undefined {
  const file = path.join(dir, CLUSTER_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = clusterSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a cluster adreport wrote: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** Written aside and renamed: a reader sees the old file or the new one. */
export function writeClusterFile(dir: string, cluster: LocalCluster): void {
  const file = path.join(dir, CLUSTER_FILE);
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(cluster, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

/** s1r2: shard 1, replica 2. */
export function nodeLabel(shard: number, replica: number): string {
  return `s${shard}r${replica}`;
}

/** The files of one node, under its directory. */
export function nodeFiles(nodeDir: string) {
  return {
    config: path.join(nodeDir, 'config.xml'),
    data: path.join(nodeDir, 'data'),
    /** The launcher's stdout and stderr: where a node that will not start says why. */
    log: path.join(nodeDir, 'node.log'),
    clickhouseLog: path.join(nodeDir, 'clickhouse.log'),
    errorLog: path.join(nodeDir, 'clickhouse.err.log'),
    pid: path.join(nodeDir, 'pid'),
  };
}
