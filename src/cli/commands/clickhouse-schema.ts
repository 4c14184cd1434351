import {
  ClusterLayoutError,
  clusterDdl,
  clusterDdlText,
  CLUSTER_REPORT_SETTINGS,
  DEFAULT_CLUSTER_DATABASE,
  MAX_REPLICAS,
  MAX_SHARDS,
  parseClusterLayout,
  type ClusterLayout,
} from '../../clickhouse/cluster-ddl.js';
import { CliError, type Command } from '../command.js';

export const clickhouseSchema: Command = {
  path: ['clickhouse', 'schema'],
  summary:
    'Print the DDL of a ClickHouse cluster: ReplicatedMergeTree tables per shard, Distributed tables sharded by organization_id',
  usage: 'adreport clickhouse schema --cluster NAME --shards N --replicas R [--database DB] [--json]',
  optionHelp: [
    "--cluster NAME     the cluster name of the nodes' <remote_servers> config (a ClickHouse identifier)",
    `--shards N         shards, 1-${MAX_SHARDS}; organization K lives on shard (K mod N) + 1`,
    `--replicas R       replicas per shard, 1-${MAX_REPLICAS}`,
    `--database DB      the ClickHouse database (default ${DEFAULT_CLUSTER_DATABASE}; the path of ADREPORT_CLICKHOUSE_URL)`,
  ],
  notes: [
    "The columns come from this release's DuckDB migrations (a scratch database in the temp directory), not from --db:",
    'the command runs beside a running server. Apply the output once, on any node: clickhouse-client --multiquery < FILE.',
    '--json prints {cluster, shards, replicas, database, settings, statements} on one line.',
  ],
  options: {
    cluster: { type: 'string' },
    shards: { type: 'string' },
    replicas: { type: 'string' },
    database: { type: 'string' },
  },
  async run(context) {
    let layout: ClusterLayout;
    try {
      const text = (name: string) => {
        const value = context.values[name];
        return typeof value === 'string' ? value : undefined;
      };
      layout = parseClusterLayout({
        cluster: text('cluster'),
        shards: text('shards'),
        replicas: text('replicas'),
        database: text('database'),
      });
    } catch (error) {
      if (error instanceof ClusterLayoutError) throw new CliError(error.message, 2);
      throw error;
    }
    const { migratedSchemas } = await import('../../clickhouse/cluster/migrated-schemas.js');
    const schemas = await migratedSchemas();
    const { BOOKKEEPING_DDL } = await import('../../clickhouse/replicator.js');
    if (context.json) {
      const statements = clusterDdl(layout, schemas, BOOKKEEPING_DDL);
      const settings = CLUSTER_REPORT_SETTINGS.map(([setting]) => setting);
      context.io.stdout.write(`${JSON.stringify({ ...layout, settings, statements })}\n`);
    } else {
      context.io.stdout.write(clusterDdlText(layout, schemas, BOOKKEEPING_DDL));
    }
    return 0;
  },
};
