import { Binder } from './binder.js';
import type { CompiledQuery } from './compiled-query.js';
import type { SqlDialect } from './dialect.js';
import { duckdbDialect } from './duckdb/duckdb-dialect.js';

/** GET /reporting/v0/markups, checked: periods sharing a day with [from, to] (all without dates), of some accounts or all. */
export interface MarkupPeriodsRequest {
  readonly organizationId: number;
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly accountIds: readonly number[] | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** The organization's markup periods by account, start date and id, and their count over all pages. */
export function compileMarkupPeriods(
  request: MarkupPeriodsRequest,
  d: SqlDialect = duckdbDialect,
): { readonly count: CompiledQuery; readonly rows: CompiledQuery } {
  const binder = Binder.start(d);
  const q = d.quote;
  const where = [`m.organization_id = ${binder.bind(request.organizationId, 'bigint')}`];
  // An open period (no end date) reaches every later day.
  if (request.from !== undefined)
    where.push(`coalesce(m.end_date, ${d.dateLiteral('9999-12-31')}) >= ${binder.bind(request.from, 'date')}`);
  if (request.to !== undefined) where.push(`m.start_date <= ${binder.bind(request.to, 'date')}`);
  if (request.accountIds !== undefined) {
    where.push(
      request.accountIds.length === 0
        ? 'FALSE'
        : `m.account_id IN (${request.accountIds.map((id) => binder.bind(id, 'bigint')).join(', ')})`,
    );
  }
  const condition = where.join(' AND ');
  const count: CompiledQuery = {
    sql: `SELECT ${d.cast('count(*)', 'integer')} AS n FROM markups m WHERE ${condition}`,
    params: [...binder.params],
    columns: ['n'],
  };
  const rows = `SELECT m.id, m.account_id AS ${q('accountId')}, a.name AS ${q('accountName')}, a.currency, ${d.cast('m.rate', 'double')} AS rate,
              ${d.dateText('m.start_date')} AS ${q('startDate')}, ${d.dateText('m.end_date')} AS ${q('endDate')}
         FROM markups m JOIN accounts a ON a.id = m.account_id
        WHERE ${condition}
        ORDER BY m.account_id, m.start_date, m.id
        LIMIT ${binder.bind(request.limit, 'bigint')} OFFSET ${binder.bind(request.offset, 'bigint')}`;
  return {
    count,
    rows: {
      sql: rows,
      params: binder.params,
      columns: ['id', 'accountId', 'accountName', 'currency', 'rate', 'startDate', 'endDate'],
    },
  };
}
