import type { AdPlatformType, DeviceType, NetworkType } from '../connector.js';
import { dayOfYear, daysSinceEndOf } from './dates.js';

/**
 * The shape of traffic: which device and network a platform reports, how their volumes, click
 * rates, prices and conversion rates compare, the week and the year. Figures are plausible
 * public rules of thumb (search CTR a few percent, display well under one, mobile-heavy Google,
 * desktop-heavy Microsoft, a Q4 peak around Black Friday), not any advertiser's data.
 */
export interface Cell {
  readonly device: DeviceType;
  readonly network: NetworkType;
  /** Share of the campaign's search impressions this cell gets (DISPLAY adds far more). */
  readonly share: number;
  readonly ctr: number;
  /** Multipliers on the campaign's cost per click and conversion rate. */
  readonly cpc: number;
  readonly cvr: number;
  /** Multiplier on the campaign's call rate; 0 where calls cannot happen. */
  readonly calls: number;
}

interface NetworkShape {
  readonly impressions: number;
  readonly ctr: number;
  readonly cpc: number;
  readonly cvr: number;
}

const NETWORKS: Readonly<Record<NetworkType, NetworkShape>> = {
  SEARCH: { impressions: 1, ctr: 0.05, cpc: 1, cvr: 1 },
  SEARCH_PARTNERS: { impressions: 0.3, ctr: 0.022, cpc: 0.7, cvr: 0.7 },
  DISPLAY: { impressions: 3.5, ctr: 0.006, cpc: 0.35, cvr: 0.3 },
  SOCIAL: { impressions: 4, ctr: 0.011, cpc: 0.55, cvr: 0.5 },
};

const DEVICES: Readonly<Record<DeviceType, { ctr: number; cpc: number; cvr: number; calls: number }>> = {
  MOBILE: { ctr: 1, cpc: 0.9, cvr: 0.75, calls: 1 },
  DESKTOP: { ctr: 1.1, cpc: 1.15, cvr: 1.35, calls: 0.12 },
  TABLET: { ctr: 0.95, cpc: 0.95, cvr: 1, calls: 0.3 },
  CONNECTED_TV: { ctr: 0.15, cpc: 0.6, cvr: 0.2, calls: 0 },
  OTHER: { ctr: 0.6, cpc: 0.7, cvr: 0.5, calls: 0 },
  UNKNOWN: { ctr: 1, cpc: 1, cvr: 1, calls: 0 },
};

type DeviceMix = ReadonlyArray<readonly [DeviceType, number]>;

const GOOGLE_SEARCH_DEVICES: DeviceMix = [
  ['MOBILE', 0.6],
  ['DESKTOP', 0.31],
  ['TABLET', 0.07],
  ['OTHER', 0.02],
];
const GOOGLE_DISPLAY_DEVICES: DeviceMix = [
  ['MOBILE', 0.58],
  ['DESKTOP', 0.18],
  ['TABLET', 0.09],
  ['CONNECTED_TV', 0.12],
  ['OTHER', 0.03],
];
const MICROSOFT_DEVICES: DeviceMix = [
  ['DESKTOP', 0.64],
  ['MOBILE', 0.28],
  ['TABLET', 0.08],
];

export interface NetworkChoice {
  readonly partners: boolean;
  readonly display: boolean;
}

/** The device x network cells a campaign of this platform serves in. */
export function cellsFor(platform: AdPlatformType, choice: NetworkChoice): Cell[] {
  const networks: Array<[NetworkType, DeviceMix]> = [];
  switch (platform) {
    case 'GOOGLE_ADS':
      networks.push(['SEARCH', GOOGLE_SEARCH_DEVICES]);
      if (choice.partners) networks.push(['SEARCH_PARTNERS', GOOGLE_SEARCH_DEVICES]);
      if (choice.display) networks.push(['DISPLAY', GOOGLE_DISPLAY_DEVICES]);
      break;
    case 'MICROSOFT_ADVERTISING':
      networks.push(['SEARCH', MICROSOFT_DEVICES]);
      if (choice.partners) networks.push(['SEARCH_PARTNERS', MICROSOFT_DEVICES]);
      break;
    case 'FACEBOOK':
      networks.push(['SOCIAL', [['UNKNOWN', 1]]]);
      break;
  }
  return networks.flatMap(([network, devices]) =>
    devices.map(([device, share]): Cell => {
      const n = NETWORKS[network];
      const d = DEVICES[device];
      // Calls come from call assets on the search results page only.
      const calls = network === 'SEARCH' ? d.calls : 0;
      return {
        device,
        network,
        share: n.impressions * share,
        ctr: n.ctr * d.ctr,
        cpc: n.cpc * d.cpc,
        cvr: n.cvr * d.cvr,
        calls,
      };
    }),
  );
}

/** Sunday first. Search dips at the weekend; social scrolling rises. */
const SEARCH_WEEK = [0.88, 1.06, 1.08, 1.06, 1.03, 0.96, 0.84];
const SOCIAL_WEEK = [1.08, 0.96, 0.95, 0.97, 1.0, 1.02, 1.07];

export function weekdayFactor(platform: AdPlatformType, weekday: number): number {
  return (platform === 'FACEBOOK' ? SOCIAL_WEEK : SEARCH_WEEK)[weekday] ?? 1;
}

const bump = (x: number, centre: number, width: number) => Math.exp(-(((x - centre) / width) ** 2));

/** Q4 ramp with a Black Friday spike, a Christmas-days dip, a quiet January and summer. */
export function seasonFactor(day: number): number {
  const d = dayOfYear(day);
  return (
    1 +
    0.22 * bump(d, 335, 28) +
    0.35 * bump(d, 330, 5) -
    0.3 * bump(d, 359, 1.5) -
    0.12 * bump(d, 18, 18) -
    0.08 * bump(d, 212, 25)
  );
}

/** Days until conversions of a day are final at the platform (conversion lag). */
export const RESTATEMENT_DAYS = 14;

/**
 * The share of a day's final conversions reported at `now`: most within a day, the rest
 * trickling in, final after RESTATEMENT_DAYS. Never decreases as `now` moves on.
 */
export function reportedShare(day: number, now: Date): number {
  const age = Math.max(0, daysSinceEndOf(day, now));
  if (age >= RESTATEMENT_DAYS) return 1;
  return 0.55 + 0.45 * (1 - (1 - age / RESTATEMENT_DAYS) ** 2);
}
