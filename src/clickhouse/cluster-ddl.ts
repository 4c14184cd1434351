import { quoteName, schemaFingerprint, tableBody, type TableSchema } from './clickhouse-schema.js';

/**
 * The cluster layout (issue 22 item 4): each replicated table as a `<table>_local`
 * ReplicatedMergeTree on every shard plus a Distributed `<table>` over them, sharded by
 * organization_id, so every table of one organization sits on one shard and a report's JOINs
 * run there (distributed_product_mode = 'local'). FX rates have no organization: one replica set
 * spanning every node, read locally by each shard. The report SQL reads the Distributed names,
 * which are the one-node table names, so it runs unchanged on one node and on a cluster.
 */
export interface ClusterLayout {
  readonly cluster: string;
  readonly shards: number;
  readonly replicas: number;
  readonly database: string;
}

export const MAX_SHARDS = 1000;
export const MAX_REPLICAS = 1000;
export const DEFAULT_CLUSTER_DATABASE = 'adreport';

/** A layout option that is not valid; its message names the flag. */
export class ClusterLayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterLayoutError';
  }
}

/** The layout from flag text: identifiers for names, 1..1000 for counts. */
export function parseClusterLayout(text: {
  cluster?: string | undefined;
  shards?: string | undefined;
  replicas?: string | undefined;
  database?: string | undefined;
}): ClusterLayout {
  return {
    cluster: identifier('cluster', text.cluster),
    shards: count('shards', text.shards, MAX_SHARDS),
    replicas: count('replicas', text.replicas, MAX_REPLICAS),
    database: identifier('database', text.database ?? DEFAULT_CLUSTER_DATABASE),
  };
}

function identifier(flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new ClusterLayoutError(`--${flag} is required`);
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(value))
    throw new ClusterLayoutError(
      `--${flag} must be a ClickHouse identifier (a letter or _, then letters, digits or _, at most 64), not "${value}"`,
    );
  return value;
}

function count(flag: string, value: string | undefined, max: number): number {
  if (value === undefined || value === '') throw new ClusterLayoutError(`--${flag} is required`);
  const n = /^[1-9][0-9]{0,3}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= max))
    throw new ClusterLayoutError(`--${flag} must be an integer from 1 to ${max}, not "${value}"`);
  return n;
}

/** The settings reports need on the cluster, with why; the header prints them. */
export const CLUSTER_REPORT_SETTINGS: ReadonlyArray<readonly [setting: string, why: string]> = [
  [
    "distributed_product_mode = 'local'",
    "JOIN / IN between Distributed tables run on each shard's local tables (co-sharded by organization_id); the default 'deny' refuses them",
  ],
  [
    'optimize_skip_unused_shards = 1',
    'WHERE organization_id = N sends the query to the one shard that holds N instead of to every shard',
  ],
  [
    'prefer_localhost_replica = 1',
    'the default: a node that holds a replica of the target shard reads it without a network hop; 0 spreads reads over the replicas',
  ],
];

/** How the cluster keeps its replicas in step. */
export interface ClusterDdlOptions {
  /**
   * true (the default): ReplicatedMergeTree through ZooKeeper or Keeper, created once with ON
   * CLUSTER. false: a cluster without Keeper (`adreport clickhouse cluster up`): plain MergeTree
   * with the same keys and no ON CLUSTER, the statements run on each node; a shard's replicas stay
   * in step only because a Distributed insert writes every one of them (internal_replication false).
   */
  readonly replicated?: boolean;
}

/**
 * The DDL statements, without `;`, in the order they must run: database, then per table the local
 * table before the Distributed one, then the replicator's bookkeeping tables (`bookkeeping`: its
 * one-node `CREATE TABLE IF NOT EXISTS name (...) ENGINE = <X>MergeTree...`), which become one
 * replica set across every node like FX: whichever node the replicator reaches sees them.
 * Replicated, they run once on any node; with `replicated: false`, on every node.
 */
export function clusterDdl(
  layout: ClusterLayout,
  schemas: readonly TableSchema[],
  bookkeeping: readonly string[] = [],
  options: ClusterDdlOptions = {},
): string[] {
  assertLayout(layout);
  const replicated = options.replicated ?? true;
  const db = quoteName(layout.database);
  const onCluster = replicated ? ` ON CLUSTER ${quoteName(layout.cluster)}` : '';
  const statements = [`CREATE DATABASE IF NOT EXISTS ${db}${onCluster}`];
  for (const schema of schemas) {
    const name = schema.table.name;
    if (schema.table.partition === 'whole') {
      // No organization to shard by: one replica set across every node (one ZooKeeper path for all
      // shards), so each shard joins its own full copy. Replica names must then be unique across
      // the cluster, not only within a shard: '{shard}-{replica}' is, whatever the macros hold.
      const engine = replicated
        ? `ReplicatedMergeTree('/clickhouse/tables/all/${layout.database}/${name}', '{shard}-{replica}')`
        : 'MergeTree';
      statements.push(`CREATE TABLE IF NOT EXISTS ${db}.${quoteName(name)}${onCluster}\n${tableBody(schema, engine)}`);
      continue;
    }
    const local = `${name}_local`;
    const engine = replicated
      ? `ReplicatedMergeTree('/clickhouse/tables/{shard}/${layout.database}/${name}', '{replica}')`
      : 'MergeTree';
    statements.push(`CREATE TABLE IF NOT EXISTS ${db}.${quoteName(local)}${onCluster}\n${tableBody(schema, engine)}`);
    statements.push(
      `CREATE TABLE IF NOT EXISTS ${db}.${quoteName(name)}${onCluster}\nAS ${db}.${quoteName(local)}\n` +
        `ENGINE = Distributed('${layout.cluster}', '${layout.database}', '${local}', organization_id)`,
    );
  }
  for (const ddl of bookkeeping) statements.push(everywhere(layout, ddl, replicated));
  return statements;
}

/**
 * A one-node bookkeeping table as a replica set spanning every node (one ZooKeeper path), or,
 * not replicated, as the same table in the cluster's database on each node.
 */
function everywhere(layout: ClusterLayout, ddl: string, replicated: boolean): string {
  const shape =
    /^CREATE TABLE IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*) \(([\s\S]*)\)\s*ENGINE = (\w*)MergeTree(?:\(([^)]*)\))? ([\s\S]*)$/.exec(
      ddl.trim(),
    );
  if (!shape) throw new Error(`not a one-node MergeTree table: ${ddl.slice(0, 60)}`);
  const [, name = '', columns = '', kind = '', args, rest = ''] = shape;
  const table = `${quoteName(layout.database)}.${quoteName(name)}`;
  const body = `(${columns.trim().replace(/\s+/g, ' ')})`;
  if (!replicated)
    return `CREATE TABLE IF NOT EXISTS ${table}\n${body}\nENGINE = ${kind}MergeTree${args ? `(${args})` : ''}\n${rest.trim()}`;
  const path = `'/clickhouse/tables/all/${layout.database}/${name}', '{shard}-{replica}'`;
  const engine = `Replicated${kind}MergeTree(${args ? `${path}, ${args}` : path})`;
  return `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER ${quoteName(layout.cluster)}\n${body}\nENGINE = ${engine}\n${rest.trim()}`;
}

function assertLayout(layout: ClusterLayout): void {
  // The CLI parsed them already; a caller in code gets the same checks.
  parseClusterLayout({
    cluster: layout.cluster,
    shards: String(layout.shards),
    replicas: String(layout.replicas),
    database: layout.database,
  });
}

/** A node of the cluster as remote_servers names it (native protocol port, 9000 or 9440 with TLS). */
export interface ClusterNode {
  readonly host: string;
  readonly port: number;
}

/**
 * The `<remote_servers>` entry the Distributed tables' cluster name refers to. internal_replication
 * true (the default): an insert through a Distributed table writes one replica and
 * ReplicatedMergeTree copies it. false (a cluster without Keeper): the Distributed table writes
 * every replica of the shard itself.
 */
export function remoteServersXml(
  cluster: string,
  shards: ReadonlyArray<readonly ClusterNode[]>,
  options: { readonly internalReplication?: boolean } = {},
): string[] {
  quoteName(cluster);
  const internalReplication = options.internalReplication ?? true;
  return [
    '<remote_servers>',
    `  <${cluster}>`,
    ...shards.flatMap((replicas) => [
      '    <shard>',
      `      <internal_replication>${internalReplication}</internal_replication>`,
      ...replicas.map(
        (r) => `      <replica><host>${xmlText(r.host)}</host><port>${Math.trunc(r.port)}</port></replica>`,
      ),
      '    </shard>',
    ]),
    `  </${cluster}>`,
    '</remote_servers>',
  ];
}

function xmlText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Placeholder host names: ch-s<shard>-r<replica>. */
export function nodeName(shard: number, replica: number): string {
  return `ch-s${shard}-r${replica}`;
}

/** A long list shows its first two and its last member (the shape is the same in between). */
function sample(n: number): number[] {
  return n <= 4 ? Array.from({ length: n }, (_, i) => i + 1) : [1, 2, n];
}

/** `-- ` comment lines before the statements: what the DDL is for and what the cluster needs around it. */
export function clusterDdlHeader(
  layout: ClusterLayout,
  schemas: readonly TableSchema[],
  bookkeeping: readonly string[] = [],
): string[] {
  assertLayout(layout);
  const { cluster, shards, replicas, database } = layout;
  const sharded = schemas.filter((s) => s.table.partition !== 'whole').map((s) => s.table.name);
  const everywhere = [
    ...schemas.filter((s) => s.table.partition === 'whole').map((s) => s.table.name),
    ...bookkeeping.map((ddl) => /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(ddl.trim())?.[1] ?? '?'),
  ];
  const shownShards = sample(shards);
  const config = remoteServersXml(
    cluster,
    shownShards.map((s) => sample(replicas).map((r) => ({ host: nodeName(s, r), port: 9000 }))),
  );
  const elided = shownShards.length < shards || sample(replicas).length < replicas;
  const lines = [
    `adreport ClickHouse schema for cluster ${cluster}: ${shards} shard(s) x ${replicas} replica(s) = ${shards * replicas} node(s), database ${database}`,
    `schema fingerprint ${schemaFingerprint(schemas)} (the DuckDB migrations this release has)`,
    '',
    `Sharded by organization_id (${sharded.length} tables): <table>_local (ReplicatedMergeTree, ZooKeeper path`,
    `/clickhouse/tables/{shard}/${database}/<table>) on every node, <table> (Distributed) over them. With equal`,
    `shard weights organization N lives on shard (N mod ${shards}) + 1, all of its tables on that one shard.`,
    `On every node, one replica set for all shards (ZooKeeper path /clickhouse/tables/all/${database}/<table>):`,
    `${everywhere.join(', ') || '(none)'} (no organization: FX rates, the replicator's bookkeeping).`,
    '',
    "Settings reports need on the cluster (in the adreport user's settings profile):",
    ...CLUSTER_REPORT_SETTINGS.map(([setting, why]) => `  ${setting.padEnd(36)} ${why}`),
    '',
    `Every node's server config (config.d/adreport-cluster.xml), inside <clickhouse>:`,
    ...config.map((l) => `  ${l}`),
    ...(elided ? ['  (shown: the first two and the last shard / replica; the others follow the same pattern)'] : []),
    `  <macros><shard>S</shard><replica>${nodeName(1, 1)}</replica></macros>   S = this node's shard number (1..${shards}), replica = its own name`,
    '  <zookeeper>...</zookeeper> (or ClickHouse Keeper): ReplicatedMergeTree and ON CLUSTER need it',
    '',
    `Run it once, on any node: clickhouse-client --multiquery < this-file.sql`,
  ];
  return lines.map((l) => (l === '' ? '--' : `-- ${l}`));
}

/** The whole printed file: header, then each statement ended by `;`. */
export function clusterDdlText(
  layout: ClusterLayout,
  schemas: readonly TableSchema[],
  bookkeeping: readonly string[] = [],
): string {
  return `${clusterDdlHeader(layout, schemas, bookkeeping).join('\n')}\n\n${clusterDdl(layout, schemas, bookkeeping)
    .map((s) => `${s};\n`)
    .join('\n')}`;
}
