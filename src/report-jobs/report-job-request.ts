import { ENDPOINT_BY_PATH, type ReportEndpoint } from '../catalog/endpoints.js';
import type { ReportRequest } from '../planner/report-plan.js';
import { parseReportQuery, reportRequest } from '../reporting/report-request.js';
import { badRequest } from '../shared/errors.js';
import type { ReportJobFormat, ReportJobQuery } from './report-job-store.js';

/** A query value as a POST may give it: JSON scalars become their text, a list repeats the parameter. */
export type ReportJobQueryInput = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** The query as stored and shown: every value text, a repeated parameter a list. */
export function normalizeQuery(query: ReportJobQueryInput): ReportJobQuery {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [name, Array.isArray(value) ? [...value] : String(value)]),
  );
}

export function endpointOf(path: string): ReportEndpoint {
  const endpoint = ENDPOINT_BY_PATH.get(path);
  if (!endpoint)
    throw badRequest('invalid_parameter', `reportJob.endpoint "${path.slice(0, 100)}" is not a statistics endpoint.`, [
      { field: 'reportJob.endpoint', code: 'invalid', message: 'not a statistics endpoint' },
    ]);
  return endpoint;
}

/**
 * The planner's request for a report job: the query goes through the very parser of
 * GET /reporting/v0/<endpoint>?format=<format> (as URL text, so every rule and every 400 is the
 * GET's own), with the format taken from the job.
 */
export function reportJobRequest(
  endpoint: ReportEndpoint,
  query: ReportJobQuery,
  format: ReportJobFormat,
  organizationId: number,
): ReportRequest {
  if (Object.hasOwn(query, 'format'))
    throw badRequest('invalid_parameter', 'Give the format as reportJob.format, not in reportJob.query.', [
      { field: 'format', code: 'invalid', message: 'belongs in reportJob.format' },
    ]);
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of typeof value === 'string' ? [value] : value) params.append(name, item);
  }
  return reportRequest(parseReportQuery(`?${params.toString()}`, endpoint), endpoint.level, organizationId, format);
}
