import { NO_LIMIT } from '../planner/report-plan.js';
import type { CompiledQuery, ExportFormat } from './compiled-query.js';
import { ESTIMATE_COLUMNS, estimateAggregates } from './finish-estimates.js';
import { rowColumns } from './export-columns.js';
import type { NamedColumn } from './dialect.js';
import type { ReportQuery } from './report-query.js';
import { filteredRows, orderBy, orderKeys } from './report-rows.js';

/**
 * Rows per part of a JSON page (~50 KB of keyword rows). A 10,000-row page rendered as one text
 * reached JS as one 3.4 MB buffer that lived as long as its slowest write, so 16 concurrent pulls
 * forced a major GC every few pulls (10-40 ms pauses); parts are copied out one at a time as the
 * socket drains. DuckDB also builds the parts in parallel: the pull went from 67 to 33-43 ms.
 */
export const PAGE_PART_ROWS = 128;

const sortedAs = (columns: readonly NamedColumn[]): NamedColumn[] =>
  columns.map(([name, , json], i) => [name, `sorted.c${i}`, json]);

/**
 * A JSON page in parts: one result row per PAGE_PART_ROWS rows of the page, in page order, with
 * `part` (those rows' JSON texts joined by commas, UTF-8, and after the first part led by a
 * comma, so that the parts laid end to end are the JSON array's content), `bytes` (its length)
 * and `total` (rows of the whole result), and ESTIMATE_COLUMNS when money is converted. An empty
 * page has no part.
 *
 * Rendered by the engine (DESIGN D3): 8,214 keyword rows took ~200 ms of event-loop time as JS
 * objects, against a 28 ms query. The page's sort keys go along so that string_agg and the part
 * numbers order just the page; a row_number() window over the whole result ordered every row of
 * it first (1-3 ms of a 10-20 ms report).
 */
export function finishJsonPage(query: ReportQuery): CompiledQuery {
  const { plan, dialect: d } = query;
  const { binder, where } = filteredRows(query);
  const order = orderKeys(query, binder);
  const columns = rowColumns(query, binder, true);
  const flat = `SELECT ${columns.map(([, sql], i) => `${sql} AS c${i}`).join(', ')}, ${order.map(([sql], i) => `${sql} AS k${i}`).join(', ')}, count(*) OVER () AS total${
    query.tracksEstimates ? ', r.__est_first, r.__est_last, r.__est_currencies' : ''
  }
      FROM report_rows r${where}
      ORDER BY ${orderBy(order)} LIMIT ${binder.bind(plan.limit, 'bigint')} OFFSET ${binder.bind(plan.offset, 'bigint')}`;
  const pageOrder = (alias: string) => order.map(([, direction], i) => `${alias}.k${i} ${direction}`).join(', ');
  const line = d.jsonObject(sortedAs(columns));
  const rowNo = `row_number() OVER (ORDER BY ${pageOrder('page')})`;
  // A page that fits one part skips the numbering window (1-3 ms of a small report), unless the
  // engine's aggregates take no ORDER BY keys (ClickHouse): then the parts are ordered by the number.
  const partNo = plan.limit <= PAGE_PART_ROWS ? '0' : d.integerDivide(`(${rowNo} - 1)`, String(PAGE_PART_ROWS));
  const numbering = d.orderedAggregates ? '' : `, ${rowNo} AS page_row`;
  const partOrder = d.orderedAggregates ? pageOrder('sorted') : 'sorted.page_row';
  // As UTF-8 bytes (BLOB), not text: the service sends them as they are, where a string costs a
  // decode into JS, a byte count and an encode again on the event loop (~10 ms per 3.4 MB page).
  // Each part says which of its rows' money was converted at estimated rates (the service joins the parts' answers).
  const estimates = query.tracksEstimates ? ESTIMATE_COLUMNS : [];
  const parts = `SELECT sorted.part_no, ${d.utf8Bytes(`CASE WHEN sorted.part_no > 0 THEN ',' ELSE '' END || ${d.stringAgg(d.jsonText(line), ',', { orderBy: partOrder })}`)} AS part, max(sorted.total) AS total${
    query.tracksEstimates
      ? estimateAggregates(d, 'sorted', false)
          .map((sql, i) => `, ${sql} AS ${ESTIMATE_COLUMNS[i]}`)
          .join('')
      : ''
  }
      FROM (SELECT page.*, ${partNo} AS part_no${numbering} FROM (${flat}) page) sorted GROUP BY sorted.part_no`;
  const sql = `${query.ctes} SELECT part, ${d.byteLength('part')} AS bytes, total${estimates.map((c) => `, ${c}`).join('')} FROM (${parts}) ORDER BY part_no`;
  return { sql, params: binder.params, columns: ['part', 'bytes', 'total', ...estimates] };
}

/**
 * The export SELECT of the whole result (or the asked page), in the order of the JSON form: CSV
 * and Parquet get flat columns named like the JSON paths (`statistics.clicks`, `segments.day`),
 * labels, images and specificFields as JSON text; NDJSON gets one JSON text per row (`line`)
 * shaped exactly like the JSON form's rows.
 */
export function finishExport(query: ReportQuery, format: ExportFormat): CompiledQuery {
  const { plan, dialect: d } = query;
  const { binder, where } = filteredRows(query);
  const order = orderKeys(query, binder);
  const ndjson = format === 'ndjson';
  const columns = rowColumns(query, binder, ndjson);
  const page =
    plan.limit === NO_LIMIT && plan.offset === 0
      ? ''
      : ` LIMIT ${binder.bind(plan.limit, 'bigint')} OFFSET ${binder.bind(plan.offset, 'bigint')}`;
  const flat = `SELECT ${columns.map(([name, sql], i) => `${sql} AS ${ndjson ? `c${i}` : d.quote(name)}`).join(', ')}
      FROM report_rows r${where}
      ORDER BY ${orderBy(order)}${page}`;
  // NDJSON text is built after the sort (a projection keeps the order): sorting 5 M rows with
  // their JSON text attached carried 2.3 GB of strings through the sort.
  const sql = ndjson
    ? `${query.ctes} SELECT ${d.jsonObject(sortedAs(columns))} AS line FROM (${flat}) sorted`
    : `${query.ctes} ${flat}`;
  return { sql, params: binder.params, columns: ndjson ? ['line'] : columns.map(([name]) => name) };
}
