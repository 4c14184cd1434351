import { remoteServersXml, type ClusterNode } from '../cluster-ddl.js';

export interface NodeConfigInput {
  readonly cluster: string;
  readonly shard: number;
  /** The node's name in `{replica}` (s1r2). */
  readonly replica: string;
  readonly logFile: string;
  readonly errorLogFile: string;
  /** Every node's native address, shard by shard, as remote_servers lists them. */
  readonly shards: ReadonlyArray<readonly ClusterNode[]>;
}

/**
 * A node's config file (clickhouse-local reads the server's format): the cluster for the
 * Distributed tables, each shard's replicas written by the Distributed insert itself
 * (internal_replication false: there is no Keeper to copy them), the macros, and a log in the
 * node's directory. Ports, path and log level come on the command line.
 */
export function nodeConfigXml(input: NodeConfigInput): string {
  return [
    '<clickhouse>',
    '  <logger>',
    '    <level>warning</level>',
    `    <log>${xmlText(input.logFile)}</log>`,
    `    <errorlog>${xmlText(input.errorLogFile)}</errorlog>`,
    '    <size>10M</size>',
    '    <count>2</count>',
    '    <console>false</console>',
    '  </logger>',
    // clickhouse-local sizes these pools at 0 and 2: 0 leaves a Distributed insert (asynchronous by
    // default) queued on disk forever, and 2 has the scheduler pause tasks (a warning a second).
    '  <background_distributed_schedule_pool_size>4</background_distributed_schedule_pool_size>',
    '  <background_schedule_pool_size>16</background_schedule_pool_size>',
    ...remoteServersXml(input.cluster, input.shards, { internalReplication: false }).map((l) => `  ${l}`),
    `  <macros><shard>${input.shard}</shard><replica>${xmlText(input.replica)}</replica></macros>`,
    '</clickhouse>',
    '',
  ].join('\n');
}

function xmlText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
