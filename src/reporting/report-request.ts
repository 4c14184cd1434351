import type { ReportEndpoint } from '../catalog/endpoints.js';
import type { LevelDefinition } from '../catalog/levels.js';
import { NO_LIMIT, type ReportRequest } from '../planner/report-plan.js';

/** What the HTTP layer hands the reporting service (http may import reporting, not the planner: DESIGN D4). */
export type { ReportRequest } from '../planner/report-plan.js';
export { EXPRESSION_LIMITS } from '../planner/expression/expression-types.js';
export { DATE_PRESETS, DATE_PRESET_DESCRIPTIONS } from '../planner/date-presets.js';
import type { ExportFormat } from '../sql/compile-report.js';
import { supportedCurrencies } from '../reference/fx-rates.js';
import { isCurrencyCode, noRatesMessage } from '../shared/currencies.js';
import { invalidParameter, parsePaging, QueryParams } from '../shared/query-params.js';
import { characterCount } from '../shared/text-length.js';

/** The JSON form's page cap (supplement 1). */
export const MAX_LIMIT = 10_000;
/** An export's `limit`, when one is given: the JSON form's cap does not apply. */
const MAX_EXPORT_LIMIT = 1_000_000_000;

/** Parameters of every statistics endpoint, besides its `name` or `text`. */
export const REPORT_PARAMETERS = [
  'startDate',
  'endDate',
  'dateRange',
  'statistics',
  'segments',
  'filter',
  'sort',
  'formulas',
  'embed',
  'limit',
  'offset',
  'totals',
  'currency',
  'compare',
  'format',
  'attributionWindows',
] as const;

/**
 * The comma lists among them: each may also be repeated (`segments=Week&segments=Day`) or both,
 * one list in the order sent. `formulas` are read value by value (an error's position is within
 * its value); the others as the one comma text.
 */
export const REPORT_LIST_PARAMETERS = [
  'statistics',
  'segments',
  'sort',
  'formulas',
  'embed',
  'attributionWindows',
] as const;

/** A comma list's entries (its repeated values joined first); an empty entry is a 400. */
export function commaList(query: QueryParams, name: string): string[] | undefined {
  const value = query.get(name);
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) invalidParameter(name, 'is a comma-separated list without empty entries');
  return items;
}

/** Strict parse of a statistics endpoint's query (`url` may be just `?a=b`). */
export function parseReportQuery(url: string, endpoint: ReportEndpoint): QueryParams {
  const level = endpoint.level;
  // A level without embeds has no embed parameter, attributionWindows is on the FACEBOOK endpoints that answer it (the document leaves them out too).
  const parameters = REPORT_PARAMETERS.filter(
    (name) =>
      (name !== 'embed' || level.embeds.length > 0) && (name !== 'attributionWindows' || endpoint.attributionWindows),
  );
  return QueryParams.parse(url, [...parameters, level.nameParameter], REPORT_LIST_PARAMETERS);
}

/**
 * The query as the planner takes it, for the HTTP routes and `adreport export` alike. An export
 * is the whole result unless a page is asked for, and has no totals.
 */
export function reportRequest(
  query: QueryParams,
  level: LevelDefinition,
  organizationId: number,
  format: 'json' | ExportFormat,
): ReportRequest {
  const totals = query.get('totals');
  if (totals !== undefined && totals !== 'true' && totals !== 'false' && totals !== 'segments')
    invalidParameter('totals', 'must be true, false or segments');
  if (format !== 'json' && (totals === 'true' || totals === 'segments'))
    invalidParameter('totals', `is part of the JSON form only; a ${format} export has the rows alone`);
  const paging =
    format === 'json'
      ? parsePaging(query, MAX_LIMIT, 100)
      : query.get('limit') === undefined && query.get('offset') === undefined
        ? { limit: NO_LIMIT, offset: 0 }
        : parsePaging(query, MAX_EXPORT_LIMIT, MAX_EXPORT_LIMIT);
  const name = query.get(level.nameParameter);
  if (name !== undefined && (name === '' || characterCount(name) > 255))
    invalidParameter(level.nameParameter, 'must be 1 to 255 characters');
  return {
    organizationId,
    currency: reportCurrency(query.get('currency')),
    startDate: query.get('startDate'),
    endDate: query.get('endDate'),
    dateRange: query.get('dateRange'),
    statistics: commaList(query, 'statistics'),
    segments: commaList(query, 'segments'),
    attributionWindows: commaList(query, 'attributionWindows'),
    filter: query.get('filter'),
    sort: query.get('sort'),
    formulas: query.getAll('formulas'),
    embed: commaList(query, 'embed'),
    name,
    ...paging,
    totals: totals === 'true' || totals === 'segments',
    segmentTotals: totals === 'segments',
    compare: query.get('compare'),
  };
}

/** `currency`: one the FX reference has daily rates for (the codes accounts may use), upper case. */
function reportCurrency(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  const supported = supportedCurrencies();
  if (supported.has(code)) return code;
  const why = isCurrencyCode(code)
    ? noRatesMessage(code)
    : `"${code.slice(0, 20)}" is not an ISO 4217 currency code in capitals`;
  invalidParameter('currency', `${why}; supported: ${[...supported].sort().join(', ')}`);
}

/** A report's query as report jobs and saved views keep it: every value text, a repeated parameter a list. */
export type StoredQuery = Readonly<Record<string, string | readonly string[]>>;
/** A stored query as a POST body may give it: JSON scalars become their text. */
export type StoredQueryInput = Readonly<Record<string, string | number | boolean | readonly string[]>>;

export function normalizeStoredQuery(query: StoredQueryInput): StoredQuery {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [name, Array.isArray(value) ? [...value] : String(value)]),
  );
}

/**
 * The planner's request of a stored query: through the very parser of GET /reporting/v0/<endpoint>
 * (as URL text, so every rule and every 400 is the GET's own), in `format`.
 */
export function storedQueryRequest(
  endpoint: ReportEndpoint,
  query: StoredQuery,
  organizationId: number,
  format: 'json' | ExportFormat,
): ReportRequest {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    for (const item of typeof value === 'string' ? [value] : value) params.append(name, item);
  return reportRequest(parseReportQuery(`?${params.toString()}`, endpoint), endpoint.level, organizationId, format);
}
