import type { LevelDefinition } from '../catalog/levels.js';
import { ROLLUPS, type FactColumn } from '../catalog/rollups.js';
import type { SegmentKey } from '../catalog/segments.js';
import { operandsOf, type ReportPlan } from '../planner/report-plan.js';
import { assertNever } from '../shared/assert-never.js';

/** How the compiler may read the facts. */
export interface CompileOptions {
  /** Read the smallest rollup that answers the plan (default); false: always the fact table. */
  readonly rollups?: boolean | undefined;
}

/** The fact column a segment is computed from (the dialect computes it from day, device and network only). */
function segmentColumnOf(key: SegmentKey): FactColumn {
  switch (key) {
    case 'day':
    case 'week':
    case 'month':
    case 'year':
    case 'dayOfWeek':
    case 'quarter':
      return 'day';
    case 'deviceType':
      return 'device';
    case 'networkType':
      return 'network';
    default:
      return assertNever(key, 'segment');
  }
}

/** Fewest grain columns first: fewer columns, fewer rows. */
const BY_SIZE = [...ROLLUPS].sort((a, b) => a.grain.length - b.grain.length);

/**
 * Aggregate navigation (DESIGN D10): the table the daily sums of `plan` are read from. Every
 * rollup carries the facts' additive measures summed over the columns it drops, so a plan whose
 * every fact column (scope, level key, segments, fact filters, the label join) is in a rollup's
 * grain gets the same sums from it as from the facts, reading 10-45x fewer rows. The smallest
 * such rollup wins; anything else (keywords, ads, a filter on a column no rollup keeps) reads the
 * level's fact table.
 */
export function factSource(plan: ReportPlan, level: LevelDefinition, options: CompileOptions = {}): string {
  if (options.rollups === false || level.factTable !== 'fact_ad_daily') return level.factTable;
  // The scope and what every fact scan reads: organization, days, the platform account (accounts,
  // markups and currency conversion join on it), the device (DeviceType, and kept in the daily sums).
  const needed = new Set<string>(['organization_id', 'day', 'adplatform_account_id', 'device']);
  if (level.factKey !== null) needed.add(level.factKey);
  if (plan.campaignLabel !== undefined) needed.add('campaign_id');
  for (const key of plan.segments) needed.add(segmentColumnOf(key));
  if (plan.factFilter !== undefined) {
    for (const operand of operandsOf(plan.factFilter)) {
      // Fact filters hold fact columns only (the planner splits the rest off); anything else: the facts.
      if (operand.kind !== 'fact') return level.factTable;
      needed.add(operand.column);
    }
  }
  const grains = (columns: readonly string[]) => [...needed].every((c) => columns.includes(c));
  return BY_SIZE.find((rollup) => grains(rollup.grain))?.table ?? level.factTable;
}
