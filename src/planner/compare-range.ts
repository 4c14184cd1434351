import { SEGMENT_BY_KEY, SEGMENTS, type SegmentKey } from '../catalog/segments.js';
import { assertNever } from '../shared/assert-never.js';
import { addDays, daysBetween, isCalendarDay } from '../shared/dates.js';
import { isOverMaxRange } from './date-range.js';
import { invalidParameter } from './parameter-errors.js';

/** The forms of `compare` besides an explicit `YYYY-MM-DD..YYYY-MM-DD`. */
export const COMPARE_PRESETS = ['PREVIOUS_PERIOD', 'PREVIOUS_YEAR'] as const;

/** The compared range of a report, inclusive, resolved from `compare` and the report's own range. */
export interface ComparedRange {
  readonly from: string;
  readonly to: string;
}

/** Time segments (a sequence) pair by position (the i-th bucket with the i-th); the others by value. */
export const TIME_SEGMENTS: ReadonlySet<SegmentKey> = new Set<SegmentKey>(
  SEGMENTS.filter((s) => s.kind === 'sequence').map((s) => s.key),
);

const RANGE = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/;

/** The same calendar day `years` later or earlier; 29 February becomes 28 February in a common year. */
export function shiftYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const year = y + years;
  const last = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return `${String(year).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

const monthIndex = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
/** The Monday of the ISO week holding `date`. */
function mondayOf(date: string): string {
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

/** The Sunday of the Sunday-first week holding `date`. */
function sundayOf(date: string): string {
  return addDays(date, -new Date(`${date}T00:00:00Z`).getUTCDay());
}

/** How many buckets of a time segment [from, to] holds. */
export function bucketCount(key: SegmentKey, from: string, to: string): number {
  switch (key) {
    case 'day':
      return daysBetween(from, to) + 1;
    case 'week':
      return daysBetween(mondayOf(from), mondayOf(to)) / 7 + 1;
    case 'weekSunday':
      return daysBetween(sundayOf(from), sundayOf(to)) / 7 + 1;
    case 'hour':
      return (daysBetween(from, to) + 1) * 24;
    case 'month':
      return monthIndex(to) - monthIndex(from) + 1;
    case 'quarter':
      return Math.floor(monthIndex(to) / 3) - Math.floor(monthIndex(from) / 3) + 1;
    case 'year':
      return Number(to.slice(0, 4)) - Number(from.slice(0, 4)) + 1;
    // Pair by value: no count to match.
    case 'dayOfWeek':
    case 'deviceType':
    case 'networkType':
    case 'hourOfDay':
    case 'age':
    case 'gender':
    case 'publisherPlatform':
    case 'platformPosition':
    case 'country':
    case 'region':
    case 'conversionAction':
      return 0;
    default:
      return assertNever(key, 'segment');
  }
}

/**
 * `compare`: PREVIOUS_PERIOD (as many days, ending the day before the range starts), PREVIOUS_YEAR
 * (both ends one calendar year earlier) or an explicit inclusive range. Time segments pair their
 * buckets by position, so with one the two ranges must hold as many of its buckets: a 400 says
 * both counts and what would pair.
 */
export function comparedRange(
  text: string,
  range: { readonly from: string; readonly to: string },
  segments: readonly SegmentKey[],
): ComparedRange {
  const fail = (message: string): never => invalidParameter('compare', message);
  let compared: ComparedRange;
  if (text === 'PREVIOUS_PERIOD') {
    const days = daysBetween(range.from, range.to) + 1;
    compared = { from: addDays(range.from, -days), to: addDays(range.from, -1) };
  } else if (text === 'PREVIOUS_YEAR') {
    compared = { from: shiftYears(range.from, -1), to: shiftYears(range.to, -1) };
  } else {
    const match = RANGE.exec(text);
    if (!match)
      return fail(
        `"${text.slice(0, 40)}" is not a comparison; use ${COMPARE_PRESETS.join(', ')} or a range YYYY-MM-DD..YYYY-MM-DD`,
      );
    const [, from, to] = match as unknown as [string, string, string];
    for (const day of [from, to]) if (!isCalendarDay(day)) fail(`"${day}" is not a date YYYY-MM-DD`);
    if (to < from) fail(`the compared range ends (${to}) before it starts (${from})`);
    if (isOverMaxRange(from, to)) fail(`the compared range ${from}..${to} is longer than five years`);
    compared = { from, to };
  }
  for (const key of segments) {
    if (!TIME_SEGMENTS.has(key)) continue;
    const here = bucketCount(key, range.from, range.to);
    const there = bucketCount(key, compared.from, compared.to);
    if (here === there) continue;
    const name = SEGMENT_BY_KEY.get(key)!.name;
    fail(
      `with segments=${name} the i-th ${name} pairs with the i-th ${name} of the compared range, so both need as many: ${range.from}..${range.to} holds ${here} and ${compared.from}..${compared.to} holds ${there}. Ask for a compared range with ${here} ${name} bucket${here === 1 ? '' : 's'}${
        key === 'day' ? ` (PREVIOUS_PERIOD always has ${here} days)` : ''
      }, or leave out the ${name} segment`,
    );
  }
  return compared;
}
