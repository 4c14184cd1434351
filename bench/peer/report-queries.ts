/**
 * The report mix of the peer comparison: each report as the service is asked for it (one
 * definition for the HTTP query string and the planner request) and as an engineer would write
 * it by hand for PostgreSQL, returning the same rows, in the same order, with the same numbers.
 * verifyPeerQueries proves the latter against the service's own compiled SQL on DuckDB.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import type { ReportRequest } from '../../src/planner/report-plan.js';
import { addDays, isCalendarDay } from '../../src/shared/dates.js';
import { compileReport } from '../../src/sql/compile-report.js';
import { toDuckDBTypes, toDuckDBValues } from '../../src/store/sql-values.js';
import type { PostgresPeer } from './postgres.js';

export type MixName = 'campaigns30d' | 'adgroupsDayDevice' | 'keywordsFiltered' | 'keywordsPull';
export const MIX_NAMES: readonly MixName[] = ['campaigns30d', 'adgroupsDayDevice', 'keywordsFiltered', 'keywordsPull'];

export interface MixParams {
  organizationId: number;
  from: string;
  to: string;
}

/** A report of the mix as the service is asked: endpoint below /reporting/v0, days ending on the last day, other query parameters. */
export interface MixRequest {
  readonly endpoint: string;
  readonly days: number;
  readonly query: Readonly<Record<string, string>>;
}

export const MIX: Readonly<Record<MixName, MixRequest>> = {
  campaigns30d: { endpoint: 'campaigns', days: 30, query: { limit: '100' } },
  adgroupsDayDevice: {
    endpoint: 'adgroups',
    days: 7,
    query: { segments: 'Day,DeviceType', statistics: 'impressions,clicks,cost,ctr', limit: '100' },
  },
  keywordsFiltered: {
    endpoint: 'keywords',
    days: 30,
    query: { filter: 'statistics.clicks > 10', sort: '-statistics.cost', limit: '100' },
  },
  keywordsPull: { endpoint: 'keywords', days: 30, query: { limit: '10000' } },
};

/** The report's range: `days` days ending on `lastDay` (the data's last day, yesterday). */
export function mixParams(name: MixName, organizationId: number, lastDay: string): MixParams {
  return { organizationId, from: addDays(lastDay, 1 - MIX[name].days), to: lastDay };
}

/** Path and query string of the service request, e.g. `/reporting/v0/campaigns?startDate=...`. */
export function serviceUrlPath(name: MixName, p: MixParams): string {
  const query = new URLSearchParams({ startDate: p.from, endDate: p.to, ...MIX[name].query });
  return `/reporting/v0/${MIX[name].endpoint}?${query.toString()}`;
}

/** The planner's request for the same report (the HTTP layer builds the same from the URL). */
export function serviceRequest(name: MixName, p: MixParams): ReportRequest {
  const q = MIX[name].query;
  const list = (v: string | undefined) => (v === undefined ? undefined : v.split(','));
  return {
    organizationId: p.organizationId,
    startDate: p.from,
    endDate: p.to,
    statistics: list(q.statistics),
    segments: list(q.segments),
    filter: q.filter,
    sort: q.sort,
    formulas: [],
    embed: undefined,
    name: undefined,
    limit: Number(q.limit ?? 100),
    offset: 0,
    totals: false,
  };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL SQL, literals inlined (organization and dates are the bench's own inputs, checked)

function literals(p: MixParams): { org: string; days: string } {
  if (!Number.isSafeInteger(p.organizationId) || p.organizationId <= 0)
    throw new Error(`bad organization id ${p.organizationId}`);
  if (!isCalendarDay(p.from) || !isCalendarDay(p.to)) throw new Error(`bad date range ${p.from}..${p.to}`);
  return { org: String(p.organizationId), days: `day BETWEEN DATE '${p.from}' AND DATE '${p.to}'` };
}

/** The page size the service is asked for. */
const limitOf = (name: MixName) => Number(MIX[name].query.limit);

/**
 * Money and decimals are stored as bigint micros: a sum times 0.000001 is the exact decimal
 * (numeric multiplication is exact; division by 10^6 could round big sums to the division's scale).
 */
const decimalSum = (column: string) => `sum(${column}_micros) * 0.000001`;

/**
 * The nine default statistics over a row's sums `s` (NULL where the entity had no facts), as
 * the service defines them: integers as bigint, money and decimals as the exact sum rounded to
 * micros (a no-op: every sum has six decimals) then double, ratios as double over double with
 * NULL for a zero denominator.
 */
const DEFAULT_STATISTICS = `coalesce(s.impressions, 0) AS st_0, coalesce(s.clicks, 0) AS st_1,
       coalesce(s.cost, 0)::float8 AS st_2, coalesce(s.conversions, 0)::float8 AS st_3, coalesce(s.conversion_value, 0)::float8 AS st_4,
       s.clicks::float8 / nullif(s.impressions, 0)::float8 AS st_5, s.cost::float8 / nullif(s.clicks, 0)::float8 AS st_6,
       s.conversions::float8 / nullif(s.clicks, 0)::float8 AS st_7, s.cost::float8 / nullif(s.conversions, 0)::float8 AS st_8`;
const DEFAULT_SUMS = `sum(impressions) AS impressions, sum(clicks) AS clicks, ${decimalSum('cost')} AS cost, ${decimalSum('conversions')} AS conversions,
                    ${decimalSum('conversion_value')} AS conversion_value`;

const KEYWORD_COLUMNS = `k.id, k.text, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", k.ad_group_id AS "adGroupId",
       c.ad_platform_type AS "adPlatformAccountType", k.ad_platform_id AS "adPlatformId", k.match_type AS "matchType", k.status, p.currency`;
const KEYWORD_JOINS = `JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id`;

/** Every keyword of the organization (zeros without facts), by id. */
function keywordsById(p: MixParams, name: MixName): string {
  const { org, days } = literals(p);
  return `SELECT ${KEYWORD_COLUMNS},
       ${DEFAULT_STATISTICS}, count(*) OVER () AS __total
  FROM keywords k ${KEYWORD_JOINS}
  LEFT JOIN (SELECT keyword_id, ${DEFAULT_SUMS}
               FROM fact_keyword_daily WHERE organization_id = ${org} AND ${days}
              GROUP BY keyword_id) s ON s.keyword_id = k.id
 WHERE k.organization_id = ${org}
 ORDER BY k.id
 LIMIT ${limitOf(name)}`;
}

export const PEER_QUERIES: Readonly<Record<MixName, (p: MixParams) => string>> = {
  /** Every campaign of the organization, zeros for those without facts, by id. */
  campaigns30d: (p) => {
    const { org, days } = literals(p);
    return `SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency,
       ${DEFAULT_STATISTICS}, count(*) OVER () AS __total
  FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
  LEFT JOIN (SELECT campaign_id, ${DEFAULT_SUMS}
               FROM fact_ad_daily WHERE organization_id = ${org} AND ${days}
              GROUP BY campaign_id) s ON s.campaign_id = c.id
 WHERE c.organization_id = ${org}
 ORDER BY c.id
 LIMIT ${limitOf('campaigns30d')}`;
  },

  /**
   * Only the (ad group, day, device) buckets with facts; ordered by id, then day (the date
   * orders as its YYYY-MM-DD text), then the device name as text ("C" collation: code points,
   * as DuckDB orders VARCHAR; the enum's own order would differ).
   */
  adgroupsDayDevice: (p) => {
    const { org, days } = literals(p);
    return `SELECT g.id, g.name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId",
       c.ad_platform_type AS "adPlatformAccountType", g.ad_platform_id AS "adPlatformId", g.status, p.currency,
       to_char(s.day, 'YYYY-MM-DD') AS seg_0, s.device::text AS seg_1,
       s.impressions AS st_0, s.clicks AS st_1, s.cost::float8 AS st_2, s.clicks::float8 / nullif(s.impressions, 0)::float8 AS st_3,
       count(*) OVER () AS __total
  FROM (SELECT ad_group_id, day, device, sum(impressions) AS impressions, sum(clicks) AS clicks, ${decimalSum('cost')} AS cost
          FROM fact_ad_daily WHERE organization_id = ${org} AND ${days}
         GROUP BY ad_group_id, day, device) s
  JOIN ad_groups g ON g.id = s.ad_group_id JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
 WHERE g.organization_id = ${org}
 ORDER BY g.id, s.day, s.device::text COLLATE "C"
 LIMIT ${limitOf('adgroupsDayDevice')}`;
  },

  /**
   * Keywords with more than 10 clicks, by exact cost descending, then id. A keyword without
   * facts has 0 clicks and never passes, so HAVING on the sums equals the service's filter on
   * its zero-filled rows.
   */
  keywordsFiltered: (p) => {
    const { org, days } = literals(p);
    return `SELECT ${KEYWORD_COLUMNS},
       ${DEFAULT_STATISTICS}, count(*) OVER () AS __total
  FROM (SELECT keyword_id, ${DEFAULT_SUMS}
          FROM fact_keyword_daily WHERE organization_id = ${org} AND ${days}
         GROUP BY keyword_id HAVING sum(clicks) > 10) s
  JOIN keywords k ON k.id = s.keyword_id ${KEYWORD_JOINS}
 WHERE k.organization_id = ${org}
 ORDER BY s.cost DESC NULLS LAST, k.id
 LIMIT ${limitOf('keywordsFiltered')}`;
  },

  keywordsPull: (p) => keywordsById(p, 'keywordsPull'),
};

/** The last day with facts in a generated DuckDB file (the day before it was generated). */
export async function factsLastDay(duckdbPath: string): Promise<string> {
  const instance = await DuckDBInstance.create(duckdbPath, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll("SELECT strftime(max(day), '%Y-%m-%d') AS d FROM fact_ad_daily");
    const day = reader.getRowObjectsJS()[0]?.d;
    if (typeof day !== 'string') throw new Error(`${duckdbPath} has no facts`);
    return day;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

// ---------------------------------------------------------------------------------------------
// Verification against the service's SQL on DuckDB

/** The service's SQL for a report, run on the DuckDB file; values as @duckdb/node-api gives them (BIGINT as bigint). */
async function serviceRows(
  connection: DuckDBConnection,
  name: MixName,
  p: MixParams,
): Promise<Array<Record<string, unknown>>> {
  const endpoint = ENDPOINT_BY_PATH.get(MIX[name].endpoint);
  if (!endpoint) throw new Error(`no endpoint ${MIX[name].endpoint}`);
  const { sql, params } = compileReport(buildPlan(endpoint, serviceRequest(name, p), new Date())).page();
  const statement = await connection.prepare(sql);
  try {
    statement.bind(toDuckDBValues(params), toDuckDBTypes(params));
    return (await statement.runAndReadAll()).getRowObjectsJS() as Array<Record<string, unknown>>;
  } finally {
    statement.destroySync();
  }
}

/** Why a service value and the peer's text differ, or undefined when they agree. */
function difference(expected: unknown, actual: string | null | undefined): string | undefined {
  if (actual === undefined) return 'column missing in PostgreSQL';
  if (expected === null || actual === null) return expected === actual ? undefined : 'one side is NULL';
  if (typeof expected === 'bigint') return BigInt(actual) === expected ? undefined : 'integers differ';
  if (typeof expected === 'number') {
    const got = Number(actual);
    const scale = Math.max(Math.abs(expected), Math.abs(got));
    return scale === 0 || Math.abs(expected - got) <= 1e-9 * scale ? undefined : 'numbers differ beyond 1e-9 relative';
  }
  return String(expected) === actual ? undefined : 'values differ';
}

function compareRows(
  name: MixName,
  expected: ReadonlyArray<Record<string, unknown>>,
  actual: ReadonlyArray<Record<string, string | null>>,
): void {
  if (expected.length !== actual.length)
    throw new Error(`peer query ${name}: the service returns ${expected.length} rows, PostgreSQL ${actual.length}`);
  expected.forEach((want, i) => {
    const got = actual[i]!;
    const extra = Object.keys(got).filter((k) => !(k in want));
    if (extra.length > 0)
      throw new Error(`peer query ${name}: PostgreSQL returns columns the service does not: ${extra.join(', ')}`);
    for (const [column, value] of Object.entries(want)) {
      const why = difference(value, got[column]);
      if (why) {
        throw new Error(
          `peer query ${name}, row ${i + 1} (service id ${String(want.id)}, PostgreSQL id ${got.id}), column ${column}: ${why}: service ${String(value)}, PostgreSQL ${got[column]}`,
        );
      }
    }
  });
}

/**
 * Runs each report of the mix as the service compiles it (on DuckDB, in-process, read-only) and
 * as PEER_QUERIES has it (on PostgreSQL) and compares them row by row: columns, order, integers
 * exactly, doubles within 1e-9 relative. Throws on the first difference; returns rows per report.
 */
export async function verifyPeerQueries(
  peer: PostgresPeer,
  duckdbPath: string,
  dates: { organizationId: number; lastDay: string },
): Promise<Record<MixName, number>> {
  const instance = await DuckDBInstance.create(duckdbPath, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const rows = {} as Record<MixName, number>;
    for (const name of MIX_NAMES) {
      const p = mixParams(name, dates.organizationId, dates.lastDay);
      const expected = await serviceRows(connection, name, p);
      const actual = await peer.query(PEER_QUERIES[name](p));
      if (expected.length === 0)
        throw new Error(`peer query ${name}: the service returns no rows for ${JSON.stringify(p)}; nothing to compare`);
      compareRows(name, expected, actual);
      rows[name] = expected.length;
    }
    return rows;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
