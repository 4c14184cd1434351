import { addDays, checkDates, isoDate, type ParameterFailure } from '../shared/dates.js';
import { resolveDateRange } from './date-presets.js';
import { invalidParameter } from './parameter-errors.js';

/** Longest range a request may ask for: end before the same day five years after the start. */
const MAX_YEARS = 5;

/**
 * True when `to` is on or after the same day five years after `from` (29 February: 1 March), for
 * report and compared ranges alike. Compared in ms: the bound of a range in year 9995 lies in year
 * 10000, which as text sorts before it.
 */
export function isOverMaxRange(from: string, to: string): boolean {
  const [y, m, d] = from.split('-').map(Number) as [number, number, number];
  return Date.parse(to) >= Date.UTC(y + MAX_YEARS, m - 1, d);
}

/**
 * startDate/endDate of every reporting endpoint (supplement 1), inclusive: default the 30 days
 * ending yesterday (UTC); a start after yesterday alone is a one-day range; at most five years.
 * Or `dateRange`, a preset (date-presets.ts), instead of both.
 */
export function reportDateRange(
  startDate: string | undefined,
  endDate: string | undefined,
  now: Date,
  dateRange?: string,
): { from: string; to: string } {
  const preset = resolveDateRange(dateRange, startDate, endDate, now);
  if (preset) return preset;
  const fail: ParameterFailure = (name, message) => invalidParameter(name, message);
  checkDates(startDate, endDate, fail);
  const yesterday = addDays(isoDate(now), -1);
  const to = endDate ?? (startDate !== undefined && startDate > yesterday ? startDate : yesterday);
  const from = startDate ?? addDays(to, -29);
  if (to < from) fail('endDate', `${to} is before startDate ${from}`);
  if (isOverMaxRange(from, to)) fail('endDate', `the range ${from}..${to} is longer than five years`);
  return { from, to };
}
