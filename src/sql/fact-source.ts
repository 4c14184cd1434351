import { ENDPOINT_BY_PATH } from '../catalog/endpoints.js';
import { additiveSourceFor } from '../catalog/fact-sources.js';
import type { LevelDefinition } from '../catalog/levels.js';
import { factColumnsOf, type ReportPlan } from '../planner/report-plan.js';

/** How the compiler may read the facts. */
export interface CompileOptions {
  /** Read the smallest rollup that answers the plan (default); false: always the fact table. */
  readonly rollups?: boolean | undefined;
}

/**
 * Aggregate navigation (DESIGN D10): the table the daily sums of `plan` are read from. Every
 * rollup carries the facts' additive measures summed over the columns it drops, so a plan whose
 * every fact column (scope, level key, segments, fact filters, the label join) is in a rollup's
 * grain gets the same sums from it as from the facts, reading 10-45x fewer rows. The smallest
 * such rollup wins; a plan that reads a breakdown column (an hour, an age) reads the breakdown
 * source that has it; the rule is ../catalog/fact-sources.ts's, which the planner asked before.
 */
export function factSource(plan: ReportPlan, level: LevelDefinition, options: CompileOptions = {}): string {
  const platform = ENDPOINT_BY_PATH.get(plan.endpoint)?.platform;
  const source = additiveSourceFor(level.factTable, factColumnsOf(plan), options.rollups !== false, platform);
  if (source === undefined) throw new Error(`no fact source holds the columns of a planned ${plan.level} report`);
  return source.table;
}
