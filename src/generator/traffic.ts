/**
 * The shape of generated traffic: device x network cells per platform, the week, the year and
 * conversion lag. Cells, weekdays and the lag come from the sandbox's traffic model
 * (src/platforms/sandbox/traffic-model.ts), so generated and synced data follow one model; the
 * generator turns them into SQL tables.
 */
import type { NetworkType } from '../platforms/connector.js';
import {
  cellsFor,
  RESTATEMENT_DAYS,
  weekdayFactor,
  type Cell as TrafficCell,
} from '../platforms/sandbox/traffic-model.js';

export const PLATFORMS = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const;
export type GeneratedPlatform = (typeof PLATFORMS)[number];
export const GOOGLE = 0;
export const MICROSOFT = 1;
export const FACEBOOK = 2;

/** Network bits of a campaign's `net_mask`. */
export const NET_SEARCH = 1;
export const NET_PARTNERS = 2;
export const NET_DISPLAY = 4;
export const NET_SOCIAL = 8;

/** A sandbox traffic cell placed in the generator's reference table. */
export interface Cell extends TrafficCell {
  readonly platform: number;
  readonly index: number;
  readonly netBit: number;
}

const NET_BITS: Readonly<Record<NetworkType, number>> = {
  SEARCH: NET_SEARCH,
  SEARCH_PARTNERS: NET_PARTNERS,
  DISPLAY: NET_DISPLAY,
  SOCIAL: NET_SOCIAL,
};

/**
 * Every device x network cell of every platform, as the sandbox's traffic model defines them
 * (each platform with all its networks); a campaign uses those its net_mask allows.
 */
export const CELLS: readonly Cell[] = PLATFORMS.flatMap((name, platform) =>
  cellsFor(name, { partners: true, display: true }).map((cell) => ({
    ...cell,
    platform,
    netBit: NET_BITS[cell.network],
  })),
).map((cell, index) => ({ ...cell, index }));

/** Days until a day's conversions are final at the platform. */
export const CONVERSION_LAG_DAYS = RESTATEMENT_DAYS;

export interface GeneratedDay {
  readonly index: number;
  /** YYYY-MM-DD */
  readonly date: string;
  readonly season: number;
  readonly weekSearch: number;
  readonly weekSocial: number;
  /** The share of the day's final conversions the platform reports today. */
  readonly reported: number;
}

const DAY_MS = 86_400_000;

/** The `days` days ending with `lastDay` (YYYY-MM-DD), oldest first. */
export function generatedDays(lastDay: string, days: number): GeneratedDay[] {
  const lastMs = Date.parse(`${lastDay}T00:00:00Z`);
  return Array.from({ length: days }, (_, index) => {
    const at = new Date(lastMs - (days - 1 - index) * DAY_MS);
    const age = days - 1 - index;
    const weekday = at.getUTCDay();
    return {
      index,
      date: at.toISOString().slice(0, 10),
      season: seasonFactor(at),
      weekSearch: weekdayFactor('GOOGLE_ADS', weekday),
      weekSocial: weekdayFactor('FACEBOOK', weekday),
      reported: reportedShare(age),
    };
  });
}

/** 55 % of the final conversions for yesterday (age 0), rising to 100 % at 14 days. */
export function reportedShare(age: number): number {
  if (age >= CONVERSION_LAG_DAYS) return 1;
  return 0.55 + 0.45 * (1 - (1 - age / CONVERSION_LAG_DAYS) ** 2);
}

const bump = (x: number, centre: number, width: number) => Math.exp(-(((x - centre) / width) ** 2));

/**
 * A Q4 ramp into December, the Black Friday spike (the day after the fourth Thursday of
 * November) and Cyber Monday, a dip over the Christmas days, a quiet January, a summer lull.
 */
export function seasonFactor(at: Date): number {
  const year = at.getUTCFullYear();
  const dayOfYear = (at.getTime() - Date.UTC(year, 0, 1)) / DAY_MS;
  const blackFriday = blackFridayOf(year);
  const fromBlackFriday = (at.getTime() - blackFriday.getTime()) / DAY_MS;
  return (
    1 +
    0.25 * bump(dayOfYear, 340, 35) +
    0.55 * bump(fromBlackFriday, 0, 1.6) +
    0.3 * bump(fromBlackFriday, 3, 1.2) -
    0.35 * bump(dayOfYear, 358.5, 1.8) -
    0.16 * bump(dayOfYear, 14, 16) -
    0.08 * bump(dayOfYear, 212, 25)
  );
}

function blackFridayOf(year: number): Date {
  const first = new Date(Date.UTC(year, 10, 1));
  const firstThursday = 1 + ((4 - first.getUTCDay() + 7) % 7);
  return new Date(Date.UTC(year, 10, firstThursday + 21 + 1));
}
