/**
 * What GET /reporting/v0/fields says of each statistics endpoint, as the explorer reads it. The
 * pickers are built from this answer, so they offer exactly what the planner accepts.
 */
export type StatisticType = 'Integer' | 'Decimal' | 'Money' | 'Ratio';
/**
 * How a value reads: `count` (thousands separators), `money` (in the row's currency), `ratio`
 * (3.2x), `percent` (a fraction: 0.0215 is 2.15 %), `duration` (seconds).
 */
export type Unit = 'count' | 'money' | 'ratio' | 'percent' | 'duration';
const UNITS: ReadonlySet<string> = new Set<Unit>(['count', 'money', 'ratio', 'percent', 'duration']);

export interface StatisticField {
  readonly name: string;
  readonly type: StatisticType;
  /** The catalogue's `unit`; from `type` where an older service gives none. */
  readonly unit: Unit;
  /** The catalogue's `label` (`CTR`, `Avg. CPC`); the name where it gives none. */
  readonly label: string;
  readonly additive: boolean;
  readonly default: boolean;
  readonly description: string;
}

export interface NamedChoice {
  readonly name: string;
  readonly description: string;
}

export interface SegmentField extends NamedChoice {
  /** `segments.<key>`: the member of a row's `segments`. */
  readonly key: string;
  /** `sequence` (time buckets, paired by position under compare) or `value` (a breakdown: device, age...). */
  readonly kind?: 'sequence' | 'value';
  /** The catalogue's label; the name where it gives none. */
  readonly label?: string;
}

export interface ReportEndpoint {
  /** The path below /reporting/v0/, e.g. `campaigns` or `campaigns/facebook`. */
  readonly path: string;
  /** The member of the body that holds the rows, e.g. `campaigns`. */
  readonly rows: string;
  readonly adPlatformType: string | undefined;
  readonly statistics: readonly StatisticField[];
  readonly segments: readonly SegmentField[];
  readonly dateRanges: readonly NamedChoice[];
  readonly filterable: readonly string[];
  readonly sortable: readonly string[];
  /** `name` or `text`: the field a row is called by. */
  readonly nameParameter: string;
}

export const REPORTING_PREFIX = '/reporting/v0/';

/** Time segments: a chart draws them as a line over time. */
export const TIME_SEGMENTS: ReadonlySet<string> = new Set([
  'Day',
  'Week',
  'WeekSunday',
  'Hour',
  'Month',
  'Quarter',
  'Year',
]);

/**
 * The statistics endpoints of a /fields answer (those that list statistics and take no path
 * parameter); the others (markups, call details, the campaign-label endpoint) have no place in
 * this explorer.
 */
export function reportEndpointsOf(body: unknown): ReportEndpoint[] {
  const endpoints = (body as { endpoints?: unknown } | null)?.endpoints;
  if (!Array.isArray(endpoints)) throw new Error('GET /reporting/v0/fields answered without endpoints');
  const result: ReportEndpoint[] = [];
  for (const entry of endpoints as Array<Record<string, unknown>>) {
    const path = String(entry.path ?? '');
    if (!path.startsWith(REPORTING_PREFIX) || path.includes('{') || !Array.isArray(entry.statistics)) continue;
    result.push({
      path: path.slice(REPORTING_PREFIX.length),
      rows: String(entry.rows),
      adPlatformType: typeof entry.adPlatformType === 'string' ? entry.adPlatformType : undefined,
      statistics: (entry.statistics as Array<Record<string, unknown>>).map(statisticOf),
      segments: ((entry.segments ?? []) as Array<Record<string, unknown>>).map(segmentOf),
      dateRanges: (entry.dateRanges ?? []) as NamedChoice[],
      filterable: (entry.filterable ?? []) as string[],
      sortable: (entry.sortable ?? []) as string[],
      nameParameter: typeof entry.nameParameter === 'string' ? entry.nameParameter : 'name',
    });
  }
  return result;
}

/** The unit of a statistic whose catalogue entry has none, from its type. */
export function unitOfType(type: string): Unit {
  return type === 'Money' ? 'money' : type === 'Ratio' ? 'ratio' : 'count';
}

function statisticOf(entry: Record<string, unknown>): StatisticField {
  const name = String(entry.name);
  const type = String(entry.type) as StatisticType;
  return {
    name,
    type,
    unit: typeof entry.unit === 'string' && UNITS.has(entry.unit) ? (entry.unit as Unit) : unitOfType(type),
    label: typeof entry.label === 'string' && entry.label !== '' ? entry.label : name,
    additive: entry.additive === true,
    default: entry.default === true,
    description: String(entry.description ?? ''),
  };
}

function segmentOf(entry: Record<string, unknown>): SegmentField {
  const name = String(entry.name);
  return {
    name,
    key: String(entry.key),
    kind: entry.kind === 'value' || (entry.kind === undefined && !TIME_SEGMENTS.has(name)) ? 'value' : 'sequence',
    label: typeof entry.label === 'string' && entry.label !== '' ? entry.label : name,
    description: String(entry.description ?? ''),
  };
}

/** The statistics a report shows: those asked for, else the endpoint's defaults. */
export function shownStatistics(endpoint: ReportEndpoint, asked: readonly string[]): StatisticField[] {
  if (asked.length === 0) return endpoint.statistics.filter((s) => s.default);
  const byName = new Map(endpoint.statistics.map((s) => [s.name, s]));
  return asked.flatMap((name) => byName.get(name) ?? []);
}
