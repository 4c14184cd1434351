import type { ReportEndpoint } from '../catalog/endpoints.js';
import {
  additiveSourceFor,
  FACT_SOURCES,
  type FactColumn,
  type FactSourceDefinition,
} from '../catalog/fact-sources.js';
import { FACT_FILTER_FIELDS, segmentOf, type SegmentDefinition } from '../catalog/segments.js';
import {
  measuresOf,
  sourceOf,
  statisticOf,
  STATISTICS,
  type BaseMeasure,
  type StatisticDefinition,
} from '../catalog/statistics.js';
import { addDays, isoDate } from '../shared/dates.js';
import { invalidParameter as invalid } from './parameter-errors.js';
import {
  factColumnsOf,
  operandsOf,
  usedMeasures,
  type ConditionNode,
  type ReportPlan,
  type ValueNode,
} from './report-plan.js';

/**
 * The planner's last word (issue 40): a plan is answered only if the sources of its endpoint hold
 * every fact column it touches and every measure it reads, within what each source keeps. Else a
 * 400 that names the parameter, says which part the sources lack and what the endpoint offers.
 */
export function checkSources(endpoint: ReportEndpoint, plan: ReportPlan, now: Date): void {
  const columns = factColumnsOf(plan);
  const source = additiveSourceFor(endpoint.level.factTable, columns, true, endpoint.platform);
  if (source === undefined) refuseColumns(endpoint, plan, columns);
  for (const measure of usedMeasures(plan)) {
    const from = sourceOf(measure) === 'facts' ? source : extraSource(measure);
    if (!carries(from, measure, columns)) refuseMeasure(endpoint, plan, measure, from);
  }
  if (source.retentionDays !== undefined) checkRetention(plan, source, source.retentionDays, now);
}

/**
 * A request without `statistics` gets the endpoint's defaults that its sources carry:
 * `segments=Age` on campaigns/facebook drops reach and frequency, `segments=ConversionAction`
 * keeps the conversion statistics. Undefined: nothing to narrow (or nothing would be left).
 */
export function defaultsFor(
  endpoint: ReportEndpoint,
  plan: Pick<ReportPlan, 'level' | 'segments' | 'factFilter' | 'campaignLabel' | 'attributionParts'>,
): string[] | undefined {
  const columns = factColumnsOf(plan);
  const source = additiveSourceFor(endpoint.level.factTable, columns, true, endpoint.platform);
  if (source === undefined) return undefined;
  const kept = endpoint.defaultStatistics.filter((s) =>
    [...measuresOf(s)].every((m) => carries(sourceOf(m) === 'facts' ? source : extraSource(m), m, columns)),
  );
  return kept.length === endpoint.defaultStatistics.length || kept.length === 0 ? undefined : kept.map((s) => s.name);
}

/** Whether `source` answers `measure` for a plan touching `columns`. */
function carries(source: FactSourceDefinition, measure: BaseMeasure, columns: ReadonlySet<FactColumn>): boolean {
  if (source.kind === 'facts' || source.kind === 'rollup' || source.kind === 'breakdown')
    return source.measures.includes(measure);
  // Reach and impression share count no conversions: the attribution setting is no column of theirs.
  return [...columns].every((c) => source.grain.includes(c) || c === 'attribution_part');
}

/** The source of a measure that is no fact sum (reach, impression share). */
function extraSource(measure: BaseMeasure): FactSourceDefinition {
  const kind = sourceOf(measure);
  return FACT_SOURCES.find((s) => s.kind === kind)!;
}

function segmentNames(plan: ReportPlan): string {
  return plan.segments.map((key) => segmentOf(key).name).join(',');
}

/** The column segments the fact filter tests. */
function filteredSegments(plan: ReportPlan): SegmentDefinition[] {
  const columns = plan.factFilter
    ? operandsOf(plan.factFilter).flatMap((op) => (op.kind === 'fact' ? [op.column] : []))
    : [];
  return [...FACT_FILTER_FIELDS.values()].filter((s) => columns.includes(s.reads[0]));
}

function refuseColumns(endpoint: ReportEndpoint, plan: ReportPlan, columns: ReadonlySet<FactColumn>): never {
  const offered = endpoint.segments;
  const offeredText = `/reporting/v0/${endpoint.path} offers the segments ${offered.map((s) => s.name).join(', ')}`;
  const asked = plan.segments.map(segmentOf);
  const filtered = filteredSegments(plan);
  // A segment (or a filter on one) the endpoint's sources never have: name it and the parameter that asked.
  const unasked = asked.find((s) => !offered.includes(s));
  const unfiltered = filtered.find((s) => !offered.includes(s));
  if (unasked !== undefined || unfiltered !== undefined) {
    const what = unasked ? `segment ${unasked.name}` : `segments.${unfiltered!.key} in filter`;
    invalid(
      unasked ? 'segments' : 'filter',
      `${what} is not available on /reporting/v0/${endpoint.path} (${availabilityOf((unasked ?? unfiltered)!)}); ${offeredText}`,
      'segment_not_available',
    );
  }
  // Each is offered, but no one source has them together (two breakdowns, a breakdown with a device filter).
  const parts = [
    ...(asked.length > 0 ? [`segments=${segmentNames(plan)}`] : []),
    ...filtered.map((s) => `a filter on segments.${s.key}`),
    ...(plan.attributionParts ? ['attributionWindows'] : []),
  ];
  invalid(
    asked.length > 0 ? 'segments' : filtered.length > 0 ? 'filter' : 'attributionWindows',
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
  const reads = (statistic: StatisticDefinition) => measuresOf(statistic).has(measure);
  const asked = plan.statistics.map(statisticOf).find(reads);
  const { parameter, name } = asked
    ? { parameter: 'statistics', name: `statistics.${asked.name}` }
    : readerOf(plan, measure);
  const offered = STATISTICS.filter(
    (s) => endpoint.statistics.includes(s) && [...measuresOf(s)].every((m) => carries(from, m, factColumnsOf(plan))),
  ).map((s) => s.name);
  const context = [
    ...(plan.segments.length > 0 ? [`segments=${segmentNames(plan)}`] : []),
    ...filteredSegments(plan).map((s) => `a filter on segments.${s.key}`),
    ...(plan.attributionParts ? ['attributionWindows'] : []),
  ].join(' and ');
  invalid(
    parameter,
    `${name} is not available with ${context} on /reporting/v0/${endpoint.path}: ${from.description} ${
      from.kind === 'breakdown'
        ? `carries ${offered.join(', ') || 'none of them'}`
        : `has no ${missingColumns(plan, from).join(', ')}`
    }`,
    'statistic_not_available',
  );
}

/** The parameter whose expression reads a measure the plan's statistics do not: formulas, sort or filter. */
function readerOf(plan: ReportPlan, measure: BaseMeasure): { parameter: string; name: string } {
  const statisticIn = (nodes: ReadonlyArray<ValueNode | ConditionNode>) =>
    nodes
      .flatMap((node) => operandsOf(node))
      .flatMap((op) => (op.kind === 'statistic' ? [statisticOf(op.name)] : []))
      .find((s) => measuresOf(s).has(measure));
  const candidates: Array<[string, ReadonlyArray<ValueNode | ConditionNode>]> = [
    ['formulas', plan.formulas.map((f) => f.value)],
    ['filter', plan.bucketFilter ? [plan.bucketFilter] : []],
    ['sort', plan.sort.map((k) => k.value)],
  ];
  for (const [parameter, nodes] of candidates) {
    const statistic = statisticIn(nodes);
    if (statistic) return { parameter, name: `statistics.${statistic.name} in ${parameter}` };
  }
  return { parameter: 'statistics', name: measure };
}

function missingColumns(plan: ReportPlan, source: FactSourceDefinition): string[] {
  return [...factColumnsOf(plan)].filter((c) => !source.grain.includes(c));
}

function checkRetention(plan: ReportPlan, source: FactSourceDefinition, days: number, now: Date): void {
  const first = addDays(isoDate(now), -days);
  const compared = plan.compare !== undefined && plan.compare.from < plan.from;
  const from = compared ? plan.compare!.from : plan.from;
  if (from >= first) return;
  const what = plan.segments.length > 0 ? `segments=${segmentNames(plan)}` : `/reporting/v0/${plan.endpoint}`;
  invalid(
    compared ? 'compare' : 'startDate',
    `${what} reads ${source.description}, kept for ${days} days: the range must start on ${first} or later (it starts on ${from})`,
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
