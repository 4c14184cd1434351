import type { ReportPlan } from '../planner/report-plan.js';
import type { CompiledQuery, ExportFormat } from './compiled-query.js';
import type { SqlDialect } from './dialect.js';
import { duckdbDialect } from './duckdb/duckdb-dialect.js';
import { finishEstimates, finishEstimatesGate } from './finish-estimates.js';
import { finishPage } from './finish-page.js';
import { finishSegmentTotals, finishTotals } from './finish-totals.js';
import { finishExport, finishJsonPage } from './finish-rows.js';
import type { CompileOptions } from './fact-source.js';
import { reportQuery, type ReportQuery } from './report-query.js';

export type { CompiledQuery, ExportFormat } from './compiled-query.js';
export type { SqlDialect, StreamedExport } from './dialect.js';
export type { CompileOptions } from './fact-source.js';
export { duckdbDialect } from './duckdb/duckdb-dialect.js';
export { compileFreshness, type FreshnessStatements, type SyncStateRow } from './duckdb/freshness-query.js';
export { compileLabelNames, compileScopeCurrencies, filteredLabelNames } from './duckdb/scope-query.js';
export {
  bindClickhouseParams,
  clickhouseDialect,
  CLICKHOUSE_QUERY_SETTINGS,
  type ClickhouseParam,
} from './clickhouse/clickhouse-dialect.js';
export { formulaColumn, segmentColumn, statisticColumn } from './expressions.js';
export { ESTIMATE_COLUMNS } from './finish-estimates.js';
export { TOTAL_COLUMN } from './finish-page.js';
export {
  BUCKET_ROW_COLUMN,
  changeColumn,
  changeFormulaColumn,
  comparedFormulaColumn,
  comparedStatisticColumn,
  CURRENCIES_COLUMN,
} from './finish-totals.js';
export { PAGE_PART_ROWS } from './finish-rows.js';

/** The statements of one report, all finished from the same CTEs (built once, on first use). */
export interface CompiledReport {
  readonly query: ReportQuery;
  /** A page of rows with statistic (st_i) and formula (fm_i) columns and the row count (__total). */
  page(): CompiledQuery;
  /** `totals=true`: the statistics over the whole filtered result; undefined otherwise. */
  totals(): CompiledQuery | undefined;
  /** `totals=segments`: the totals row, then the statistics of every segment bucket of the whole filtered result (BUCKET_ROW_COLUMN); undefined otherwise. */
  segmentTotals(): CompiledQuery | undefined;
  /** The page as JSON text in parts (see finishJsonPage). */
  jsonPage(): CompiledQuery;
  /** The whole result (or the asked page) as export rows. */
  export(format: ExportFormat): CompiledQuery;
  /** The days and currencies converted at estimated rates, and the cheap query that says whether to ask; undefined when no money is converted. */
  estimates(): { readonly estimates: CompiledQuery; readonly gate: CompiledQuery } | undefined;
}

/**
 * ReportPlan -> statements, pure: the dialect-neutral compiler (src/sql/*.ts) emitting through
 * `dialect` (DuckDB unless told otherwise). Every value is a bound parameter; every identifier
 * comes from the catalogue. `options.rollups` (default on): read the smallest rollup that answers
 * the plan instead of the facts (fact-source.ts).
 */
export function compileReport(
  plan: ReportPlan,
  dialect: SqlDialect = duckdbDialect,
  options: CompileOptions = {},
): CompiledReport {
  const query = reportQuery(plan, dialect, options);
  return {
    query,
    page: () => finishPage(query),
    totals: () => finishTotals(query),
    segmentTotals: () => finishSegmentTotals(query),
    jsonPage: () => finishJsonPage(query),
    export: (format) => finishExport(query, format),
    estimates() {
      const estimates = finishEstimates(query);
      return estimates === undefined ? undefined : { estimates, gate: finishEstimatesGate(query) };
    },
  };
}
