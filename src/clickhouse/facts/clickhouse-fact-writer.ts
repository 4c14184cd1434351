import { DEVICE_TYPES, NETWORK_TYPES, type DailyReport } from '../../platforms/connector.js';
import {
  loadIdMaps,
  mapDailyReport,
  recordWindowReplaced,
  type ReplacementCounts,
  type ReplacementScope,
} from '../../statistics/fact-replacement.js';
import type { FactWriter } from '../../statistics/fact-writer.js';
import type { AdPlatformType } from '../../shared/ad-platforms.js';
import type { Executor } from '../../store/executor.js';
import { quoteName } from '../clickhouse-schema.js';
import type { FactTopology } from './fact-topology.js';
import { monthOf, monthsBetween, rewritePartitions, type PartitionContent } from './partition-writer.js';

const isoDay = (epochDay: number) => new Date(epochDay * 86_400_000).toISOString().slice(0, 10);
/** DuckDB's DOUBLE -> DECIMAL(18,6) of the embedded writer, as decimal text ClickHouse parses exactly. */
const money = (value: number) => value.toFixed(6);

/**
 * The statistics sync's writer on ClickHouse (issue 38): the platform's report mapped to our ids
 * as the embedded writer maps it (`mapDailyReport`), then the window's partitions rebuilt and
 * swapped on every replica of the organization's shard (`rewritePartitions`), then the change
 * recorded in the caller's PostgreSQL transaction. The window's rows are replaced whole, so a
 * retry, a second run or a restatement leaves exactly the platform's current figures.
 *
 * A crash between the swap and the PostgreSQL commit leaves the new figures in ClickHouse without
 * their change record; the job is retried (its lease expires) and records it then.
 */
export class ClickHouseFactWriter implements FactWriter {
  constructor(private readonly topology: FactTopology) {}

  async replaceDailyReport(tx: Executor, scope: ReplacementScope, report: DailyReport): Promise<ReplacementCounts> {
    const ids = await loadIdMaps(tx, scope);
    const mapped = await mapDailyReport(scope, ids, report);
    const account = { organization_id: scope.organizationId, adplatform_account_id: scope.adPlatformAccountId };
    const s = mapped.statistics.values;
    const adRows: Record<string, unknown>[] = [];
    const keywordRows: Record<string, unknown>[] = [];
    for (let i = 0; i < s.day.length; i++) {
      const row = {
        ...account,
        day: isoDay(s.day[i] as number),
        campaign_id: s.campaign_id[i],
        ad_group_id: s.ad_group_id[i],
        device: DEVICE_TYPES[s.device[i] as number],
        network: NETWORK_TYPES[s.network[i] as number],
        impressions: s.impressions[i],
        clicks: s.clicks[i],
        cost: money(s.cost[i] as number),
        conversions: money(s.conversions[i] as number),
        conversion_value: money(s.conversion_value[i] as number),
        calls: s.calls[i],
        call_conversions: s.call_conversions[i],
        call_conversions_fractional: money(s.call_conversions_fractional[i] as number),
      };
      if (s.ad_id[i] !== null) adRows.push({ ...row, ad_id: s.ad_id[i] });
      if (s.keyword_id[i] !== null) keywordRows.push({ ...row, keyword_id: s.keyword_id[i] });
    }
    const sh = mapped.shares.values;
    const shareRows = sh.day.map((day, i) => ({
      ...account,
      day: isoDay(day as number),
      campaign_id: sh.campaign_id[i],
      device: DEVICE_TYPES[sh.device[i] as number],
      network: NETWORK_TYPES[sh.network[i] as number],
      impressions: sh.impressions[i],
      eligible_impressions: sh.eligible_impressions[i],
      budget_lost_impressions: sh.budget_lost_impressions[i],
      rank_lost_impressions: sh.rank_lost_impressions[i],
      top_impressions: sh.top_impressions[i],
      absolute_top_impressions: sh.absolute_top_impressions[i],
    }));
    const r = mapped.runs.values;
    const runRows = r.day.map((day, i) => ({
      ...account,
      day: isoDay(day as number),
      campaign_id: r.campaign_id[i],
      ad_group_id: r.ad_group_id[i],
      ad_id: r.ad_id[i],
      user_from: r.user_from[i],
      user_to: r.user_to[i],
    }));

    // Calls keep their ids across re-syncs (users page through them); new ones take the next of the store's sequence.
    const c = mapped.calls.values;
    const callIds = c.call_id.map(String);
    const known = await this.storedCalls(scope, callIds);
    const fresh = callIds.filter((id) => !known.has(id)).length;
    const newIds =
      fresh === 0
        ? []
        : (
            await tx.all<{ id: number }>(
              `SELECT nextval('call_detail_id_seq') AS id FROM generate_series(1, $1::INTEGER) ORDER BY 1`,
              [fresh],
            )
          ).map((row) => Number(row.id));
    // New calls are numbered in start time order, as the embedded writer inserts them.
    const order = callIds.map((_, i) => i).sort((a, b) => compareCalls(c, a, b));
    const idOf = new Map<number, number>();
    let next = 0;
    for (const i of order) idOf.set(i, known.get(callIds[i]!)?.id ?? newIds[next++]!);
    const callRows = callIds.map((callId, i) => ({
      ...account,
      id: idOf.get(i),
      campaign_id: c.campaign_id[i],
      ad_group_id: c.ad_group_id[i],
      ad_platform_id: callId,
      day: isoDay(c.day[i] as number),
      start_time: c.start_time[i],
      duration_seconds: c.duration_seconds[i],
      status: c.status[i],
      call_type: c.call_type[i],
      caller_country: c.caller_country[i],
      caller_area_code: c.caller_area_code[i],
      is_conversion: c.is_conversion[i],
    }));

    const campaigns = [...ids.campaigns.values()];
    const window = {
      account: scope.adPlatformAccountId,
      from: scope.from,
      to: scope.to,
      campaigns,
    };
    const inScope = `adplatform_account_id = {account:Int64} AND day BETWEEN {from:Date32} AND {to:Date32} AND has({campaigns:Array(Int64)}, campaign_id)`;
    const content = (table: string, rows: Record<string, unknown>[]): PartitionContent => ({
      table,
      keep: `NOT (${inScope})`,
      params: window,
      rows,
    });
    const contents = [
      content('fact_ad_daily', adRows),
      content('fact_keyword_daily', keywordRows),
      content('fact_impression_share_daily', shareRows),
      content('fact_audience_runs', runRows),
      {
        table: 'call_details',
        // A call the platform still reports moves to its new row (its day may have changed); one it no longer reports in the window goes.
        keep: `NOT (${inScope}) AND NOT (adplatform_account_id = {account:Int64} AND has({calls:Array(String)}, ad_platform_id))`,
        params: { ...window, calls: callIds },
        rows: callRows,
      },
    ];
    const months = new Set(monthsBetween(scope.from, scope.to));
    for (const call of known.values()) months.add(monthOf(call.day));
    // The breakdowns and search terms of the window, split again from the rewritten facts as the embedded writer splits them.
    const platform = await tx.one<{ type: AdPlatformType }>(
      'SELECT ad_platform_type AS type FROM adplatform_accounts WHERE id = $1',
      [scope.adPlatformAccountId],
    );
    if (platform === undefined) throw new Error(`no platform account ${scope.adPlatformAccountId}`);
    await rewritePartitions(
      this.topology,
      scope.organizationId,
      [...months].sort((a, b) => a - b),
      contents,
      { written: inScope, params: window, platform: platform.type, hoursFrom: scope.hoursFrom },
    );
    await recordWindowReplaced(tx, scope);
    return {
      adRows: adRows.length,
      keywordRows: keywordRows.length,
      impressionShareRows: shareRows.length,
      audienceRuns: runRows.length,
      calls: callRows.length,
    };
  }

  /** The stored calls of the platform account among `callIds`: their ids and days, from the first replica of the shard that answers. */
  private async storedCalls(
    scope: ReplacementScope,
    callIds: readonly string[],
  ): Promise<Map<string, { id: number; day: string }>> {
    const found = new Map<string, { id: number; day: string }>();
    if (callIds.length === 0) return found;
    const [node] = this.topology.shardOf(scope.organizationId);
    const rows = await node!.clickhouse.rows<{ ad_platform_id: string; id: number; day: string }>(
      `SELECT ad_platform_id, id, toString(day) AS day FROM ${quoteName(this.topology.localName('call_details'))}
        WHERE organization_id = {organization:Int64} AND adplatform_account_id = {account:Int64}
          AND has({calls:Array(String)}, ad_platform_id)`,
      { organization: scope.organizationId, account: scope.adPlatformAccountId, calls: callIds },
      { output_format_json_quote_64bit_integers: 0 },
    );
    for (const row of rows) found.set(row.ad_platform_id, { id: Number(row.id), day: row.day });
    return found;
  }
}

function compareCalls(
  c: { start_time: ReadonlyArray<unknown>; call_id: ReadonlyArray<unknown> },
  a: number,
  b: number,
): number {
  const byTime = Date.parse(String(c.start_time[a])) - Date.parse(String(c.start_time[b]));
  if (byTime !== 0) return byTime;
  return String(c.call_id[a]) < String(c.call_id[b]) ? -1 : String(c.call_id[a]) > String(c.call_id[b]) ? 1 : 0;
}
