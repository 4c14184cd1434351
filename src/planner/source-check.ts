import type { ReportEndpoint } from '../catalog/endpoints.js';
import {
  additiveSourceFor,
  FACT_SOURCES,
  type FactColumn,
  type FactSourceDefinition,
} from '../catalog/fact-sources.js';
import { SEGMENTS, segmentOf, type SegmentDefinition } from '../catalog/segments.js';
import { sourceOf, statisticOf, STATISTICS, measuresOf, type BaseMeasure } from '../catalog/statistics.js';
import { addDays, isoDate } from '../shared/dates.js';
import { invalidParameter as invalid } from './parameter-errors.js';
import { factColumnsOf, operandsOf, usedMeasures, type ReportPlan } from './report-plan.js';

/**
 * The planner's last word (issue 40): a plan is answered only if the sources of its endpoint hold
 * every fact column it touches and every measure it reads, within what each source keeps. Else a
 * 400 that says which part the sources lack and what this endpoint offers instead.
 */
export function checkSources(endpoint: ReportEndpoint, plan: ReportPlan, now: Date): void {
  const columns = factColumnsOf(plan);
  const source = additiveSourceFor(endpoint.level.factTable, columns);
  if (source === undefined) refuseColumns(endpoint, plan, columns);
  const measures = usedMeasures(plan);
  for (const measure of measures) {
    const from = sourceOf(measure) === 'facts' ? source : extraSource(measure);
    if (from.kind === 'facts' || from.kind === 'rollup' || from.kind === 'breakdown') {
      if (!from.measures.includes(measure)) refuseMeasure(endpoint, plan, measure, from);
    } else if (![...columns].every((c) => from.grain.includes(c))) {
      refuseMeasure(endpoint, plan, measure, from);
    }
  }
  if (source.retentionDays !== undefined) checkRetention(plan, source, source.retentionDays, now);
}

/** The source of a measure that is no fact sum (reach, impression share). */
function extraSource(measure: BaseMeasure): FactSourceDefinition {
  const kind = sourceOf(measure);
  return FACT_SOURCES.find((s) => s.kind === kind)!;
}

function segmentNames(plan: ReportPlan): string {
  return plan.segments.map((key) => segmentOf(key).name).join(',');
}

function refuseColumns(endpoint: ReportEndpoint, plan: ReportPlan, columns: ReadonlySet<FactColumn>): never {
  const offered = endpoint.segments;
  const lacking = SEGMENTS.filter((s) => s.reads.some((c) => columns.has(c)) && !offered.includes(s));
  const asked = plan.segments.map(segmentOf);
  const offeredText = `/reporting/v0/${endpoint.path} offers the segments ${offered.map((s) => s.name).join(', ')}`;
  const filtered = plan.factFilter
    ? operandsOf(plan.factFilter).flatMap((op) => (op.kind === 'fact' ? [op.column] : []))
    : [];
  // One segment (or a filter on one) the level's sources never have: say so.
  const unavailable = lacking[0];
  if (unavailable !== undefined) {
    const inFilter = !asked.includes(unavailable);
    invalid(
      inFilter ? 'filter' : 'segments',
      `${inFilter ? `segments.${unavailable.key} in filter` : `segment ${unavailable.name}`} is not available on /reporting/v0/${endpoint.path} (${availabilityOf(unavailable)}); ${offeredText}`,
      'segment_not_available',
    );
  }
  // Each is offered, but no one source has them together (two breakdowns, a breakdown with a device filter).
  const parts = [
    ...(plan.segments.length > 0 ? [`segments=${segmentNames(plan)}`] : []),
    ...filtered.map(
      (c) => `a filter on segments.${SEGMENTS.find((s) => s.valueFrom === 'column' && s.reads[0] === c)?.key ?? c}`,
    ),
  ];
  invalid(
    plan.segments.length > 0 ? 'segments' : 'filter',
    `${parts.join(' with ')} cannot be answered together: no fact source has all of them (${sourcesText(columns)}); ${offeredText}, one breakdown of ${breakdownNames()} at a time, each with the time segments`,
    'segments_not_combinable',
  );
}

function refuseMeasure(
  endpoint: ReportEndpoint,
  plan: ReportPlan,
  measure: BaseMeasure,
  from: FactSourceDefinition,
): never {
  const statistic = plan.statistics.map(statisticOf).find((s) => measuresOf(s).has(measure));
  const name = statistic
    ? `statistics.${statistic.name}`
    : `a statistic read by a formula, filter or sort (${measure})`;
  const offered = STATISTICS.filter(
    (s) => endpoint.statistics.includes(s) && [...measuresOf(s)].every((m) => from.measures.includes(m)),
  ).map((s) => s.name);
  invalid(
    'statistics',
    `${name} is not available with segments=${segmentNames(plan) || '(a filter on a breakdown)'} on /reporting/v0/${endpoint.path}: ${from.description} ${
      from.kind === 'breakdown'
        ? `carries ${offered.join(', ') || 'none of them'}`
        : `has no ${missingColumns(plan, from).join(', ')}`
    }`,
    'statistic_not_available',
  );
}

function missingColumns(plan: ReportPlan, source: FactSourceDefinition): string[] {
  return [...factColumnsOf(plan)].filter((c) => !source.grain.includes(c));
}

function checkRetention(plan: ReportPlan, source: FactSourceDefinition, days: number, now: Date): void {
  const first = addDays(isoDate(now), -days);
  const from = plan.compare && plan.compare.from < plan.from ? plan.compare.from : plan.from;
  if (from >= first) return;
  invalid(
    plan.compare && plan.compare.from < plan.from ? 'compare' : 'startDate',
    `segments=${segmentNames(plan)} reads ${source.description}, kept for ${days} days: the range must start on ${first} or later (it starts on ${from})`,
    'outside_retention',
  );
}

function availabilityOf(segment: SegmentDefinition): string {
  const sources = FACT_SOURCES.filter(
    (s) => (s.kind === 'facts' || s.kind === 'breakdown') && segment.reads.every((c) => s.grain.includes(c)),
  );
  return `it is reported ${sources.map((s) => `in ${s.description}${s.platforms ? ` (${s.platforms.join(', ')})` : ''}`).join(' and ')}`;
}

function sourcesText(columns: ReadonlySet<FactColumn>): string {
  return `it touches ${[...columns].filter((c) => c !== 'organization_id').join(', ')}`;
}

function breakdownNames(): string {
  return FACT_SOURCES.filter((s) => s.kind === 'breakdown')
    .map((s) => s.name)
    .join(', ');
}
