/**
 * The shape of generated traffic: device x network cells per platform, the week, the year and
 * conversion lag. The figures follow the sandbox's traffic model (src/platforms/sandbox/
 * traffic-model.ts: search CTR a few percent, display well under one, mobile-heavy Google,
 * desktop-heavy Microsoft), copied rather than imported because they become SQL tables here.
 */

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

export interface Cell {
  readonly platform: number;
  readonly index: number;
  readonly device: string;
  readonly network: string;
  readonly netBit: number;
  /** Share of the ad group's daily search volume this cell gets (DISPLAY and SOCIAL add more). */
  readonly share: number;
  readonly ctr: number;
  readonly cpc: number;
  readonly cvr: number;
  /** Multiplier on the campaign's call rate; 0 where calls cannot happen. */
  readonly calls: number;
}

const NETWORKS = {
  SEARCH: { bit: NET_SEARCH, impressions: 1, ctr: 0.05, cpc: 1, cvr: 1 },
  SEARCH_PARTNERS: { bit: NET_PARTNERS, impressions: 0.3, ctr: 0.022, cpc: 0.7, cvr: 0.7 },
  DISPLAY: { bit: NET_DISPLAY, impressions: 3.5, ctr: 0.006, cpc: 0.35, cvr: 0.3 },
  SOCIAL: { bit: NET_SOCIAL, impressions: 4, ctr: 0.011, cpc: 0.55, cvr: 0.5 },
} as const;

const DEVICES = {
  MOBILE: { ctr: 1, cpc: 0.9, cvr: 0.75, calls: 1 },
  DESKTOP: { ctr: 1.1, cpc: 1.15, cvr: 1.35, calls: 0.12 },
  TABLET: { ctr: 0.95, cpc: 0.95, cvr: 1, calls: 0.3 },
  CONNECTED_TV: { ctr: 0.15, cpc: 0.6, cvr: 0.2, calls: 0 },
  OTHER: { ctr: 0.6, cpc: 0.7, cvr: 0.5, calls: 0 },
  UNKNOWN: { ctr: 1, cpc: 1, cvr: 1, calls: 0 },
} as const;

type DeviceName = keyof typeof DEVICES;
type NetworkName = keyof typeof NETWORKS;
type DeviceMix = ReadonlyArray<readonly [DeviceName, number]>;

const GOOGLE_SEARCH: DeviceMix = [['MOBILE', 0.6], ['DESKTOP', 0.31], ['TABLET', 0.07], ['OTHER', 0.02]];
const GOOGLE_DISPLAY: DeviceMix = [['MOBILE', 0.58], ['DESKTOP', 0.18], ['TABLET', 0.09], ['CONNECTED_TV', 0.12], ['OTHER', 0.03]];
const MICROSOFT_SEARCH: DeviceMix = [['DESKTOP', 0.64], ['MOBILE', 0.28], ['TABLET', 0.08]];

const LAYOUT: ReadonlyArray<readonly [number, NetworkName, DeviceMix]> = [
  [GOOGLE, 'SEARCH', GOOGLE_SEARCH],
  [GOOGLE, 'SEARCH_PARTNERS', GOOGLE_SEARCH],
  [GOOGLE, 'DISPLAY', GOOGLE_DISPLAY],
  [MICROSOFT, 'SEARCH', MICROSOFT_SEARCH],
  [MICROSOFT, 'SEARCH_PARTNERS', MICROSOFT_SEARCH],
  [FACEBOOK, 'SOCIAL', [['UNKNOWN', 1]]],
];

/** Every device x network cell of every platform; a campaign uses those its net_mask allows. */
export const CELLS: readonly Cell[] = LAYOUT.flatMap(([platform, networkName, mix]) =>
  mix.map(([deviceName, share]) => {
    const network = NETWORKS[networkName];
    const device = DEVICES[deviceName];
    return {
      platform,
      network: networkName,
      device: deviceName,
      netBit: network.bit,
      share: network.impressions * share,
      ctr: network.ctr * device.ctr,
      cpc: network.cpc * device.cpc,
      cvr: network.cvr * device.cvr,
      // Calls come from call assets on the search results page only.
      calls: networkName === 'SEARCH' ? device.calls : 0,
    };
  }),
).map((cell, index) => ({ ...cell, index }));

/** Sunday first. Search dips at the weekend; social scrolling rises. */
const SEARCH_WEEK = [0.88, 1.06, 1.08, 1.06, 1.03, 0.96, 0.84];
const SOCIAL_WEEK = [1.08, 0.96, 0.95, 0.97, 1.0, 1.02, 1.07];

/** Days until a day's conversions are final at the platform. */
export const CONVERSION_LAG_DAYS = 14;

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
      weekSearch: SEARCH_WEEK[weekday]!,
      weekSocial: SOCIAL_WEEK[weekday]!,
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
