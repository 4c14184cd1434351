import { DEFAULT_LOCAL_CLUSTER } from '../../clickhouse/cluster/cluster-state.js';
import {
  ClusterLayoutError,
  DEFAULT_CLUSTER_DATABASE,
  MAX_REPLICAS,
  MAX_SHARDS,
  parseClusterLayout,
  type ClusterLayout,
} from '../../clickhouse/cluster-ddl.js';
import { CliError, printResult, requireOption, type Command } from '../command.js';

/**
 * `adreport clickhouse cluster up|down` (issue 38 item 2): a real ClickHouse cluster on this
 * machine from npm's chDB, one process per node, for development and tests: the cluster layout of
 * `clickhouse schema`, without Keeper. The work is in src/clickhouse/cluster/; this maps flags and
 * its failures to the CLI's.
 */
export const clickhouseClusterUp: Command = {
  path: ['clickhouse', 'cluster', 'up'],
  summary:
    'Start a local ClickHouse cluster (chDB nodes on 127.0.0.1) with the Distributed tables, for development and tests',
  usage: 'adreport clickhouse cluster up --shards N --replicas R --dir DIR [--cluster NAME] [--database DB] [--json]',
  optionHelp: [
    `--shards N         shards, 1-${MAX_SHARDS}; organization K lives on shard (K mod N) + 1`,
    `--replicas R       replicas per shard, 1-${MAX_REPLICAS} (each node is a process of about 200 MB)`,
    "--dir DIR          the cluster's directory: cluster.json, the launcher (bin/), a directory per node (s1r1, ...)",
    `--cluster NAME     the cluster name of remote_servers and the Distributed tables (default ${DEFAULT_LOCAL_CLUSTER})`,
    `--database DB      the database of the tables and of the URLs (default ${DEFAULT_CLUSTER_DATABASE})`,
  ],
  notes: [
    'Each node is clickhouse-local from libchdb.so (npm ci installs it), run by a launcher compiled here with cc or gcc.',
    'Prints {cluster, database, shards, replicas, nodes: [{shard, replica, url, httpPort, tcpPort, pid, path}]} once every',
    'node answers SELECT 1 and has the tables; url (http://127.0.0.1:PORT/DB) is what ADREPORT_CLICKHOUSE_URL takes.',
    'The nodes keep running after the command ends. Each node directory holds data/, config.xml, node.log (its output),',
    'clickhouse.log and clickhouse.err.log. Again on the same DIR: starts what is stopped, on its ports, over its data.',
    'Tables: <table>_local (MergeTree) + <table> (Distributed by organization_id) on every node; fx_rates and the',
    "replicator's bookkeeping local to each node. No Keeper: no ReplicatedMergeTree, no ON CLUSTER; a Distributed insert",
    'writes every replica of its shard (internal_replication false). Not for production: adreport clickhouse schema is.',
  ],
  options: {
    shards: { type: 'string' },
    replicas: { type: 'string' },
    dir: { type: 'string' },
    cluster: { type: 'string' },
    database: { type: 'string' },
  },
  async run(context) {
    const text = (name: string) => {
      const value = context.values[name];
      return typeof value === 'string' ? value : undefined;
    };
    let layout: ClusterLayout;
    try {
      layout = parseClusterLayout({
        cluster: text('cluster') ?? DEFAULT_LOCAL_CLUSTER,
        shards: text('shards'),
        replicas: text('replicas'),
        database: text('database'),
      });
    } catch (error) {
      if (error instanceof ClusterLayoutError) throw new CliError(error.message, 2);
      throw error;
    }
    const dir = requireOption(context.values, 'dir');
    const { startLocalCluster } = await import('../../clickhouse/cluster/local-cluster.js');
    const cluster = await clusterFailures(() =>
      startLocalCluster({ ...layout, dir, log: (line) => context.io.stderr.write(`${line}\n`) }),
    );
    printResult(context, cluster);
    return 0;
  },
};

export const clickhouseClusterDown: Command = {
  path: ['clickhouse', 'cluster', 'down'],
  summary: 'Stop the nodes of a local ClickHouse cluster (adreport clickhouse cluster up); their data stays',
  usage: 'adreport clickhouse cluster down --dir DIR [--json]',
  optionHelp: ['--dir DIR          the directory clickhouse cluster up was given'],
  notes: [
    'SIGTERM to every node, SIGKILL to one still running after 60 s; returns once every process is gone. Removes only',
    'the pid files: data, configs and logs stay, and clickhouse cluster up on DIR starts the same cluster with its data.',
    'Delete DIR to drop it. Prints {dir, nodes: [{shard, replica, pid}]}; pid is null for a node that was not running.',
  ],
  options: { dir: { type: 'string' } },
  async run(context) {
    const dir = requireOption(context.values, 'dir');
    const { stopLocalCluster } = await import('../../clickhouse/cluster/local-cluster.js');
    const nodes = await clusterFailures(() =>
      stopLocalCluster(dir, { log: (line) => context.io.stderr.write(`${line}\n`) }),
    );
    printResult(context, { dir, nodes });
    return 0;
  },
};

/** The library's expected failures become the CLI's one line, exit code 1. */
async function clusterFailures<T>(work: () => Promise<T>): Promise<T> {
  const { LocalClusterError } = await import('../../clickhouse/cluster/local-cluster-error.js');
  try {
    return await work();
  } catch (error) {
    if (error instanceof LocalClusterError) throw new CliError(error.message, 1);
    throw error;
  }
}
