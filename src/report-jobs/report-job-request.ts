import { ENDPOINT_BY_PATH, type ReportEndpoint } from '../catalog/endpoints.js';
import type { ReportRequest } from '../planner/report-plan.js';
import { storedQueryRequest, type StoredQueryInput } from '../reporting/report-request.js';
import { badRequest } from '../shared/errors.js';
import type { ReportJobFormat, ReportJobQuery } from './report-job-store.js';

/** A query value as a POST may give it: JSON scalars become their text, a list repeats the parameter. */
export type ReportJobQueryInput = StoredQueryInput;

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
  return storedQueryRequest(endpoint, query, organizationId, format);
}
