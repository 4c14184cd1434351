/** Calendar dates as `YYYY-MM-DD` strings, computed in UTC so the host's time zone never matters. */

const DAY_MS = 86_400_000;

export function isoDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return isoDate(new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** [from, to] cut into consecutive inclusive ranges of at most `days` days. */
export function dateChunks(from: string, to: string, days: number): Array<{ from: string; to: string }> {
  const chunks: Array<{ from: string; to: string }> = [];
  for (let start = from; start <= to; start = addDays(start, days)) {
    const end = addDays(start, days - 1);
    chunks.push({ from: start, to: end < to ? end : to });
  }
  return chunks;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD` naming a real day (2026-02-30 and 2026-13-01 are not). */
export function isCalendarDay(value: string): boolean {
  const at = Date.parse(`${value}T00:00:00Z`);
  return DATE.test(value) && !Number.isNaN(at) && isoDate(new Date(at)) === value;
}

/** How a date check reports a bad parameter (the markups list words its 400s its own way). */
export type ParameterFailure = (parameter: 'startDate' | 'endDate', message: string) => never;

/** startDate and endDate, each absent or a calendar day, and not ending before it starts. */
export function checkDates(startDate: string | undefined, endDate: string | undefined, fail: ParameterFailure): void {
  for (const [name, value] of [
    ['startDate', startDate],
    ['endDate', endDate],
  ] as const) {
    if (value !== undefined && !isCalendarDay(value)) fail(name, `"${value}" is not a date YYYY-MM-DD`);
  }
  if (startDate !== undefined && endDate !== undefined && endDate < startDate)
    fail('endDate', `${endDate} is before startDate ${startDate}`);
}
