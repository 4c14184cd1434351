import { setImmediate } from 'node:timers/promises';
import { DEVICE_TYPES, NETWORK_TYPES, type DailyReport } from '../platforms/connector.js';
import type { AppendColumn, Executor } from '../store/database.js';
import type { SqlValue } from '../store/sql-values.js';
import { recordChange } from '../changes/change-log.js';
import { bumpFactPartitionVersions } from './fact-partition-versions.js';
import { rewriteRollups } from './rollups.js';

/** What one replacement covers: one platform account, an inclusive day range, some or all of its imported campaigns. */
export interface ReplacementScope {
  readonly organizationId: number;
  readonly adPlatformAccountId: number;
  readonly from: string;
  readonly to: string;
  /** Our campaign ids; undefined = every imported campaign of the platform account. */
  readonly campaignIds?: readonly number[] | undefined;
  /** The first day whose hourly breakdown is kept: today minus the retention (../catalog/fact-sources.ts). */
  readonly hoursFrom: string;
}

export interface ReplacementCounts {
  readonly adRows: number;
  readonly keywordRows: number;
  readonly impressionShareRows: number;
  readonly audienceRuns: number;
  readonly calls: number;
}

/**
 * Replaces everything stored for the scope with the report, in the caller's transaction: so a
 * second run of the same window, or a run after the platform restated its last days, leaves
 * exactly the platform's current figures, never a double count. Rows of campaigns that are not
 * imported (or not in scope) and of entities not in the stored tree are left out.
 *
 * Platform ids are mapped to ours in JavaScript, so the rows staged through the appender are
 * numbers only: string columns made staging (on the event loop) about 3x slower and stalled
 * requests for up to half a second during a 400-day backfill.
 */
export async function replaceDailyReport(
  tx: Executor,
  scope: ReplacementScope,
  report: DailyReport,
): Promise<ReplacementCounts> {
  const ids = await loadIdMaps(tx, scope);
  await stageReport(tx, scope, ids, report);
  const window = [scope.organizationId, scope.adPlatformAccountId, scope.from, scope.to] as const;
  const campaignList = `(SELECT unnest($5::VARCHAR[])::BIGINT)`;
  const inScope = `organization_id = $1 AND adplatform_account_id = $2 AND day BETWEEN $3::DATE AND $4::DATE AND campaign_id IN ${campaignList}`;
  const scoped = [...window, [...ids.campaigns.values()].map(String)] as const;

  for (const table of ['fact_ad_daily', 'fact_keyword_daily', 'fact_impression_share_daily', 'fact_audience_runs']) {
    await tx.run(`DELETE FROM ${table} WHERE ${inScope}`, scoped);
  }
  for (const [table, entity] of [
    ['fact_ad_daily', 'ad_id'],
    ['fact_keyword_daily', 'keyword_id'],
  ] as const) {
    await tx.run(
      `INSERT INTO ${table}
       SELECT $1, ${DAY}, $2, s.campaign_id, s.ad_group_id, s.${entity}, ${DEVICE}, ${NETWORK},
              s.impressions, s.clicks, s.cost::DECIMAL(18,6), s.conversions::DECIMAL(18,6), s.conversion_value::DECIMAL(18,6),
              s.calls, s.call_conversions, s.call_conversions_fractional::DECIMAL(18,6)
         FROM stage_statistics s WHERE s.${entity} IS NOT NULL ORDER BY s.day`,
      [scope.organizationId, scope.adPlatformAccountId],
    );
  }
  // The rollups of the scope's campaigns and days, from the facts just written (never stale).
  await rewriteRollups(tx, {
    organizationId: scope.organizationId,
    adPlatformAccountId: scope.adPlatformAccountId,
    from: scope.from,
    to: scope.to,
    campaignIds: [...ids.campaigns.values()],
    hoursFrom: scope.hoursFrom,
  });
  await bumpFactPartitionVersions(tx, scope);
  await tx.run(
    `INSERT INTO fact_impression_share_daily
     SELECT $1, ${DAY}, $2, s.campaign_id, ${DEVICE}, ${NETWORK}, s.impressions, s.eligible_impressions,
            s.budget_lost_impressions, s.rank_lost_impressions, s.top_impressions, s.absolute_top_impressions
       FROM stage_impression_share s ORDER BY s.day`,
    [scope.organizationId, scope.adPlatformAccountId],
  );
  await tx.run(
    `INSERT INTO fact_audience_runs
     SELECT $1, ${DAY}, $2, s.campaign_id, s.ad_group_id, s.ad_id, s.user_from, s.user_to FROM stage_audience_runs s ORDER BY s.day`,
    [scope.organizationId, scope.adPlatformAccountId],
  );
  await replaceCalls(tx, scope, inScope, scoped);
  const counts = await tx.one<ReplacementCounts>(
    `SELECT (SELECT count(*) FROM fact_ad_daily WHERE ${inScope}) AS "adRows",
            (SELECT count(*) FROM fact_keyword_daily WHERE ${inScope}) AS "keywordRows",
            (SELECT count(*) FROM fact_impression_share_daily WHERE ${inScope}) AS "impressionShareRows",
            (SELECT count(*) FROM fact_audience_runs WHERE ${inScope}) AS "audienceRuns",
            (SELECT count(*) FROM call_details WHERE ${inScope}) AS "calls"`,
    scoped,
  );
  await recordWindowReplaced(tx, scope);
  // Staged rows would otherwise hold memory on the writer connection until the next sync.
  for (const table of STAGING_TABLES) await tx.run(`DROP TABLE IF EXISTS temp.${table}`);
  return counts!;
}

/** The change feed lists the window replaced, whatever the platform sent for it (a restatement may remove rows). */
export function recordWindowReplaced(tx: Executor, scope: ReplacementScope): Promise<void> {
  return recordChange(tx, {
    organizationId: scope.organizationId,
    kind: 'STATISTICS_REPLACED',
    platformAccountId: scope.adPlatformAccountId,
    firstDay: scope.from,
    lastDay: scope.to,
  });
}

/** Staged days are days since 1970-01-01; device and network are positions in their ENUM types (same order as the connector's lists). */
const DAY = `DATE '1970-01-01' + s.day`;
const DEVICE = `enum_range(NULL::device_type)[s.device + 1]`;
const NETWORK = `enum_range(NULL::network_type)[s.network + 1]`;
const DEVICE_CODE = new Map<string, number>(DEVICE_TYPES.map((d, i) => [d, i]));
const NETWORK_CODE = new Map<string, number>(NETWORK_TYPES.map((n, i) => [n, i]));
const STAGING_TABLES = ['stage_statistics', 'stage_impression_share', 'stage_audience_runs', 'stage_calls'];
/** Rows mapped between two yields to the event loop. */
const ROWS_PER_SLICE = 8192;

export interface IdMaps {
  /** Platform campaign id -> ours. */
  readonly campaigns: Map<string, number>;
  /** `${our campaign id}|${platform ad group id}` -> ours. */
  readonly adGroups: Map<string, number>;
  /** `${our ad group id}|${platform ad id}` -> ours; keywords alike. */
  readonly ads: Map<string, number>;
  readonly keywords: Map<string, number>;
}

export async function loadIdMaps(tx: Executor, scope: ReplacementScope): Promise<IdMaps> {
  const byId = scope.campaignIds === undefined ? '' : 'AND id IN (SELECT unnest($3::VARCHAR[])::BIGINT)';
  const rows = await tx.all<{ kind: string; parent: number | null; pid: string; id: number }>(
    `WITH c AS (SELECT id, ad_platform_id FROM campaigns WHERE organization_id = $1 AND adplatform_account_id = $2 ${byId}),
          g AS (SELECT g.id, g.campaign_id, g.ad_platform_id FROM ad_groups g WHERE g.campaign_id IN (SELECT id FROM c))
     SELECT 'C' AS kind, NULL::BIGINT AS parent, ad_platform_id AS pid, id FROM c
     UNION ALL SELECT 'G', campaign_id, ad_platform_id, id FROM g
     UNION ALL SELECT 'A', a.ad_group_id, a.ad_platform_id, a.id FROM ads a WHERE a.ad_group_id IN (SELECT id FROM g)
     UNION ALL SELECT 'K', k.ad_group_id, k.ad_platform_id, k.id FROM keywords k WHERE k.ad_group_id IN (SELECT id FROM g)`,
    scope.campaignIds === undefined
      ? [scope.organizationId, scope.adPlatformAccountId]
      : [scope.organizationId, scope.adPlatformAccountId, scope.campaignIds.map(String)],
  );
  const maps: IdMaps = { campaigns: new Map(), adGroups: new Map(), ads: new Map(), keywords: new Map() };
  for (const row of rows) {
    if (row.kind === 'C') maps.campaigns.set(row.pid, row.id);
    else
      (row.kind === 'G' ? maps.adGroups : row.kind === 'A' ? maps.ads : maps.keywords).set(
        `${row.parent}|${row.pid}`,
        row.id,
      );
  }
  return maps;
}
/**
 * Calls keep their ids across re-syncs (users page through them): a call the platform still
 * reports is updated in place, a new one inserted, one it no longer reports deleted.
 */
async function replaceCalls(
  tx: Executor,
  scope: ReplacementScope,
  inScope: string,
  scoped: readonly SqlValue[],
): Promise<void> {
  await tx.run(
    `DELETE FROM call_details WHERE ${inScope} AND ad_platform_id NOT IN (SELECT call_id FROM stage_calls)`,
    scoped,
  );
  const account = [scope.organizationId, scope.adPlatformAccountId];
  await tx.run(
    `UPDATE call_details d
        SET campaign_id = s.campaign_id, ad_group_id = s.ad_group_id, day = ${DAY}, start_time = s.start_time::TIMESTAMPTZ,
            duration_seconds = s.duration_seconds, status = s.status, call_type = s.call_type,
            caller_country = s.caller_country, caller_area_code = s.caller_area_code, is_conversion = s.is_conversion
       FROM stage_calls s
      WHERE d.organization_id = $1 AND d.adplatform_account_id = $2 AND d.ad_platform_id = s.call_id
        AND (d.is_conversion <> s.is_conversion OR d.duration_seconds <> s.duration_seconds OR d.status <> s.status
             OR d.start_time <> s.start_time::TIMESTAMPTZ OR d.ad_group_id <> s.ad_group_id)`,
    account,
  );
  await tx.run(
    `INSERT INTO call_details (organization_id, adplatform_account_id, campaign_id, ad_group_id, ad_platform_id, day, start_time,
                               duration_seconds, status, call_type, caller_country, caller_area_code, is_conversion)
     SELECT $1, $2, s.campaign_id, s.ad_group_id, s.call_id, ${DAY}, s.start_time::TIMESTAMPTZ, s.duration_seconds,
            s.status, s.call_type, s.caller_country, s.caller_area_code, s.is_conversion
       FROM stage_calls s
      WHERE s.call_id NOT IN (SELECT ad_platform_id FROM call_details WHERE organization_id = $1 AND adplatform_account_id = $2)
      ORDER BY s.start_time, s.call_id`,
    account,
  );
}

/** Column arrays for the appender, filled row by row. */
export class Columns<K extends string> {
  readonly values = {} as Record<K, Array<number | string | boolean | null>>;
  constructor(names: readonly K[]) {
    for (const name of names) this.values[name] = [];
  }
  push(row: Record<K, number | string | boolean | null>): void {
    for (const name in this.values) this.values[name].push(row[name]);
  }
}

export const epochDay = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** Maps each row of the report to our ids (dropping rows outside the stored trees) and appends it to its staging table. */
async function stageReport(tx: Executor, scope: ReplacementScope, ids: IdMaps, report: DailyReport): Promise<void> {
  const mapped = await mapDailyReport(scope, ids, report);
  await stage(tx, 'stage_statistics', STATISTIC_TYPES, mapped.statistics);
  await stage(tx, 'stage_impression_share', SHARE_TYPES, mapped.shares);
  await stage(tx, 'stage_audience_runs', RUN_TYPES, mapped.runs);
  await stage(tx, 'stage_calls', CALL_TYPES, mapped.calls);
}

/** The report's rows in our ids, column by column: days since 1970-01-01, device and network as positions in their lists. */
export interface MappedReport {
  readonly statistics: Columns<(typeof STATISTIC_COLUMNS)[number]>;
  readonly shares: Columns<(typeof SHARE_COLUMNS)[number]>;
  readonly runs: Columns<(typeof RUN_COLUMNS)[number]>;
  readonly calls: Columns<(typeof CALL_COLUMNS)[number]>;
}

/**
 * Maps each row of the report to our ids, dropping rows outside the window and the stored trees;
 * yields to the event loop every few thousand rows. Whichever store the facts go to reads these.
 */
export async function mapDailyReport(scope: ReplacementScope, ids: IdMaps, report: DailyReport): Promise<MappedReport> {
  const inWindow = (date: string) => date >= scope.from && date <= scope.to;
  const adGroupOf = (campaignPid: string, adGroupPid: string) => {
    const campaign = ids.campaigns.get(campaignPid);
    const adGroup = campaign === undefined ? undefined : ids.adGroups.get(`${campaign}|${adGroupPid}`);
    return adGroup === undefined ? undefined : { campaign: campaign!, adGroup };
  };

  const statistics = new Columns(STATISTIC_COLUMNS);
  await eachSlice(report.statistics, (r) => {
    const parent = inWindow(r.date) ? adGroupOf(r.campaignId, r.adGroupId) : undefined;
    if (!parent) return;
    const ad = r.keywordId === null && r.adId ? ids.ads.get(`${parent.adGroup}|${r.adId}`) : undefined;
    const keyword = r.keywordId === null ? undefined : ids.keywords.get(`${parent.adGroup}|${r.keywordId}`);
    if (ad === undefined && keyword === undefined) return;
    statistics.push({
      day: epochDay(r.date),
      campaign_id: parent.campaign,
      ad_group_id: parent.adGroup,
      ad_id: ad ?? null,
      keyword_id: keyword ?? null,
      device: DEVICE_CODE.get(r.device)!,
      network: NETWORK_CODE.get(r.network)!,
      impressions: r.impressions,
      clicks: r.clicks,
      cost: r.cost,
      conversions: r.conversions,
      conversion_value: r.conversionValue,
      calls: r.calls,
      call_conversions: r.callConversions,
      call_conversions_fractional: r.callConversionsFractional,
    });
  });

  const shares = new Columns(SHARE_COLUMNS);
  await eachSlice(report.impressionShare, (r) => {
    const campaign = inWindow(r.date) ? ids.campaigns.get(r.campaignId) : undefined;
    if (campaign === undefined) return;
    shares.push({
      day: epochDay(r.date),
      campaign_id: campaign,
      device: DEVICE_CODE.get(r.device)!,
      network: NETWORK_CODE.get(r.network)!,
      impressions: r.impressions,
      eligible_impressions: r.eligibleImpressions,
      budget_lost_impressions: r.budgetLostImpressions,
      rank_lost_impressions: r.rankLostImpressions,
      top_impressions: r.topImpressions,
      absolute_top_impressions: r.absoluteTopImpressions,
    });
  });

  const runs = new Columns(RUN_COLUMNS);
  await eachSlice(report.audienceRuns, (r) => {
    const parent = inWindow(r.date) ? adGroupOf(r.campaignId, r.adGroupId) : undefined;
    const ad = parent && ids.ads.get(`${parent.adGroup}|${r.adId}`);
    if (!parent || ad === undefined) return;
    runs.push({
      day: epochDay(r.date),
      campaign_id: parent.campaign,
      ad_group_id: parent.adGroup,
      ad_id: ad,
      user_from: r.from,
      user_to: r.to,
    });
  });

  const calls = new Columns(CALL_COLUMNS);
  await eachSlice(report.calls, (c) => {
    const parent = inWindow(c.date) ? adGroupOf(c.campaignId, c.adGroupId) : undefined;
    if (!parent) return;
    calls.push({
      call_id: c.callId,
      day: epochDay(c.date),
      campaign_id: parent.campaign,
      ad_group_id: parent.adGroup,
      start_time: c.startTime,
      duration_seconds: c.durationSeconds,
      status: c.status,
      call_type: c.callType,
      caller_country: c.callerCountry,
      caller_area_code: c.callerAreaCode,
      is_conversion: c.isConversion,
    });
  });
  return { statistics, shares, runs, calls };
}

const STATISTIC_TYPES = {
  day: 'INTEGER',
  campaign_id: 'BIGINT',
  ad_group_id: 'BIGINT',
  ad_id: 'BIGINT',
  keyword_id: 'BIGINT',
  device: 'INTEGER',
  network: 'INTEGER',
  impressions: 'INTEGER',
  clicks: 'INTEGER',
  cost: 'DOUBLE',
  conversions: 'DOUBLE',
  conversion_value: 'DOUBLE',
  calls: 'INTEGER',
  call_conversions: 'INTEGER',
  call_conversions_fractional: 'DOUBLE',
} as const satisfies Record<string, AppendColumn['type']>;
const STATISTIC_COLUMNS = Object.keys(STATISTIC_TYPES) as Array<keyof typeof STATISTIC_TYPES>;

const SHARE_TYPES = {
  day: 'INTEGER',
  campaign_id: 'BIGINT',
  device: 'INTEGER',
  network: 'INTEGER',
  impressions: 'BIGINT',
  eligible_impressions: 'BIGINT',
  budget_lost_impressions: 'BIGINT',
  rank_lost_impressions: 'BIGINT',
  top_impressions: 'BIGINT',
  absolute_top_impressions: 'BIGINT',
} as const satisfies Record<string, AppendColumn['type']>;
const SHARE_COLUMNS = Object.keys(SHARE_TYPES) as Array<keyof typeof SHARE_TYPES>;

const RUN_TYPES = {
  day: 'INTEGER',
  campaign_id: 'BIGINT',
  ad_group_id: 'BIGINT',
  ad_id: 'BIGINT',
  user_from: 'BIGINT',
  user_to: 'BIGINT',
} as const satisfies Record<string, AppendColumn['type']>;
const RUN_COLUMNS = Object.keys(RUN_TYPES) as Array<keyof typeof RUN_TYPES>;

const CALL_TYPES = {
  call_id: 'VARCHAR',
  day: 'INTEGER',
  campaign_id: 'BIGINT',
  ad_group_id: 'BIGINT',
  start_time: 'VARCHAR',
  duration_seconds: 'INTEGER',
  status: 'VARCHAR',
  call_type: 'VARCHAR',
  caller_country: 'VARCHAR',
  caller_area_code: 'VARCHAR',
  is_conversion: 'BOOLEAN',
} as const satisfies Record<string, AppendColumn['type']>;
const CALL_COLUMNS = Object.keys(CALL_TYPES) as Array<keyof typeof CALL_TYPES>;

/** Creates the TEMP staging table from the column types and appends the rows. */
async function stage<K extends string>(
  tx: Executor,
  table: string,
  types: Record<K, AppendColumn['type']>,
  columns: Columns<K>,
): Promise<void> {
  const names = Object.keys(types) as K[];
  await tx.run(`CREATE OR REPLACE TEMP TABLE ${table} (${names.map((name) => `${name} ${types[name]}`).join(', ')})`);
  await tx.append(
    table,
    names.map((name) => ({ type: types[name], values: columns.values[name] }) as AppendColumn),
  );
}

async function eachSlice<T>(rows: readonly T[], visit: (row: T) => void): Promise<void> {
  for (let i = 0; i < rows.length; i++) {
    visit(rows[i]!);
    if (i % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await setImmediate();
  }
}
