import type { DailyReport } from '../platforms/connector.js';
import type { Executor } from '../store/database.js';

/** What one replacement covers: one platform account, an inclusive day range, some or all of its imported campaigns. */
export interface ReplacementScope {
  readonly organizationId: number;
  readonly adPlatformAccountId: number;
  readonly from: string;
  readonly to: string;
  /** Our campaign ids; undefined = every imported campaign of the platform account. */
  readonly campaignIds?: readonly number[] | undefined;
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
 * imported (or not in scope) and of entities not in the stored tree are left out. Platform ids
 * are mapped to ours in SQL over TEMP staging tables the rows are appended to.
 */
export async function replaceDailyReport(tx: Executor, scope: ReplacementScope, report: DailyReport): Promise<ReplacementCounts> {
  await stageScopeCampaigns(tx, scope);
  await stageReport(tx, report);
  const window = [scope.organizationId, scope.adPlatformAccountId, scope.from, scope.to] as const;
  const inScope = `organization_id = $1 AND adplatform_account_id = $2 AND day BETWEEN $3::DATE AND $4::DATE AND campaign_id IN (SELECT id FROM sync_campaigns)`;
  const stagedInWindow = `s.day::DATE BETWEEN $3::DATE AND $4::DATE`;

  for (const table of ['fact_ad_daily', 'fact_keyword_daily', 'fact_impression_share_daily', 'fact_audience_runs']) {
    await tx.run(`DELETE FROM ${table} WHERE ${inScope}`, window);
  }
  await tx.run(
    `INSERT INTO fact_ad_daily
     SELECT $1, s.day::DATE, $2, c.id, g.id, a.id, s.device::device_type, s.network::network_type, ${MEASURES}
       FROM stage_statistics s
       JOIN sync_campaigns c ON c.ad_platform_id = s.campaign
       JOIN ad_groups g ON g.campaign_id = c.id AND g.ad_platform_id = s.ad_group
       JOIN ads a ON a.ad_group_id = g.id AND a.ad_platform_id = s.ad
      WHERE s.ad IS NOT NULL AND ${stagedInWindow}
      ORDER BY s.day`,
    window,
  );
  await tx.run(
    `INSERT INTO fact_keyword_daily
     SELECT $1, s.day::DATE, $2, c.id, g.id, k.id, s.device::device_type, s.network::network_type, ${MEASURES}
       FROM stage_statistics s
       JOIN sync_campaigns c ON c.ad_platform_id = s.campaign
       JOIN ad_groups g ON g.campaign_id = c.id AND g.ad_platform_id = s.ad_group
       JOIN keywords k ON k.ad_group_id = g.id AND k.ad_platform_id = s.keyword
      WHERE s.keyword IS NOT NULL AND ${stagedInWindow}
      ORDER BY s.day`,
    window,
  );
  await tx.run(
    `INSERT INTO fact_impression_share_daily
     SELECT $1, s.day::DATE, $2, c.id, s.device::device_type, s.network::network_type,
            s.impressions, s.eligible_impressions, s.budget_lost_impressions, s.rank_lost_impressions,
            s.top_impressions, s.absolute_top_impressions
       FROM stage_impression_share s
       JOIN sync_campaigns c ON c.ad_platform_id = s.campaign
      WHERE ${stagedInWindow}
      ORDER BY s.day`,
    window,
  );
  await tx.run(
    `INSERT INTO fact_audience_runs
     SELECT $1, s.day::DATE, $2, c.id, g.id, a.id, s.user_from, s.user_to
       FROM stage_audience_runs s
       JOIN sync_campaigns c ON c.ad_platform_id = s.campaign
       JOIN ad_groups g ON g.campaign_id = c.id AND g.ad_platform_id = s.ad_group
       JOIN ads a ON a.ad_group_id = g.id AND a.ad_platform_id = s.ad
      WHERE ${stagedInWindow}
      ORDER BY s.day`,
    window,
  );
  await replaceCalls(tx, scope);
  const counts = await tx.one<ReplacementCounts>(
    `SELECT (SELECT count(*) FROM fact_ad_daily WHERE ${inScope}) AS "adRows",
            (SELECT count(*) FROM fact_keyword_daily WHERE ${inScope}) AS "keywordRows",
            (SELECT count(*) FROM fact_impression_share_daily WHERE ${inScope}) AS "impressionShareRows",
            (SELECT count(*) FROM fact_audience_runs WHERE ${inScope}) AS "audienceRuns",
            (SELECT count(*) FROM call_details WHERE ${inScope}) AS "calls"`,
    window,
  );
  // Staged rows would otherwise hold memory on the writer connection until the next sync.
  for (const table of STAGING_TABLES) await tx.run(`DROP TABLE IF EXISTS temp.${table}`);
  return counts!;
}

const STAGING_TABLES = ['sync_campaigns', 'stage_statistics', 'stage_impression_share', 'stage_audience_runs', 'stage_calls', 'matched_calls'];

const MEASURES = `s.impressions, s.clicks, s.cost::DECIMAL(18,6), s.conversions::DECIMAL(18,6), s.conversion_value::DECIMAL(18,6),
                  s.calls, s.call_conversions, s.call_conversions_fractional::DECIMAL(18,6)`;

async function stageScopeCampaigns(tx: Executor, scope: ReplacementScope): Promise<void> {
  const byId = scope.campaignIds === undefined ? '' : 'AND id IN (SELECT unnest($3::VARCHAR[])::BIGINT)';
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE sync_campaigns AS
     SELECT id, ad_platform_id FROM campaigns WHERE organization_id = $1 AND adplatform_account_id = $2 ${byId}`,
    scope.campaignIds === undefined ? [scope.organizationId, scope.adPlatformAccountId] : [scope.organizationId, scope.adPlatformAccountId, scope.campaignIds.map(String)],
  );
}

/**
 * Calls keep their ids across re-syncs (users page through them): a call the platform still
 * reports is updated in place, a new one inserted, one it no longer reports deleted.
 */
async function replaceCalls(tx: Executor, scope: ReplacementScope): Promise<void> {
  const window = [scope.organizationId, scope.adPlatformAccountId, scope.from, scope.to] as const;
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE matched_calls AS
     SELECT s.*, c.id AS campaign_id, g.id AS ad_group_id
       FROM stage_calls s
       JOIN sync_campaigns c ON c.ad_platform_id = s.campaign
       JOIN ad_groups g ON g.campaign_id = c.id AND g.ad_platform_id = s.ad_group
      WHERE s.day::DATE BETWEEN $1::DATE AND $2::DATE`,
    [scope.from, scope.to],
  );
  await tx.run(
    `DELETE FROM call_details d
      WHERE d.organization_id = $1 AND d.adplatform_account_id = $2 AND d.day BETWEEN $3::DATE AND $4::DATE
        AND d.campaign_id IN (SELECT id FROM sync_campaigns)
        AND d.ad_platform_id NOT IN (SELECT call_id FROM matched_calls)`,
    window,
  );
  await tx.run(
    `UPDATE call_details d
        SET campaign_id = m.campaign_id, ad_group_id = m.ad_group_id, day = m.day::DATE, start_time = m.start_time::TIMESTAMPTZ,
            duration_seconds = m.duration_seconds, status = m.status, call_type = m.call_type,
            caller_country = m.caller_country, caller_area_code = m.caller_area_code, is_conversion = m.is_conversion
       FROM matched_calls m
      WHERE d.organization_id = $1 AND d.adplatform_account_id = $2 AND d.ad_platform_id = m.call_id
        AND (d.is_conversion <> m.is_conversion OR d.duration_seconds <> m.duration_seconds OR d.status <> m.status
             OR d.start_time <> m.start_time::TIMESTAMPTZ OR d.ad_group_id <> m.ad_group_id)`,
    [scope.organizationId, scope.adPlatformAccountId],
  );
  await tx.run(
    `INSERT INTO call_details (organization_id, adplatform_account_id, campaign_id, ad_group_id, ad_platform_id, day, start_time,
                               duration_seconds, status, call_type, caller_country, caller_area_code, is_conversion)
     SELECT $1, $2, m.campaign_id, m.ad_group_id, m.call_id, m.day::DATE, m.start_time::TIMESTAMPTZ, m.duration_seconds,
            m.status, m.call_type, m.caller_country, m.caller_area_code, m.is_conversion
       FROM matched_calls m
      WHERE m.call_id NOT IN (SELECT ad_platform_id FROM call_details WHERE organization_id = $1 AND adplatform_account_id = $2)
      ORDER BY m.start_time, m.call_id`,
    [scope.organizationId, scope.adPlatformAccountId],
  );
}

async function stageReport(tx: Executor, report: DailyReport): Promise<void> {
  await tx.run(`CREATE OR REPLACE TEMP TABLE stage_statistics (
    day VARCHAR, campaign VARCHAR, ad_group VARCHAR, ad VARCHAR, keyword VARCHAR, device VARCHAR, network VARCHAR,
    impressions INTEGER, clicks INTEGER, cost DOUBLE, conversions DOUBLE, conversion_value DOUBLE,
    calls INTEGER, call_conversions INTEGER, call_conversions_fractional DOUBLE)`);
  const s = report.statistics;
  await tx.append('stage_statistics', [
    { type: 'VARCHAR', values: s.map((r) => r.date) },
    { type: 'VARCHAR', values: s.map((r) => r.campaignId) },
    { type: 'VARCHAR', values: s.map((r) => r.adGroupId) },
    // A keyword row has no ad: '' or null both mean none.
    { type: 'VARCHAR', values: s.map((r) => (r.keywordId === null && r.adId ? r.adId : null)) },
    { type: 'VARCHAR', values: s.map((r) => r.keywordId) },
    { type: 'VARCHAR', values: s.map((r) => r.device) },
    { type: 'VARCHAR', values: s.map((r) => r.network) },
    { type: 'INTEGER', values: s.map((r) => r.impressions) },
    { type: 'INTEGER', values: s.map((r) => r.clicks) },
    { type: 'DOUBLE', values: s.map((r) => r.cost) },
    { type: 'DOUBLE', values: s.map((r) => r.conversions) },
    { type: 'DOUBLE', values: s.map((r) => r.conversionValue) },
    { type: 'INTEGER', values: s.map((r) => r.calls) },
    { type: 'INTEGER', values: s.map((r) => r.callConversions) },
    { type: 'DOUBLE', values: s.map((r) => r.callConversionsFractional) },
  ]);

  await tx.run(`CREATE OR REPLACE TEMP TABLE stage_impression_share (
    day VARCHAR, campaign VARCHAR, device VARCHAR, network VARCHAR, impressions BIGINT, eligible_impressions BIGINT,
    budget_lost_impressions BIGINT, rank_lost_impressions BIGINT, top_impressions BIGINT, absolute_top_impressions BIGINT)`);
  const is = report.impressionShare;
  await tx.append('stage_impression_share', [
    { type: 'VARCHAR', values: is.map((r) => r.date) },
    { type: 'VARCHAR', values: is.map((r) => r.campaignId) },
    { type: 'VARCHAR', values: is.map((r) => r.device) },
    { type: 'VARCHAR', values: is.map((r) => r.network) },
    { type: 'BIGINT', values: is.map((r) => r.impressions) },
    { type: 'BIGINT', values: is.map((r) => r.eligibleImpressions) },
    { type: 'BIGINT', values: is.map((r) => r.budgetLostImpressions) },
    { type: 'BIGINT', values: is.map((r) => r.rankLostImpressions) },
    { type: 'BIGINT', values: is.map((r) => r.topImpressions) },
    { type: 'BIGINT', values: is.map((r) => r.absoluteTopImpressions) },
  ]);

  await tx.run(`CREATE OR REPLACE TEMP TABLE stage_audience_runs (
    day VARCHAR, campaign VARCHAR, ad_group VARCHAR, ad VARCHAR, user_from BIGINT, user_to BIGINT)`);
  const runs = report.audienceRuns;
  await tx.append('stage_audience_runs', [
    { type: 'VARCHAR', values: runs.map((r) => r.date) },
    { type: 'VARCHAR', values: runs.map((r) => r.campaignId) },
    { type: 'VARCHAR', values: runs.map((r) => r.adGroupId) },
    { type: 'VARCHAR', values: runs.map((r) => r.adId) },
    { type: 'BIGINT', values: runs.map((r) => r.from) },
    { type: 'BIGINT', values: runs.map((r) => r.to) },
  ]);

  await tx.run(`CREATE OR REPLACE TEMP TABLE stage_calls (
    call_id VARCHAR, day VARCHAR, campaign VARCHAR, ad_group VARCHAR, start_time VARCHAR, duration_seconds INTEGER,
    status VARCHAR, call_type VARCHAR, caller_country VARCHAR, caller_area_code VARCHAR, is_conversion BOOLEAN)`);
  const calls = report.calls;
  await tx.append('stage_calls', [
    { type: 'VARCHAR', values: calls.map((c) => c.callId) },
    { type: 'VARCHAR', values: calls.map((c) => c.date) },
    { type: 'VARCHAR', values: calls.map((c) => c.campaignId) },
    { type: 'VARCHAR', values: calls.map((c) => c.adGroupId) },
    { type: 'VARCHAR', values: calls.map((c) => c.startTime) },
    { type: 'INTEGER', values: calls.map((c) => c.durationSeconds) },
    { type: 'VARCHAR', values: calls.map((c) => c.status) },
    { type: 'VARCHAR', values: calls.map((c) => c.callType) },
    { type: 'VARCHAR', values: calls.map((c) => c.callerCountry) },
    { type: 'VARCHAR', values: calls.map((c) => c.callerAreaCode) },
    { type: 'BOOLEAN', values: calls.map((c) => c.isConversion) },
  ]);
}
