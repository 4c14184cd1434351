import { assertNever } from '../shared/assert-never.js';
import { addDays, isoDate } from '../shared/dates.js';
import { invalidParameter } from './parameter-errors.js';

/**
 * `dateRange` (issue 23 item 1): named ranges resolved in UTC days from `now`. LAST_n_DAYS are
 * the n days ending yesterday (as the default range is), weeks are ISO weeks (Monday..Sunday),
 * THIS_* run from the period's first day to today inclusive, LAST_* are the whole previous period.
 */
export const DATE_PRESETS = [
  'TODAY',
  'YESTERDAY',
  'LAST_7_DAYS',
  'LAST_14_DAYS',
  'LAST_30_DAYS',
  'LAST_90_DAYS',
  'THIS_WEEK',
  'LAST_WEEK',
  'THIS_MONTH',
  'LAST_MONTH',
  'THIS_QUARTER',
  'LAST_QUARTER',
  'THIS_YEAR',
  'LAST_YEAR',
] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

/** What each preset covers, as /reporting/v0/fields and the OpenAPI document say it. */
export const DATE_PRESET_DESCRIPTIONS: Readonly<Record<DatePreset, string>> = {
  TODAY: 'today (UTC)',
  YESTERDAY: 'yesterday',
  LAST_7_DAYS: 'the 7 days ending yesterday',
  LAST_14_DAYS: 'the 14 days ending yesterday',
  LAST_30_DAYS: 'the 30 days ending yesterday (the default range)',
  LAST_90_DAYS: 'the 90 days ending yesterday',
  THIS_WEEK: 'Monday of this ISO week to today',
  LAST_WEEK: 'Monday to Sunday of the previous ISO week',
  THIS_MONTH: 'the first day of this month to today',
  LAST_MONTH: 'the previous calendar month',
  THIS_QUARTER: 'the first day of this quarter to today',
  LAST_QUARTER: 'the previous calendar quarter',
  THIS_YEAR: '1 January to today',
  LAST_YEAR: 'the previous calendar year',
};

const PRESET_SET: ReadonlySet<string> = new Set(DATE_PRESETS);

function isPreset(value: string): value is DatePreset {
  return PRESET_SET.has(value);
}

/** YYYY-MM-DD of the first day of month `month` (0-based, may be negative or past 11) of `year`. */
function firstOfMonth(year: number, month: number): string {
  return isoDate(new Date(Date.UTC(year, month, 1)));
}

/** The inclusive range `preset` names on the UTC day of `now`. */
export function presetRange(preset: DatePreset, now: Date): { from: string; to: string } {
  const today = isoDate(now);
  const yesterday = addDays(today, -1);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const quarterMonth = month - (month % 3);
  // Monday 0 .. Sunday 6.
  const monday = addDays(today, -((now.getUTCDay() + 6) % 7));
  const lastDays = (n: number) => ({ from: addDays(today, -n), to: yesterday });
  switch (preset) {
    case 'TODAY':
      return { from: today, to: today };
    case 'YESTERDAY':
      return { from: yesterday, to: yesterday };
    case 'LAST_7_DAYS':
      return lastDays(7);
    case 'LAST_14_DAYS':
      return lastDays(14);
    case 'LAST_30_DAYS':
      return lastDays(30);
    case 'LAST_90_DAYS':
      return lastDays(90);
    case 'THIS_WEEK':
      return { from: monday, to: today };
    case 'LAST_WEEK':
      return { from: addDays(monday, -7), to: addDays(monday, -1) };
    case 'THIS_MONTH':
      return { from: firstOfMonth(year, month), to: today };
    case 'LAST_MONTH':
      return { from: firstOfMonth(year, month - 1), to: addDays(firstOfMonth(year, month), -1) };
    case 'THIS_QUARTER':
      return { from: firstOfMonth(year, quarterMonth), to: today };
    case 'LAST_QUARTER':
      return { from: firstOfMonth(year, quarterMonth - 3), to: addDays(firstOfMonth(year, quarterMonth), -1) };
    case 'THIS_YEAR':
      return { from: firstOfMonth(year, 0), to: today };
    case 'LAST_YEAR':
      return { from: firstOfMonth(year - 1, 0), to: addDays(firstOfMonth(year, 0), -1) };
    default:
      return assertNever(preset, 'date preset');
  }
}

/**
 * `dateRange` checked and resolved: a preset alone (with startDate or endDate it would be two
 * answers to one question), otherwise undefined and the dates decide.
 */
export function resolveDateRange(
  dateRange: string | undefined,
  startDate: string | undefined,
  endDate: string | undefined,
  now: Date,
): { from: string; to: string } | undefined {
  if (dateRange === undefined) return undefined;
  if (startDate !== undefined || endDate !== undefined)
    invalidParameter(
      'dateRange',
      `cannot be combined with ${startDate !== undefined ? 'startDate' : 'endDate'}: give a preset or dates, not both`,
    );
  if (!isPreset(dateRange))
    invalidParameter('dateRange', `"${dateRange.slice(0, 40)}" is not a preset; valid: ${DATE_PRESETS.join(', ')}`);
  return presetRange(dateRange, now);
}
