/**
 * What GET /reporting/v0/fields says of each statistics endpoint, as the explorer reads it. The
 * pickers are built from this answer, so they offer exactly what the planner accepts.
 */
export type StatisticType = 'Integer' | 'Decimal' | 'Money' | 'Ratio';

export interface StatisticField {
  readonly name: string;
  readonly type: StatisticType;
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
      statistics: entry.statistics as StatisticField[],
      segments: (entry.segments ?? []) as SegmentField[],
      dateRanges: (entry.dateRanges ?? []) as NamedChoice[],
      filterable: (entry.filterable ?? []) as string[],
      sortable: (entry.sortable ?? []) as string[],
      nameParameter: typeof entry.nameParameter === 'string' ? entry.nameParameter : 'name',
    });
  }
  return result;
}

/** The statistics a report shows: those asked for, else the endpoint's defaults. */
export function shownStatistics(endpoint: ReportEndpoint, asked: readonly string[]): StatisticField[] {
  if (asked.length === 0) return endpoint.statistics.filter((s) => s.default);
  const byName = new Map(endpoint.statistics.map((s) => [s.name, s]));
  return asked.flatMap((name) => byName.get(name) ?? []);
}
