/**
 * Calendar arithmetic on day numbers (days since 1970-01-01): the sandbox works in whole days,
 * and integers make ranges, weekdays and "days since" exact.
 */
const MS_PER_DAY = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day number of a YYYY-MM-DD string, or undefined when it is not a real calendar date. */
export function parseDay(iso: string): number | undefined {
  const match = ISO_DATE.exec(iso);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  // Date.UTC rolls 2026-02-30 over into March; a real date survives the round trip.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return undefined;
  return Math.floor(ms / MS_PER_DAY);
}

export function dayOf(iso: string): number {
  const day = parseDay(iso);
  if (day === undefined) throw new RangeError(`not a date: ${iso}`);
  return day;
}

export function isoDay(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday). */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** 1-based day of the year. */
export function dayOfYear(day: number): number {
  const date = new Date(day * MS_PER_DAY);
  return day - Math.floor(Date.UTC(date.getUTCFullYear(), 0, 1) / MS_PER_DAY) + 1;
}

export function yearOf(day: number): number {
  return new Date(day * MS_PER_DAY).getUTCFullYear();
}

/** Fractional days elapsed between the end of `day` (UTC midnight after it) and `now`. */
export function daysSinceEndOf(day: number, now: Date): number {
  return (now.getTime() - (day + 1) * MS_PER_DAY) / MS_PER_DAY;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar day it is at `now` in an IANA time zone: the account's "today". */
export function localDay(now: Date, timeZone: string): number {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    // en-CA formats as YYYY-MM-DD.
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return dayOf(formatter.format(now));
}
