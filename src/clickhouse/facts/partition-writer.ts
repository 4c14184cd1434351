import { ROLLUPS, ROLLUP_MEASURES } from '../../catalog/rollups.js';
import type { ClickHouse, ClickHouseParams } from '../clickhouse-connection.js';
import { quoteName } from '../clickhouse-schema.js';
import {
  BREAKDOWN_TABLES,
  kept,
  retained,
  SEARCH_TERMS_TABLE,
  splitParams,
  stageBreakdown,
  stageSearchTerms,
  type SplitScope,
} from './breakdown-writer.js';
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

/** Integers this module computed: ALTER ... PARTITION takes no query parameters. */
const partitionOf = (organizationId: number, month: number) => `tuple(${organizationId}, ${Math.trunc(month)})`;
const inPartition = 'organization_id = {organization:Int64} AND toYYYYMM(day) = {month:UInt32}';

/**
 * Rewrites an organization's (organization, month) partitions of some fact tables on every
 * replica of its shard, a month at a time: each partition is rebuilt in the table's staging
 * table (the old rows that stay, then the new ones; the rollups summed from the new facts, the
 * breakdowns of the written campaign days split from the new campaign rollup and the search terms
 * of its keyword days from the new keyword facts, as the embedded writer splits them:
 * ./breakdown-writer.ts) and swapped in with REPLACE PARTITION, which ClickHouse applies
 * atomically: a reader sees the whole old month or the whole new one, never a day twice or a day
 * missing. Then, as the embedded writer deletes them, the organization's hours and search terms
 * before their retention go from the other months too (their partitions rebuilt the same way). Running it again with the
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
  /** The written days, whose split tables are split again from the rewritten facts. */
  scope: SplitScope,
): Promise<void> {
  if (!Number.isSafeInteger(organizationId)) throw new Error(`not an organization id: ${organizationId}`);
  const split: Split = {
    rollups: contents.some((c) => c.table === 'fact_ad_daily'),
    searchTerms: contents.some((c) => c.table === 'fact_keyword_daily'),
  };
  const derived = [
    ...(split.rollups ? [...ROLLUPS.map((r) => r.table), ...BREAKDOWN_TABLES] : []),
    ...(split.searchTerms ? [SEARCH_TERMS_TABLE] : []),
  ];
  const tables = [...contents.map((c) => c.table), ...derived];
  for (const node of topology.shardOf(organizationId)) {
    for (const month of months)
      await rewriteMonth(topology, node, organizationId, month, contents, tables, split, scope);
    await dropBeforeRetention(topology, node, organizationId, retained(derived), scope);
  }
}

/** What a write's contents rebuild besides themselves: rollups and breakdowns (fact_ad_daily), search terms (fact_keyword_daily). */
interface Split {
  readonly rollups: boolean;
  readonly searchTerms: boolean;
}

async function rewriteMonth(
  topology: FactTopology,
  node: FactNode,
  organizationId: number,
  month: number,
  contents: readonly PartitionContent[],
  tables: readonly string[],
  split: Split,
  scope: SplitScope,
): Promise<void> {
  const ch = node.clickhouse;
  const partition = partitionOf(organizationId, month);
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
  const names = (table: string, source: string) => ({
    local: quoteName(topology.localName(table)),
    staging: quoteName(stagingName(table)),
    source: quoteName(stagingName(source)),
  });
  const staged: string[] = [];
  if (split.rollups) {
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
    for (const table of BREAKDOWN_TABLES)
      staged.push(...stageBreakdown(table, scope, names(table, 'rollup_campaign_daily'), inPartition));
  }
  if (split.searchTerms)
    staged.push(...stageSearchTerms(scope, names(SEARCH_TERMS_TABLE, 'fact_keyword_daily'), inPartition));
  for (const sql of staged) await ch.command(sql, { ...splitParams(scope), ...where });
  for (const table of tables) await swapIn(topology, ch, table, organizationId, month);
  for (const table of tables)
    await ch.command(`ALTER TABLE ${quoteName(stagingName(table))} DROP PARTITION ${partition}`);
}

/** The staged partition of `table` replaces the table's (or drops it when nothing was staged). */
async function swapIn(
  topology: FactTopology,
  ch: ClickHouse,
  table: string,
  organizationId: number,
  month: number,
): Promise<void> {
  const partition = partitionOf(organizationId, month);
  const [staged] = await ch.rows<{ n: number }>(
    `SELECT count() AS n FROM ${quoteName(stagingName(table))} WHERE ${inPartition}`,
    { organization: organizationId, month },
  );
  const target = quoteName(topology.localName(table));
  if (Number(staged?.n ?? 0) === 0) await ch.command(`ALTER TABLE ${target} DROP PARTITION ${partition}`);
  else await ch.command(`ALTER TABLE ${target} REPLACE PARTITION ${partition} FROM ${quoteName(stagingName(table))}`);
}

/**
 * The organization's rows of the retained split tables (hours, search terms) before their
 * retention, in months the write did not rebuild: each such month's partition rebuilt without
 * them (a month wholly before it dropped), as the embedded writer's DELETE leaves its tables.
 */
async function dropBeforeRetention(
  topology: FactTopology,
  node: FactNode,
  organizationId: number,
  tables: readonly string[],
  scope: SplitScope,
): Promise<void> {
  const ch = node.clickhouse;
  for (const table of tables) {
    const local = quoteName(topology.localName(table));
    const staging = quoteName(stagingName(table));
    const old = await ch.rows<{ month: number }>(
      `SELECT DISTINCT toYYYYMM(day) AS month FROM ${local}
        WHERE organization_id = {organization:Int64} AND NOT (${kept(table)}) ORDER BY month`,
      { organization: organizationId, ...splitParams(scope) },
      { output_format_json_quote_64bit_integers: 0 },
    );
    for (const { month } of old) {
      const partition = partitionOf(organizationId, Number(month));
      const where = { organization: organizationId, month: Number(month) };
      await ch.command(`ALTER TABLE ${staging} DROP PARTITION ${partition}`);
      await ch.command(`INSERT INTO ${staging} SELECT * FROM ${local} WHERE ${inPartition} AND ${kept(table)}`, {
        ...splitParams(scope),
        ...where,
      });
      await swapIn(topology, ch, table, organizationId, Number(month));
      await ch.command(`ALTER TABLE ${staging} DROP PARTITION ${partition}`);
    }
  }
}
