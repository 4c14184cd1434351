import type { DailyReport } from '../platforms/connector.js';
import type { Executor } from '../store/executor.js';
import { replaceDailyReport, type ReplacementCounts, type ReplacementScope } from './fact-replacement.js';

/**
 * Where a statistics sync puts a platform's figures: the embedded DuckDB file (in the sync's
 * transaction), or ClickHouse (issue 38, `--facts clickhouse`), swapped in while the sync's
 * PostgreSQL transaction holds the organization's lock and records the change. Either way the
 * window's stored figures become exactly the report's, however often it runs.
 */
export interface FactWriter {
  replaceDailyReport(tx: Executor, scope: ReplacementScope, report: DailyReport): Promise<ReplacementCounts>;
}

export const duckdbFactWriter: FactWriter = { replaceDailyReport };
