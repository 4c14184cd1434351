import type { FactColumn } from './fact-sources.js';

/**
 * Breakdowns (supplement 5; Quarter and NetworkType: issue 23; the platforms' breakdowns: issue
 * 40), as declared data: each segment says which fact columns it reads and whether its buckets
 * form a time sequence. Which fact sources have those columns (and so which endpoints, other
 * segments and statistics a segment combines with) is ./fact-sources.ts's; how an engine spells a
 * computed value is the dialect's (src/sql/<dialect>/), a column segment is the column's value.
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
  'weekSunday',
  'hour',
  'hourOfDay',
  'age',
  'gender',
  'publisherPlatform',
  'platformPosition',
  'country',
  'region',
  'conversionAction',
] as const;
/** As rows carry it: `segments.day`. */
export type SegmentKey = (typeof SEGMENT_KEYS)[number];

/** The segments whose value the dialect computes from the day (and hour); every other one is its column's value. */
export type ComputedSegmentKey = 'day' | 'week' | 'weekSunday' | 'month' | 'quarter' | 'year' | 'dayOfWeek' | 'hour';

interface SegmentBase {
  /** As the `segments` parameter names it. */
  readonly name: string;
  /** A short column label for people ("Device", "Hour of day"); `GET /reporting/v0/fields` gives it. */
  readonly label: string;
  readonly type: 'string' | 'number';
  /**
   * `sequence`: the buckets follow each other in time (Day ... Year, Hour), so `compare` pairs
   * them by position; `value`: buckets are values (DayOfWeek, DeviceType, Age, ...) and pair by value.
   */
  readonly kind: 'sequence' | 'value';
  /** How bucket values order: as their value (YYYY-MM-DD sorts by date) or by a list (DayOfWeek: MONDAY first). */
  readonly order: 'value' | readonly string[];
  readonly description: string;
}

export type SegmentDefinition = SegmentBase &
  (
    | {
        readonly key: ComputedSegmentKey;
        readonly valueFrom: 'computed';
        /** The fact columns it is computed from. */
        readonly reads: readonly FactColumn[];
      }
    | {
        readonly key: Exclude<SegmentKey, ComputedSegmentKey>;
        /** The column's value is the bucket; a filter may test it on fact rows (`segments.<key>`). */
        readonly valueFrom: 'column';
        readonly reads: readonly [FactColumn];
      }
  );

/** ISO order of the week (Monday first), as DayOfWeek buckets sort. */
export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

const ofDay = { valueFrom: 'computed', reads: ['day'] } as const;

export const SEGMENTS: readonly SegmentDefinition[] = [
  {
    name: 'Day',
    label: 'Day',
    key: 'day',
    type: 'string',
    kind: 'sequence',
    order: 'value',
    description: 'YYYY-MM-DD',
    ...ofDay,
  },
  {
    name: 'Week',
    label: 'Week',
    key: 'week',
    type: 'string',
    kind: 'sequence',
    order: 'value',
    description: 'ISO week: the Monday, YYYY-MM-DD',
    ...ofDay,
  },
  {
    name: 'Month',
    label: 'Month',
    key: 'month',
    type: 'string',
    kind: 'sequence',
    order: 'value',
    description: 'YYYY-MM',
    ...ofDay,
  },
  {
    name: 'Year',
    label: 'Year',
    key: 'year',
    type: 'number',
    kind: 'sequence',
    order: 'value',
    description: 'YYYY as a number',
    ...ofDay,
  },
  {
    name: 'DayOfWeek',
    label: 'Day of week',
    key: 'dayOfWeek',
    type: 'string',
    kind: 'value',
    order: WEEKDAYS,
    description: 'MONDAY .. SUNDAY',
    ...ofDay,
  },
  {
    name: 'DeviceType',
    label: 'Device',
    key: 'deviceType',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: 'DESKTOP, MOBILE, TABLET, CONNECTED_TV, OTHER, UNKNOWN',
    valueFrom: 'column',
    reads: ['device'],
  },
  // Appended, not beside Month: the existing segments keep their place in every list.
  {
    name: 'Quarter',
    label: 'Quarter',
    key: 'quarter',
    type: 'string',
    kind: 'sequence',
    order: 'value',
    description: 'YYYY-Qn, e.g. 2026-Q4',
    ...ofDay,
  },
  {
    name: 'NetworkType',
    label: 'Network',
    key: 'networkType',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: 'SEARCH, SEARCH_PARTNERS, DISPLAY, SOCIAL (FACEBOOK)',
    valueFrom: 'column',
    reads: ['network'],
  },
  {
    name: 'WeekSunday',
    label: 'Week (Sun.)',
    key: 'weekSunday',
    type: 'string',
    kind: 'sequence',
    order: 'value',
    description: 'week starting on Sunday: the Sunday, YYYY-MM-DD',
    ...ofDay,
  },
  {
    name: 'Hour',
    label: 'Hour',
    key: 'hour',
    type: 'string',
    kind: 'sequence',
    order: 'value',
    description: "an hour of the account's day, in the time zone the platform account reports in: YYYY-MM-DDTHH:00",
    valueFrom: 'computed',
    reads: ['day', 'hour'],
  },
  {
    name: 'HourOfDay',
    label: 'Hour of day',
    key: 'hourOfDay',
    type: 'number',
    kind: 'value',
    order: 'value',
    description: "0 .. 23, the hour in the platform account's time zone",
    valueFrom: 'column',
    reads: ['hour'],
  },
  {
    name: 'Age',
    label: 'Age',
    key: 'age',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: 'FACEBOOK: 18-24, 25-34, 35-44, 45-54, 55-64, 65+, Unknown',
    valueFrom: 'column',
    reads: ['age'],
  },
  {
    name: 'Gender',
    label: 'Gender',
    key: 'gender',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: 'FACEBOOK: female, male, unknown',
    valueFrom: 'column',
    reads: ['gender'],
  },
  {
    name: 'PublisherPlatform',
    label: 'Publisher platform',
    key: 'publisherPlatform',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: 'FACEBOOK: facebook, instagram, messenger, audience_network',
    valueFrom: 'column',
    reads: ['publisher_platform'],
  },
  {
    name: 'PlatformPosition',
    label: 'Placement',
    key: 'platformPosition',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: 'FACEBOOK: feed, story, reels, marketplace, instream_video, ... (per publisher platform)',
    valueFrom: 'column',
    reads: ['platform_position'],
  },
  {
    name: 'Country',
    label: 'Country',
    key: 'country',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: "ISO 3166-1 alpha-2 of the viewer's location",
    valueFrom: 'column',
    reads: ['country'],
  },
  {
    name: 'Region',
    label: 'Region',
    key: 'region',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: "ISO 3166-2 subdivision of the viewer's location, e.g. DE-BE",
    valueFrom: 'column',
    reads: ['region'],
  },
  {
    name: 'ConversionAction',
    label: 'Conversion action',
    key: 'conversionAction',
    type: 'string',
    kind: 'value',
    order: 'value',
    description: "the platform account's conversion action a conversion counts for (conversion statistics only)",
    valueFrom: 'column',
    reads: ['conversion_action'],
  },
];

export const SEGMENT_BY_NAME: ReadonlyMap<string, SegmentDefinition> = new Map(SEGMENTS.map((s) => [s.name, s]));
export const SEGMENT_BY_KEY: ReadonlyMap<string, SegmentDefinition> = new Map(SEGMENTS.map((s) => [s.key, s]));

/** The definition of a key the planner has already checked. */
export function segmentOf(key: SegmentKey): SegmentDefinition {
  return SEGMENT_BY_KEY.get(key)!;
}

/**
 * Fact-level fields a filter may test before aggregation (`segments.deviceType`, `segments.age`,
 * ...): every column segment. A filter on them stays a fact filter even when the same segment is
 * requested (it removes fact rows, then buckets are summed).
 */
export const FACT_FILTER_FIELDS: ReadonlyMap<string, SegmentDefinition & { valueFrom: 'column' }> = new Map(
  SEGMENTS.flatMap((s) => (s.valueFrom === 'column' ? [[s.key, s] as const] : [])),
);
