import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { FACT_SOURCE_BY_TABLE } from '../../src/catalog/fact-sources.js';
import { LEVEL_BY_PATH, type LevelPath } from '../../src/catalog/levels.js';
import { responseFormat } from '../../src/http/export-negotiation.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import { ApiError } from '../../src/shared/errors.js';
import type { ReportPlan } from '../../src/planner/report-plan.js';
import { parseReportQuery, reportRequest } from '../../src/reporting/report-request.js';
import { clickhouseDialect, compileReport, duckdbDialect } from '../../src/sql/compile-report.js';
import { factSource } from '../../src/sql/fact-source.js';
import type { ParityRequest } from './parity-corpus.js';
import { encodeQuery } from './reporting-fixture.js';

/**
 * What aggregate tables change in a parity request (issue 22 item 5, the two embedded parity
 * files): the service's `rollups` setting reaches one decision only, the table a report's daily
 * sums are read from (src/sql/fact-source.ts). A request whose plan reads the facts, a breakdown
 * or search terms with them on, a 400 of the planner (it checks the sources with them on either
 * way), call details and markups (no report statement) run the same statements on the same
 * data either way: the file with aggregate tables off asks only the requests that read one.
 */

const LABEL_PATH = /^accounts\/campaign-labels\/name\/(\w+)$/;

/** The request planned as the service's route plans it; undefined: no report statement (a 400, call details, markups). */
function planOf(request: ParityRequest, now: Date): { plan: ReportPlan; format: string } | undefined {
  const label = LABEL_PATH.exec(request.path)?.[1];
  const endpoint = ENDPOINT_BY_PATH.get(label === undefined ? request.path : 'accounts');
  if (endpoint === undefined) return undefined;
  try {
    const query = parseReportQuery(`?${encodeQuery(request.query)}`, endpoint);
    const format = responseFormat(query.get('format'), undefined);
    const parsed = reportRequest(query, endpoint.level, request.org + 1, format);
    const campaignLabel =
      label === undefined
        ? undefined
        : { name: label, stored: label === 'campaignGroup' ? 'sys.campaignGroup' : label };
    return { plan: buildPlan(endpoint, { ...parsed, campaignLabel }, now), format };
  } catch (error) {
    // A 4xx of the parser or planner, as the route answers it; anything else is a bug of this mirror of the route.
    if (error instanceof ApiError && error.status < 500) return undefined;
    throw error;
  }
}

/** With aggregate tables on, the request's daily sums come from one (a rollup), where without them they come from the facts. */
export function readsAggregateTable(request: ParityRequest, now = new Date()): boolean {
  const planned = planOf(request, now);
  if (planned === undefined) return false;
  const level = LEVEL_BY_PATH.get(planned.plan.level as LevelPath)!;
  return FACT_SOURCE_BY_TABLE.get(factSource(planned.plan, level, { rollups: true }))?.kind === 'rollup';
}

/** The SQL of every statement the service compiles for the request, on both engines, with aggregate tables on or off. */
export function statementsOf(request: ParityRequest, rollups: boolean, now = new Date()): string[] {
  const planned = planOf(request, now);
  if (planned === undefined) return [];
  const { plan, format } = planned;
  return [duckdbDialect, clickhouseDialect].flatMap((dialect) => {
    const report = compileReport(plan, dialect, { rollups });
    const estimates = report.estimates();
    const statements =
      format === 'json'
        ? [report.page(), report.jsonPage(), report.totals(), report.segmentTotals()]
        : [report.export(format as 'csv' | 'ndjson' | 'parquet')];
    // The count of an empty page and of an export's X-TotalCount (report-service.ts, countAll).
    const count = compileReport({ ...plan, offset: 0, limit: 1, totals: false }, dialect, { rollups }).page();
    return [...statements, count, estimates?.gate, estimates?.estimates].map((s) => s?.sql ?? '');
  });
}
