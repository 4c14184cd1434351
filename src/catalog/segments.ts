/**
 * Breakdowns (supplement 5; Quarter and NetworkType: issue 23). The catalogue says what a segment
 * is; the dialect says how its SQL engine computes it from a fact row's day, device and network
 * (src/sql/<dialect>/).
 */
export const SEGMENT_KEYS = [
  'day',
  'week',
  'month',
  'year',
  'dayOfWeek',
  'deviceType',
  'quarter',
  'networkType',
] as const;
/** As rows carry it: `segments.day`. */
export type SegmentKey = (typeof SEGMENT_KEYS)[number];

export interface SegmentDefinition {
  /** As the `segments` parameter names it. */
  readonly name: 'Day' | 'Week' | 'Month' | 'Year' | 'DayOfWeek' | 'DeviceType' | 'Quarter' | 'NetworkType';
  readonly key: SegmentKey;
  readonly type: 'string' | 'number';
  /** How bucket values order: as their text (YYYY-MM-DD sorts by date) or by a list (DayOfWeek: MONDAY first). */
  readonly order: 'value' | readonly string[];
  readonly description: string;
}

/** ISO order of the week (Monday first), as DayOfWeek buckets sort. */
export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

export const SEGMENTS: readonly SegmentDefinition[] = [
  { name: 'Day', key: 'day', type: 'string', order: 'value', description: 'YYYY-MM-DD' },
  { name: 'Week', key: 'week', type: 'string', order: 'value', description: 'ISO week: the Monday, YYYY-MM-DD' },
  { name: 'Month', key: 'month', type: 'string', order: 'value', description: 'YYYY-MM' },
  { name: 'Year', key: 'year', type: 'number', order: 'value', description: 'YYYY as a number' },
  { name: 'DayOfWeek', key: 'dayOfWeek', type: 'string', order: WEEKDAYS, description: 'MONDAY .. SUNDAY' },
  {
    name: 'DeviceType',
    key: 'deviceType',
    type: 'string',
    order: 'value',
    description: 'DESKTOP, MOBILE, TABLET, CONNECTED_TV, OTHER, UNKNOWN',
  },
  // Appended, not beside Month: the existing segments keep their place in every list.
  { name: 'Quarter', key: 'quarter', type: 'string', order: 'value', description: 'YYYY-Qn, e.g. 2026-Q4' },
  {
    name: 'NetworkType',
    key: 'networkType',
    type: 'string',
    order: 'value',
    description: 'SEARCH, SEARCH_PARTNERS, DISPLAY, SOCIAL (FACEBOOK)',
  },
];

export const SEGMENT_BY_NAME: ReadonlyMap<string, SegmentDefinition> = new Map(SEGMENTS.map((s) => [s.name, s]));
export const SEGMENT_BY_KEY: ReadonlyMap<string, SegmentDefinition> = new Map(SEGMENTS.map((s) => [s.key, s]));

/** The definition of a key the planner has already checked. */
export function segmentOf(key: SegmentKey): SegmentDefinition {
  return SEGMENT_BY_KEY.get(key)!;
}

/**
 * Fact-level fields a filter may test before aggregation: a filter on them stays a fact filter
 * even when the same segment is requested (it removes fact rows, then buckets are summed).
 */
export const FACT_FILTER_FIELDS: Readonly<Record<string, { column: 'device' | 'network' }>> = {
  deviceType: { column: 'device' },
  networkType: { column: 'network' },
};
