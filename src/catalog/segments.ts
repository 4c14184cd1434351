/**
 * Breakdowns (supplement 5). `sql` is over the daily rows (`day` DATE, `device` ENUM) of the
 * compiler's bucket CTE; values are strings except the year.
 */
export interface SegmentDefinition {
  /** As the `segments` parameter names it. */
  readonly name: 'Day' | 'Week' | 'Month' | 'Year' | 'DayOfWeek' | 'DeviceType';
  /** As rows carry it: `segments.day`. */
  readonly key: 'day' | 'week' | 'month' | 'year' | 'dayOfWeek' | 'deviceType';
  readonly type: 'string' | 'number';
  sql(day: string, device: string): string;
  /** How the bucket values order, when not as their text does (DayOfWeek: MONDAY first, not FRIDAY). */
  order?(value: string): string;
  readonly description: string;
}

const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

export const SEGMENTS: readonly SegmentDefinition[] = [
  { name: 'Day', key: 'day', type: 'string', sql: (day) => `strftime(${day}, '%Y-%m-%d')`, description: 'YYYY-MM-DD' },
  { name: 'Week', key: 'week', type: 'string', sql: (day) => `strftime(date_trunc('week', ${day}), '%Y-%m-%d')`, description: 'ISO week: the Monday, YYYY-MM-DD' },
  { name: 'Month', key: 'month', type: 'string', sql: (day) => `strftime(${day}, '%Y-%m')`, description: 'YYYY-MM' },
  { name: 'Year', key: 'year', type: 'number', sql: (day) => `year(${day})`, description: 'YYYY as a number' },
  {
    name: 'DayOfWeek',
    key: 'dayOfWeek',
    type: 'string',
    sql: (day) => `upper(dayname(${day}))`,
    order: (value) => `list_position([${WEEKDAYS.map((d) => `'${d}'`).join(', ')}], ${value})`,
    description: 'MONDAY .. SUNDAY',
  },
  { name: 'DeviceType', key: 'deviceType', type: 'string', sql: (_day, device) => `${device}::VARCHAR`, description: 'DESKTOP, MOBILE, TABLET, CONNECTED_TV, OTHER, UNKNOWN' },
];

export const SEGMENT_BY_NAME: ReadonlyMap<string, SegmentDefinition> = new Map(SEGMENTS.map((s) => [s.name, s]));
export const SEGMENT_BY_KEY: ReadonlyMap<string, SegmentDefinition> = new Map(SEGMENTS.map((s) => [s.key, s]));

/** Fact-level fields a filter may test before aggregation (`segments.networkType` is not a breakdown). */
export const FACT_FILTER_FIELDS: Readonly<Record<string, { column: string }>> = {
  deviceType: { column: 'device' },
  networkType: { column: 'network' },
};
