/**
 * date, timestamp and timestamptz between the session's ISO 8601 text and PostgreSQL's forms: days
 * since 2000-01-01 (date) and microseconds since 2000-01-01 00:00 UTC (timestamps), the binary
 * values, and the ISO DateStyle text of a session whose TimeZone is UTC. Microseconds are bigint:
 * 2^53 of them is only 285 years. The calendar is the proleptic Gregorian one, as in PostgreSQL.
 */

/** PostgreSQL's DATEVAL_NOBEGIN/NOEND and DT_NOBEGIN/NOEND: how -infinity and infinity travel in binary. */
export const DATE_INFINITY = 0x7fffffff;
export const DATE_MINUS_INFINITY = -0x80000000;
export const TIMESTAMP_INFINITY = 0x7fffffffffffffffn;
export const TIMESTAMP_MINUS_INFINITY = -0x8000000000000000n;

const DAYS_1970_TO_2000 = 10957;
const MICROS_PER_DAY = 86_400_000_000n;

const DATE = /^\s*([+-]?\d{4,})-(\d{1,2})-(\d{1,2})( BC)?\s*$/i;
const TIMESTAMP =
  /^\s*([+-]?\d{4,})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{1,2}(?::?\d{2})?)?( BC)?\s*$/i;

/** Days since 2000-01-01 of 'YYYY-MM-DD' (or 'YYYY-MM-DD BC', or ±infinity); undefined when it is no date. */
export function parseDate(text: string): number | undefined {
  const infinite = infinity(text);
  if (infinite !== undefined) return infinite > 0 ? DATE_INFINITY : DATE_MINUS_INFINITY;
  const match = DATE.exec(text);
  if (!match) return undefined;
  return civilDays(match[1]!, match[2]!, match[3]!, match[4] !== undefined);
}

export function formatDate(days: number): string {
  if (days === DATE_INFINITY) return 'infinity';
  if (days === DATE_MINUS_INFINITY) return '-infinity';
  const { year, month, day } = civilFromDays(days);
  return withEra(year, `${pad(month, 2)}-${pad(day, 2)}`);
}

/**
 * Microseconds since 2000-01-01 of an ISO 8601 timestamp. With `withZone` an offset is applied (no
 * offset is UTC, the session's TimeZone); without, an offset is ignored, as `'...+02'::timestamp` does.
 * Fractions beyond microseconds are rounded, as PostgreSQL rounds them.
 */
export function parseTimestamp(text: string, withZone: boolean): bigint | undefined {
  const infinite = infinity(text);
  if (infinite !== undefined) return infinite > 0 ? TIMESTAMP_INFINITY : TIMESTAMP_MINUS_INFINITY;
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone, bc] = match;
  const days = civilDays(year!, month!, day!, bc !== undefined);
  const h = Number(hour);
  const m = Number(minute);
  const s = Number(second);
  if (days === undefined || m > 59 || s > 60 || h > 24 || (h === 24 && (m > 0 || s > 0 || /[1-9]/.test(fraction))))
    return undefined;
  const micros = BigInt(fraction.slice(0, 6).padEnd(6, '0')) + (Number(fraction[6] ?? '0') >= 5 ? 1n : 0n);
  const offsetSeconds = withZone && zone ? zoneOffsetSeconds(zone) : 0;
  if (offsetSeconds === undefined) return undefined;
  const seconds = BigInt(h * 3600 + m * 60 + s - offsetSeconds);
  return BigInt(days) * MICROS_PER_DAY + seconds * 1_000_000n + micros;
}

/** ISO DateStyle: 'YYYY-MM-DD HH:MM:SS[.ffffff]', '+00' for timestamptz (the session is in UTC), ' BC' last. */
export function formatTimestamp(micros: bigint, withZone: boolean): string {
  if (micros === TIMESTAMP_INFINITY) return 'infinity';
  if (micros === TIMESTAMP_MINUS_INFINITY) return '-infinity';
  const { days, time } = splitMicros(micros);
  const { year, month, day } = civilFromDays(days);
  return withEra(year, `${pad(month, 2)}-${pad(day, 2)} ${clock(time)}${withZone ? '+00' : ''}`);
}

/** ISO 8601 the session reads: 'YYYY-MM-DDTHH:MM:SS.ffffff', 'Z' with a zone; years before 1 as ISO's signed years. */
export function isoTimestamp(micros: bigint, withZone: boolean): string {
  if (micros === TIMESTAMP_INFINITY) return 'infinity';
  if (micros === TIMESTAMP_MINUS_INFINITY) return '-infinity';
  const { days, time } = splitMicros(micros);
  const { year, month, day } = civilFromDays(days);
  const fraction = time % 1_000_000n;
  const seconds = Number(time / 1_000_000n);
  return `${isoYear(year)}-${pad(month, 2)}-${pad(day, 2)}T${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}.${String(fraction).padStart(6, '0')}${withZone ? 'Z' : ''}`;
}

/** 'YYYY-MM-DD' of days since 2000-01-01, ISO's signed year before year 1. */
export function isoDate(days: number): string {
  if (days === DATE_INFINITY) return 'infinity';
  if (days === DATE_MINUS_INFINITY) return '-infinity';
  const { year, month, day } = civilFromDays(days);
  return `${isoYear(year)}-${pad(month, 2)}-${pad(day, 2)}`;
}

function infinity(text: string): 1 | -1 | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'infinity' || trimmed === '+infinity') return 1;
  if (trimmed === '-infinity') return -1;
  return undefined;
}

/** `yearText` is PostgreSQL's (with `bc`) or ISO 8601's astronomical year (-0043 is 44 BC). */
function civilDays(yearText: string, monthText: string, dayText: string, bc: boolean): number | undefined {
  const signed = /^[+-]/.test(yearText);
  const year = bc ? 1 - Number(yearText) : Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  // Without BC the year is ISO 8601's, where 0000 is 1 BC; with BC it counts from 1.
  if ((bc && (signed || Number(yearText) === 0)) || month < 1 || month > 12 || day < 1) return undefined;
  const days = daysFromCivil(year, month, day);
  // 2023-02-30 lands on March 2nd: a day past its month's end is no date.
  return civilFromDays(days).day === day ? days : undefined;
}

/** Howard Hinnant's days_from_civil, shifted to 2000-01-01; `year` is astronomical (0 is 1 BC). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468 - DAYS_1970_TO_2000;
}

function civilFromDays(days2000: number): { year: number; month: number; day: number } {
  const z = days2000 + DAYS_1970_TO_2000 + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function splitMicros(micros: bigint): { days: number; time: bigint } {
  let days = micros / MICROS_PER_DAY;
  let time = micros % MICROS_PER_DAY;
  if (time < 0n) {
    time += MICROS_PER_DAY;
    days -= 1n;
  }
  return { days: Number(days), time };
}

function clock(time: bigint): string {
  const seconds = Number(time / 1_000_000n);
  const fraction = time % 1_000_000n;
  const hms = `${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}`;
  return fraction === 0n ? hms : `${hms}.${String(fraction).padStart(6, '0').replace(/0+$/, '')}`;
}

function zoneOffsetSeconds(zone: string): number | undefined {
  if (zone.toUpperCase() === 'Z') return 0;
  const match = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
  if (!match) return undefined;
  const seconds = Number(match[2]) * 3600 + Number(match[3] ?? '0') * 60;
  return match[1] === '-' ? -seconds : seconds;
}

/** PostgreSQL writes year 0 (astronomical) as '0001 BC'. */
function withEra(year: number, rest: string): string {
  return year > 0 ? `${pad(year, 4)}-${rest}` : `${pad(1 - year, 4)}-${rest} BC`;
}

function isoYear(year: number): string {
  return year >= 0 ? pad(year, 4) : `-${pad(-year, 4)}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
