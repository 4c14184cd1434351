import type { ReportRequest } from '../../src/reporting/report-request.js';

/** A ReportRequest as the HTTP layer would hand it over for an empty query string, with `overrides` on top. */
export function reportRequestOf(overrides: Partial<ReportRequest> = {}): ReportRequest {
  return {
    organizationId: 1,
    startDate: undefined,
    endDate: undefined,
    statistics: undefined,
    segments: undefined,
    filter: undefined,
    sort: undefined,
    formulas: [],
    embed: undefined,
    name: undefined,
    limit: 100,
    offset: 0,
    totals: false,
    ...overrides,
  };
}
