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

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();
/** Per zone and day: the zone's UTC offset in ms when it is the same all day, NaN on a day the clocks change. */
const dayOffsets = new Map<string, number>();
const MAX_CACHED_DAYS = 50_000;

/** How far the zone's wall clock is ahead of UTC at the instant `ms` (negative west of Greenwich). */
function zoneOffsetMs(timeZone: string, ms: number): number {
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormatters.set(timeZone, formatter);
  }
  const part: Record<string, number> = {};
  for (const { type, value } of formatter.formatToParts(new Date(ms)))
    if (type !== 'literal') part[type] = Number(value);
  const wall = Date.UTC(
    part.year ?? 1970,
    (part.month ?? 1) - 1,
    part.day ?? 1,
    part.hour ?? 0,
    part.minute ?? 0,
    part.second ?? 0,
  );
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The UTC instant of a wall-clock time (`second` of `day`, 0..86399) in an IANA zone. Most days
 * have one offset (found once per zone and day, cached); on a day the clocks change the offset
 * is found for the instant itself, and a time inside the skipped hour moves an hour on (back
 * if that would leave `day`).
 */
export function utcOfLocalTime(day: number, second: number, timeZone: string): Date {
  const key = `${timeZone}|${day}`;
  let offset = dayOffsets.get(key);
  if (offset === undefined) {
    // Noon's offset holds all day when the first and the last second of the day have it too.
    const start = day * MS_PER_DAY;
    const noon = zoneOffsetMs(timeZone, start + MS_PER_DAY / 2 - zoneOffsetMs(timeZone, start + MS_PER_DAY / 2));
    const constant =
      zoneOffsetMs(timeZone, start - noon) === noon &&
      zoneOffsetMs(timeZone, start + MS_PER_DAY - 1000 - noon) === noon;
    offset = constant ? noon : NaN;
    if (dayOffsets.size >= MAX_CACHED_DAYS) dayOffsets.clear();
    dayOffsets.set(key, offset);
  }
  const wall = day * MS_PER_DAY + second * 1000;
  if (!Number.isNaN(offset)) return new Date(wall - offset);
  const near = zoneOffsetMs(timeZone, wall);
  const exact = zoneOffsetMs(timeZone, wall - near);
  let instant = wall - exact;
  const shown = zoneOffsetMs(timeZone, instant);
  // A wall time in the skipped hour does not exist: read it with the offset from before the change, an hour on.
  if (instant + shown !== wall) instant = wall - Math.min(near, exact, shown);
  // Unless that hour was the day's last one.
  if (localDay(new Date(instant), timeZone) !== day) instant -= 3_600_000;
  return new Date(instant);
}
