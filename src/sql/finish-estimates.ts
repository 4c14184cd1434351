import { NO_LIMIT } from '../planner/report-plan.js';
import { Binder } from './binder.js';
import type { CompiledQuery } from './compiled-query.js';
import type { SqlDialect } from './dialect.js';
import type { ReportQuery } from './report-query.js';
import { filteredRows, orderBy, orderKeys } from './report-rows.js';

/**
 * When the plan converts money, columns of the JSON page's parts (after part, bytes, total), of
 * the totals query and of finishEstimates: of the rows they cover (a part's, all filtered rows),
 * the first and last day on which money was converted between two currencies at a rate that is
 * not a published one (YYYY-MM-DD), and those rates' currencies (comma-joined, repeats possible).
 */
export const ESTIMATE_COLUMNS = ['est_first', 'est_last', 'est_currencies'] as const;

/**
 * The estimated conversions of a set of rows (`alias`): first day, last day, currencies. A part of
 * a page has at most PAGE_PART_ROWS rows of a few codes each: not DISTINCT there (the caller
 * dedupes; a DISTINCT aggregate cost ~1.5 ms of a 10 ms campaign report); over a whole result, DISTINCT.
 */
export function estimateAggregates(d: SqlDialect, alias: string, distinct: boolean): string[] {
  return [
    d.dateText(`min(${alias}.__est_first)`),
    d.dateText(`max(${alias}.__est_last)`),
    d.stringAgg(`${alias}.__est_currencies`, ',', { distinct }),
  ];
}

/**
 * For exports, whose warnings go in a header before the first byte: one row with ESTIMATE_COLUMNS
 * over the whole filtered result (or the asked page); undefined when the plan converts no money.
 */
export function finishEstimates(query: ReportQuery): CompiledQuery | undefined {
  if (!query.tracksEstimates) return undefined;
  const { plan, dialect: d } = query;
  const { binder, where } = filteredRows(query);
  // An export's rows: the whole filtered result, or the page it asks for. Unpaged, the sort's own
  // bound values (a formula's numbers) are not in this SQL, so nothing of the order is bound.
  const paged =
    plan.limit === NO_LIMIT && plan.offset === 0
      ? ''
      : ` ORDER BY ${orderBy(orderKeys(query, binder))} LIMIT ${binder.bind(plan.limit, 'bigint')} OFFSET ${binder.bind(plan.offset, 'bigint')}`;
  const sql = `${query.ctes} SELECT ${estimateAggregates(d, 'x', true)
    .map((sql, i) => `${sql} AS ${ESTIMATE_COLUMNS[i]}`)
    .join(', ')}
           FROM (SELECT r.__est_first, r.__est_last, r.__est_currencies FROM report_rows r${where}${paged}) x`;
  return { sql, params: binder.params, columns: [...ESTIMATE_COLUMNS] };
}

/**
 * Whether any rate the plan could convert with in its range is not published: over fx_rates and
 * the organization's currencies only (a few hundred rows), so an export where every rate is
 * published skips the estimate query over the facts (40% of a 400-day campaign export's time).
 */
export function finishEstimatesGate(query: ReportQuery): CompiledQuery {
  const { plan, dialect: d } = query;
  const binder = Binder.start(d);
  const org = binder.bind(plan.organizationId, 'bigint');
  const from = binder.bind(plan.from, 'date');
  const to = binder.bind(plan.to, 'date');
  // With compare the compared range converts too.
  const days = plan.compare
    ? `(day BETWEEN ${from} AND ${to} OR day BETWEEN ${binder.bind(plan.compare.from, 'date')} AND ${binder.bind(plan.compare.to, 'date')})`
    : `day BETWEEN ${from} AND ${to}`;
  const targets =
    plan.currency === undefined
      ? `SELECT currency FROM accounts WHERE organization_id = ${org}`
      : `SELECT ${binder.bind(plan.currency, 'varchar')}`;
  return {
    // A boolean in every engine (ClickHouse's EXISTS is a UInt8).
    sql: `SELECT ${d.cast(
      `(EXISTS (SELECT 1 FROM fx_rates WHERE ${days} AND NOT published
             AND currency IN (SELECT currency FROM adplatform_accounts WHERE organization_id = ${org} UNION ${targets})))`,
      'boolean',
    )} AS estimated`,
    params: binder.params,
    columns: ['estimated'],
  };
}
