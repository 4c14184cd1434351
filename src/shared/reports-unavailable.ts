import { ApiError } from './errors.js';

/**
 * A store without facts (the PostgreSQL store until the facts move to ClickHouse, issue 38) serves
 * no reports: a clear 503, whose Retry-After says "not soon", rather than a 500 or a wrong answer.
 */
export const reportsUnavailable = () =>
  new ApiError(
    503,
    'reports_unavailable',
    'This deployment keeps its state in PostgreSQL, which holds no statistics yet: reports, exports and report jobs need the embedded DuckDB store.',
    [],
    { 'Retry-After': '3600' },
  );
