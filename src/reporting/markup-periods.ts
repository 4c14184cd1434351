import { compileMarkupPeriods, type MarkupPeriodsRequest } from '../sql/markup-periods-query.js';
import type { ReportEngine } from './report-engine.js';

export type { MarkupPeriodsRequest as MarkupPeriodQuery } from '../sql/markup-periods-query.js';

/** A markup period as /reporting/v0/markups shows it, with the account it belongs to. */
export interface MarkupPeriod {
  readonly id: number;
  readonly accountId: number;
  readonly accountName: string;
  readonly currency: string;
  readonly rate: number;
  readonly startDate: string;
  /** null: open-ended. */
  readonly endDate: string | null;
}

/** The organization's markup periods by account, start date and id; the total counts all pages. */
export async function listMarkupPeriods(
  engine: ReportEngine,
  request: MarkupPeriodsRequest,
): Promise<{ total: number; markups: MarkupPeriod[] }> {
  const queries = compileMarkupPeriods(request, engine.dialect);
  return engine.read({ organizationId: request.organizationId, slots: 'one' }, async (r) => {
    const total = await r.one<{ n: number }>(queries.count.sql, queries.count.params);
    const markups = await r.all<MarkupPeriod>(queries.rows.sql, queries.rows.params);
    return { total: total?.n ?? 0, markups };
  });
}
