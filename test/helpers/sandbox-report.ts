import { expect } from 'vitest';
import type { DailyStatistic, PlatformAccount, PlatformConnector } from '../../src/platforms/connector.js';

/** Masters whose catalogs the sandbox tests use. */
export const MASTERS = { GOOGLE_ADS: '123-456-7890', MICROSOFT_ADVERTISING: '7654321' } as const;

/** The accounts an organization sees on a platform: a master's on search platforms, the direct ones on FACEBOOK. */
export async function accountsOf(connector: PlatformConnector): Promise<PlatformAccount[]> {
  return connector.platform === 'FACEBOOK'
    ? connector.listDirectAccounts()
    : connector.listAccountsUnderMaster(MASTERS[connector.platform]);
}

/** Length of the union of half-open runs [from, to), by sorting and merging (the reporting's way of deduplicating reach). */
export function unionLength(runs: ReadonlyArray<{ readonly from: number; readonly to: number }>): number {
  const sorted = [...runs].sort((a, b) => a.from - b.from);
  let total = 0;
  let end = -Infinity;
  for (const run of sorted) {
    if (run.to <= end) continue;
    total += run.to - Math.max(run.from, end);
    end = run.to;
  }
  return total;
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

export function sumBy<T>(
  items: readonly T[],
  key: (item: T) => string,
  value: (item: T) => number,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const item of items) sums.set(key(item), (sums.get(key(item)) ?? 0) + value(item));
  return sums;
}

/** Ad rows only: the keyword rows are a second split of the same traffic. */
export function adRows(rows: readonly DailyStatistic[]): DailyStatistic[] {
  return rows.filter((row) => row.keywordId === null);
}

/** Map entries sorted by key, for comparing two maps in one expectation. */
export function sortedEntries<V>(map: ReadonlyMap<string, V>): Array<[string, V]> {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
const hourFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day of an instant in an IANA time zone, YYYY-MM-DD. */
export function localDate(iso: string, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format)
    dayFormats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    );
  return format.format(new Date(iso));
}

/** The hour (0-23) of an instant on the wall clocks of an IANA time zone. */
export function localHour(iso: string, timeZone: string): number {
  let format = hourFormats.get(timeZone);
  if (!format)
    hourFormats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' })),
    );
  return Number(format.format(new Date(iso)));
}

/**
 * Deep equality for large arrays of plain rows: JSON text first (fast, and key order is fixed
 * by the generator), the structural diff only when they differ.
 */
export function expectSame(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) === JSON.stringify(expected)) return;
  expect(actual).toEqual(expected);
}
