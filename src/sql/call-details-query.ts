import type { CallDetailsPlan } from '../planner/call-details-plan.js';
import { Binder } from './binder.js';
import type { CompiledQuery } from './compiled-query.js';
import type { SqlDialect } from './dialect.js';
import { duckdbDialect } from './duckdb/duckdb-dialect.js';
import { conditionSql, valueSql, type ExpressionContext } from './expressions.js';

export interface CallDetailsQueries {
  /** `n`: the calls of the whole filtered result. */
  readonly count: CompiledQuery;
  /** One page of calls, as the endpoint shows them. */
  readonly rows: CompiledQuery;
}

/**
 * /call-details: the calls of the organization in the range, one row per call and linked
 * account (a platform account linked to two accounts gives each call once per account; an
 * unlinked one gives it once with accountId null), through the same condition code as the
 * reports. Every value is bound; every name comes from the catalogue.
 */
export function compileCallDetails(plan: CallDetailsPlan, d: SqlDialect = duckdbDialect): CallDetailsQueries {
  const binder = Binder.start(d);
  const org = binder.bind(plan.organizationId, 'bigint');
  const from = binder.bind(plan.from, 'date');
  const to = binder.bind(plan.to, 'date');
  const context: ExpressionContext = { dialect: d, binder };
  const q = d.quote;
  const where = plan.filter === undefined ? 'TRUE' : conditionSql(plan.filter, 'c', context);
  const order = [
    ...(plan.sort.length === 0
      ? [`c.${q('startTime')} ASC`]
      : plan.sort.map((key) => `${valueSql(key.value, 'c', context)} ${key.descending ? 'DESC' : 'ASC'} NULLS LAST`)),
    `c.${q('id')} ASC`,
    `c.${q('accountId')} ASC NULLS LAST`,
  ];
  const base = `(
    SELECT cd.id AS id, l.account_id AS ${q('accountId')}, cd.campaign_id AS ${q('campaignId')}, cd.ad_group_id AS ${q('adGroupId')},
           cd.adplatform_account_id AS ${q('adPlatformAccountId')}, p.ad_platform_type AS ${q('adPlatformType')},
           ${d.timestampText('cd.start_time')} AS ${q('startTime')}, cd.duration_seconds AS ${q('durationSeconds')}, cd.status AS status,
           cd.call_type AS ${q('callType')}, cd.caller_country AS ${q('callerCountry')}, cd.caller_area_code AS ${q('callerAreaCode')},
           cd.is_conversion AS ${q('isConversion')}
      FROM call_details cd
      JOIN adplatform_accounts p ON p.id = cd.adplatform_account_id AND p.organization_id = ${org}
      LEFT JOIN (SELECT ln.account_id, ln.adplatform_account_id FROM account_adplatform_links ln
                   JOIN accounts a ON a.id = ln.account_id AND a.organization_id = ${org}) l
        ON l.adplatform_account_id = cd.adplatform_account_id
     WHERE cd.organization_id = ${org} AND cd.day BETWEEN ${from} AND ${to}
  ) c`;
  const count: CompiledQuery = {
    sql: `SELECT ${d.cast('count(*)', 'bigint')} AS n FROM ${base} WHERE ${where}`,
    params: [...binder.params],
    columns: ['n'],
  };
  const rows = `SELECT c.* FROM ${base} WHERE ${where} ORDER BY ${order.join(', ')} LIMIT ${binder.bind(plan.limit, 'bigint')} OFFSET ${binder.bind(plan.offset, 'bigint')}`;
  return { count, rows: { sql: rows, params: binder.params, columns: [] } };
}
