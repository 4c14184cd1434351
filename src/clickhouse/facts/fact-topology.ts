import { ClickHouse } from '../clickhouse-connection.js';

/** One ClickHouse node that holds facts: a replica of one shard. Shards and replicas count from 1, as remote_servers does. */
export interface FactNode {
  readonly shard: number;
  readonly replica: number;
  /** Writes and DDL, in the node's database. */
  readonly clickhouse: ClickHouse;
  /** Reports, in the node's `<database>_reads` (readsDatabase). */
  readonly reads: ClickHouse;
}

/**
 * Reports read a database of views over the node's own tables: the node a report is sent to holds
 * every row of the organization (its shard, each replica written alike), and a Distributed table
 * in the same statement makes ClickHouse refuse the correlated subqueries the compiler writes
 * ("not supported with remote tables").
 */
export const readsDatabase = (database: string) => `${database}_reads`;

/** A malformed node list; the message names the setting. */
export class FactTopologyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FactTopologyError';
  }
}

/**
 * `ADREPORT_CLICKHOUSE_SHARD_URLS` as shards of replicas: shards separated by commas in their
 * remote_servers order, the replicas of one shard by `|`
 * (`http://s1r1:8123/adreport|http://s1r2:8123/adreport,http://s2r1:8123/adreport|...`).
 * One URL per shard, as before this issue, is a shard of one replica.
 */
export function parseShardUrls(text: string | readonly string[]): string[][] {
  const shards = (typeof text === 'string' ? text.split(',') : [...text]).map((shard) =>
    shard
      .split('|')
      .map((url) => url.trim())
      .filter((url) => url !== ''),
  );
  if (shards.length === 0 || shards.some((replicas) => replicas.length === 0))
    throw new FactTopologyError(
      'ADREPORT_CLICKHOUSE_SHARD_URLS must list every shard (commas between shards, | between the replicas of one)',
    );
  return shards;
}

/**
 * Where an organization's facts are (issue 38): organization K on shard (K mod N) + 1, the
 * Distributed tables' sharding key `organization_id` with equal weights, so writer and readers
 * agree with ClickHouse's own routing. `clustered`: the nodes have `<table>_local` tables under
 * Distributed ones (`adreport clickhouse cluster up`, a real cluster); otherwise one node with
 * plain tables.
 */
export class FactTopology {
  private constructor(
    readonly shards: ReadonlyArray<readonly FactNode[]>,
    readonly clustered: boolean,
    /** The remote_servers name the Distributed tables refer to. */
    readonly cluster: string,
  ) {}

  static async connect(urls: ReadonlyArray<readonly string[]>, options: { clustered: boolean; cluster: string }) {
    const shards = await Promise.all(
      urls.map((replicas, s) =>
        Promise.all(
          replicas.map(async (url, r) => {
            const clickhouse = await ClickHouse.connect({ kind: 'server', url });
            const reads = new URL(url);
            reads.pathname = `/${readsDatabase(clickhouse.database)}`;
            return {
              shard: s + 1,
              replica: r + 1,
              clickhouse,
              reads: await ClickHouse.connect({ kind: 'server', url: reads.toString() }),
            };
          }),
        ),
      ),
    );
    return new FactTopology(shards, options.clustered, options.cluster);
  }

  /** Whether the node at `url` already holds the facts as Distributed tables over `<table>_local`. */
  static async isClusterNode(url: string): Promise<boolean> {
    const node = await ClickHouse.connect({ kind: 'server', url });
    try {
      const rows = await node.rows<{ engine: string }>(
        "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'fact_ad_daily'",
      );
      return rows[0]?.engine === 'Distributed';
    } finally {
      await node.close();
    }
  }

  /** The replicas holding the organization's facts, in remote_servers order. */
  shardOf(organizationId: number): readonly FactNode[] {
    return this.shards[((organizationId % this.shards.length) + this.shards.length) % this.shards.length]!;
  }

  get nodes(): FactNode[] {
    return this.shards.flat();
  }

  /** The table the writer fills on a node: `<table>_local` under a Distributed table, else the table itself. */
  localName(table: string): string {
    return this.clustered ? `${table}_local` : table;
  }

  get description(): string {
    return `${this.shards.length} shard(s) x ${Math.max(...this.shards.map((s) => s.length))} replica(s)`;
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.flatMap((n) => [n.clickhouse, n.reads]).map((c) => c.close().catch(() => undefined)));
  }
}
