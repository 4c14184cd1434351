import type { LevelPath } from '../catalog/levels.js';
import { daysBetween } from '../shared/dates.js';
import type { ReportPlan } from './report-plan.js';

/** How much of the engine a report's query takes: the report lane's slots (src/store/report-scheduler.ts). */
export type ReportSlots = 'one' | 'all';

/** A page of more rows than this is a pull: rendering and moving the rows is itself much of the work. */
export const PULL_PAGE_ROWS = 1000;

/** The levels whose facts are the finest (fact_keyword_daily, and ad groups and ads over fact_ad_daily). */
const FINE_LEVELS: ReadonlySet<LevelPath> = new Set(['keywords', 'ads', 'adgroups']);

/**
 * The report lane's weight of a plan, a pure function of its size. DuckDB's `threads` is
 * instance-wide and locked (`SET SESSION threads` fails: "cannot be set locally"), so one query
 * cannot be given fewer threads; what admission can choose is whether a query shares the engine.
 *
 * A small report (a dashboard's page) takes one slot and runs beside others: it takes a few to a
 * few tens of ms, much of it per-query fixed cost, so several at once use both cores. A pull takes
 * every slot and runs alone on all threads: beside small reports it would hold a slot for 50-250 ms
 * while they queue. Measured one at a time at scale 10 (bench/plan-costs.ts, 10 M fact rows):
 * what makes a query cost is the buckets it aggregates (entities x days with a Day segment) and
 * the fine facts it scans, far more than the rows it returns:
 * - Day segments: campaigns 90 d 33-53 ms, 400 d 250 ms; ad groups by Day x Device 7 d 13 ms,
 *   183 d 206-216 ms; keywords by Day 30 d 53-78 ms. So a Day segment over more than 92 days (more
 *   than 14 on the fine levels) is a pull.
 * - Without a Day segment: keywords 90 d 21 ms, 183 d 31 ms, 400 d 57-137 ms; ads 400 d 33-40 ms,
 *   ad groups 400 d 22-24 ms, campaigns 400 d 26-45 ms. So only keywords over more than 183 days.
 * - Rows: keywords 30 d, 1,000 rows 19-32 ms, 10,000 rows 41-53 ms: a page over 1,000 rows.
 *
 * An export's streaming query does not run in the report lane (Database.readExport): it runs as
 * fast as its client reads, up to minutes, and in the lane two slow downloads would stop every
 * tenant's reports. Its other queries (the estimated-rates gate) weigh as a page of the same plan.
 */
export function reportSlots(plan: ReportPlan): ReportSlots {
  if (plan.limit > PULL_PAGE_ROWS) return 'all';
  // compare reads both ranges: the days of both weigh.
  const days =
    daysBetween(plan.from, plan.to) + 1 + (plan.compare ? daysBetween(plan.compare.from, plan.compare.to) + 1 : 0);
  const fine = FINE_LEVELS.has(plan.level);
  if (plan.segments.includes('day')) return days > (fine ? 14 : 92) ? 'all' : 'one';
  return plan.level === 'keywords' && days > 183 ? 'all' : 'one';
}
