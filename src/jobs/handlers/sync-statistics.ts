import { z } from 'zod';
import type { PlatformDirectory } from '../../platforms/connector.js';
import { syncStatistics } from '../../statistics/statistics-sync.js';
import type { FactWriter } from '../../statistics/fact-writer.js';
import type { Store } from '../../store/store.js';
import { PermanentJobFailure, type JobHandler } from '../job-runner.js';

const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const inputSchema = z.object({
  adPlatformAccountId: z.number().int().positive(),
  from: isoDay,
  to: isoDay,
  campaignIds: z.array(z.number().int().positive()).optional(),
});

/**
 * SYNC_STATISTICS: replaces the stored figures of one platform account's window with what the
 * platform reports now. Transient platform failures go up to the runner, which retries the
 * whole (idempotent) job with backoff.
 */
export function syncStatisticsHandler(
  db: Store,
  platforms: PlatformDirectory,
  now: () => Date,
  facts: FactWriter | undefined,
): JobHandler {
  return async (job) => {
    if (facts === undefined)
      throw new PermanentJobFailure(
        'statistics_unavailable',
        'This deployment keeps its state in PostgreSQL without a ClickHouse for facts; statistics sync needs the embedded DuckDB store or --facts clickhouse.',
      );
    const parsed = inputSchema.safeParse(job.input);
    if (!parsed.success)
      throw new PermanentJobFailure(
        'invalid_input',
        `SYNC_STATISTICS input is not valid: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    const outcome = await syncStatistics(db, platforms, job.organizationId, parsed.data, now(), facts);
    return { result: { ...parsed.data, ...outcome } };
  };
}
