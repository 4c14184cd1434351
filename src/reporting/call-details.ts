import type { CallDetailsPlan } from '../planner/call-details-plan.js';
import { compileCallDetails } from '../sql/call-details-query.js';
import type { ReportEngine } from './report-engine.js';

export type { CallDetailsRequest } from '../planner/call-details-plan.js';

/** One call as GET /reporting/v0/call-details shows it. */
export interface CallDetail {
  readonly id: number;
  /** The account the call's platform account is linked to; null when it is linked to none. */
  readonly accountId: number | null;
  readonly campaignId: number;
  readonly adGroupId: number;
  readonly adPlatformAccountId: number;
  readonly adPlatformType: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly startTime: string;
  readonly durationSeconds: number;
  readonly status: string;
  readonly callType: string;
  readonly callerCountry: string;
  readonly callerAreaCode: string;
  readonly isConversion: boolean;
}

/** The runner: plan -> statements -> one page of calls and the total over all pages. */
export async function listCallDetails(
  engine: ReportEngine,
  plan: CallDetailsPlan,
): Promise<{ total: number; callDetails: CallDetail[] }> {
  const queries = compileCallDetails(plan, engine.dialect);
  return engine.read({ organizationId: plan.organizationId, slots: 'one' }, async (r) => {
    const total = await r.one<{ n: number }>(queries.count.sql, queries.count.params);
    const callDetails = await r.all<CallDetail>(queries.rows.sql, queries.rows.params);
    return { total: total?.n ?? 0, callDetails };
  });
}
