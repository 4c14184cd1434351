import { ROLLUPS, ROLLUP_MEASURES } from '../../catalog/rollups.js';
import type { ClickHouseParams } from '../clickhouse-connection.js';
import { quoteName } from '../clickhouse-schema.js';
import { stagingName } from './fact-schema.js';
import type { FactNode, FactTopology } from './fact-topology.js';

/** What one fact table's partitions become: the old rows that stay, and the new ones. */
export interface PartitionContent {
  /** A fact table of FACT_TABLES (not a rollup: rollups are summed from fact_ad_daily here). */
  readonly table: string;
  /** A ClickHouse condition over the old partition's rows: those that stay. Values only through `params`. */
  readonly keep: string;
  readonly params: ClickHouseParams;
  /** The new rows, column -> value as JSONEachRow takes them; `day` is YYYY-MM-DD. */
  readonly rows: readonly Record<string, unknown>[];
}

/** YYYYMM of a YYYY-MM-DD day, as toYYYYMM gives it. */
export const monthOf = (day: string): number => Number(day.slice(0, 4)) * 100 + Number(day.slice(5, 7));

/** Every YYYYMM from the month of `from` to the month of `to`. */
export function monthsBetween(from: string, to: string): number[] {
  const months: number[] = [];
  for (let m = monthOf(from); m <= monthOf(to); m = m % 100 === 12 ? m + 89 : m + 1) months.push(m);
  return months;
}

/**
 * Rewrites an organization's (organization, month) partitions of some fact tables on every
 * replica of its shard, a month at a time: each partition is rebuilt in the table's staging
 * table (the old rows that stay, then the new ones; the rollups summed from the new facts) and
 * swapped in with REPLACE PARTITION, which ClickHouse applies atomically: a reader sees the whole
 * old month or the whole new one, never a day twice or a day missing. Running it again with the
 * same content gives the same partitions (a retry after a crash); a staging partition a crash
 * left behind is dropped first.
 *
 * Every replica must take the write (there is no Keeper to catch one up later): a replica that
 * does not answer fails the call, and the caller's job is retried. The caller serializes writes
 * of one organization (its PostgreSQL write holds the organization's lock).
 */
export async function rewritePartitions(
  topology: FactTopology,
  organizationId: number,
  months: readonly number[],
  contents: readonly PartitionContent[],
): Promise<void> {
  if (!Number.isSafeInteger(organizationId)) throw new Error(`not an organization id: ${organizationId}`);
  const withRollups = contents.some((c) => c.table === 'fact_ad_daily');
  const tables = [...contents.map((c) => c.table), ...(withRollups ? ROLLUPS.map((r) => r.table) : [])];
  for (const node of topology.shardOf(organizationId)) {
    for (const month of months) {
      await rewriteMonth(topology, node, organizationId, month, contents, tables, withRollups);
    }
  }
}

async function rewriteMonth(
  topology: FactTopology,
  node: FactNode,
  organizationId: number,
  month: number,
  contents: readonly PartitionContent[],
  tables: readonly string[],
  withRollups: boolean,
): Promise<void> {
  const ch = node.clickhouse;
  // Integers this module computed: ALTER ... PARTITION takes no query parameters.
  const partition = `tuple(${organizationId}, ${Math.trunc(month)})`;
  const inPartition = 'organization_id = {organization:Int64} AND toYYYYMM(day) = {month:UInt32}';
  const where = { organization: organizationId, month };
  for (const table of tables)
    await ch.command(`ALTER TABLE ${quoteName(stagingName(table))} DROP PARTITION ${partition}`);
  for (const content of contents) {
    await ch.command(
      `INSERT INTO ${quoteName(stagingName(content.table))} SELECT * FROM ${quoteName(topology.localName(content.table))}
        WHERE ${inPartition} AND (${content.keep})`,
      { ...content.params, ...where },
    );
    await ch.insertRows(
      stagingName(content.table),
      content.rows.filter((row) => monthOf(row.day as string) === month),
    );
  }
  if (withRollups) {
    for (const rollup of ROLLUPS) {
      const grain = rollup.grain.join(', ');
      const measures = ROLLUP_MEASURES.map((m) => quoteName(m));
      await ch.command(
        `INSERT INTO ${quoteName(stagingName(rollup.table))} (${grain}, ${measures.join(', ')})
         SELECT ${grain}, ${measures.map((m) => `sum(${m})`).join(', ')} FROM ${quoteName(stagingName(rollup.source))}
          WHERE ${inPartition} GROUP BY ${grain}`,
        where,
      );
    }
  }
  for (const table of tables) {
    const [staged] = await ch.rows<{ n: number }>(
      `SELECT count() AS n FROM ${quoteName(stagingName(table))} WHERE ${inPartition}`,
      where,
    );
    const target = quoteName(topology.localName(table));
    if (Number(staged?.n ?? 0) === 0) await ch.command(`ALTER TABLE ${target} DROP PARTITION ${partition}`);
    else await ch.command(`ALTER TABLE ${target} REPLACE PARTITION ${partition} FROM ${quoteName(stagingName(table))}`);
  }
  for (const table of tables)
    await ch.command(`ALTER TABLE ${quoteName(stagingName(table))} DROP PARTITION ${partition}`);
}
