import type { AdPlatformType } from '../shared/ad-platforms.js';

/**
 * What each platform reports beside its daily rows, and how the sandbox's traffic splits into it
 * (issue 40). A breakdown is a set of buckets whose shares of a campaign's day sum to one: hours
 * of the account's day, age x gender, publisher platform x position, country x region, conversion
 * actions. A platform that does not report a breakdown has no entry for it.
 *
 * The sandbox's split is a pure function of the day's row: the bucket shares of one variant (of a
 * few per breakdown, picked by the campaign, the day or the platform account), applied to every
 * additive figure as exact integer parts (money in micros), so the buckets sum exactly to the
 * row. The statistics sync and `data generate` both write breakdowns with it
 * (src/statistics/breakdowns.ts), so both produce the same buckets from the same daily rows.
 */
export interface BreakdownBucket {
  /** Column -> value, as the breakdown's fact table names its columns. */
  readonly values: Readonly<Record<string, string | number>>;
  /** Share of the day, in parts of SHARE_PARTS; a variant's shares sum to SHARE_PARTS. */
  readonly share: number;
  /**
   * Where conversions and conversion value split otherwise than the rest (attribution windows):
   * the bucket's cumulative bounds [from, to) of them, in parts of SHARE_PARTS; beyond
   * SHARE_PARTS, conversions the daily rows do not count (a longer window's).
   */
  readonly conversions?: { readonly from: number; readonly to: number } | undefined;
}

export interface BreakdownProfile {
  /** The fact source's name in src/catalog/fact-sources.ts. */
  readonly source: string;
  readonly platforms: readonly AdPlatformType[];
  /** What picks a row's variant: its campaign, its campaign and day, or its platform account. */
  readonly variantBy: 'campaign' | 'campaignDay' | 'platformAccount';
  readonly variants: readonly (readonly BreakdownBucket[])[];
}

export const SHARE_PARTS = 10_000;

/** Weights -> shares in parts of SHARE_PARTS that sum exactly (the last bucket takes the rounding). */
function shares(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const out = weights.map((w) => Math.floor((w / total) * SHARE_PARTS));
  out[out.length - 1]! += SHARE_PARTS - out.reduce((a, b) => a + b, 0);
  return out;
}

function variant(
  rows: ReadonlyArray<Readonly<Record<string, string | number>>>,
  weights: readonly number[],
): BreakdownBucket[] {
  const parts = shares(weights);
  return rows.map((values, i) => ({ values, share: parts[i]! }));
}

const ALL: readonly AdPlatformType[] = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'];

/** Local-time traffic by hour: a night trough, a morning rise, an evening peak (shifted per variant). */
const DIURNAL = [2, 1, 1, 1, 1, 2, 3, 5, 6, 7, 7, 7, 8, 7, 7, 7, 7, 8, 9, 10, 10, 8, 5, 3];
const HOURS = Array.from({ length: 24 }, (_, hour) => ({ hour }));
const shifted = (by: number) => DIURNAL.map((_, h) => DIURNAL[(h + 24 - by) % 24]!);

const AGES = ['18-24', '25-34', '35-44', '45-54', '55-64', '65+', 'Unknown'];
const GENDERS = ['female', 'male', 'unknown'];
const AGE_GENDER = AGES.flatMap((age) => GENDERS.map((gender) => ({ age, gender })));
/** Per age (x female, male, unknown): a young, a middle and an older audience. */
const ageGender = (byAge: readonly number[], female: number) =>
  AGES.flatMap((_, i) => [byAge[i]! * female, byAge[i]! * (1 - female), byAge[i]! * 0.03]);

const PLACEMENTS = [
  { publisher_platform: 'facebook', platform_position: 'feed' },
  { publisher_platform: 'facebook', platform_position: 'story' },
  { publisher_platform: 'facebook', platform_position: 'marketplace' },
  { publisher_platform: 'facebook', platform_position: 'instream_video' },
  { publisher_platform: 'instagram', platform_position: 'stream' },
  { publisher_platform: 'instagram', platform_position: 'story' },
  { publisher_platform: 'instagram', platform_position: 'reels' },
  { publisher_platform: 'messenger', platform_position: 'messenger_inbox' },
  { publisher_platform: 'audience_network', platform_position: 'classic' },
];

/** A home market with its regions, and a little traffic from abroad. */
const GEOGRAPHIES: ReadonlyArray<ReadonlyArray<readonly [country: string, region: string, weight: number]>> = [
  [
    ['DE', 'DE-BY', 18],
    ['DE', 'DE-NW', 22],
    ['DE', 'DE-BE', 12],
    ['DE', 'DE-HH', 8],
    ['AT', 'AT-9', 5],
    ['CH', 'CH-ZH', 3],
  ],
  [
    ['US', 'US-CA', 20],
    ['US', 'US-NY', 14],
    ['US', 'US-TX', 15],
    ['US', 'US-FL', 10],
    ['CA', 'CA-ON', 4],
  ],
  [
    ['GB', 'GB-ENG', 40],
    ['GB', 'GB-SCT', 6],
    ['GB', 'GB-WLS', 3],
    ['IE', 'IE-L', 4],
  ],
  [
    ['FR', 'FR-IDF', 22],
    ['FR', 'FR-ARA', 12],
    ['FR', 'FR-PAC', 9],
    ['BE', 'BE-BRU', 4],
    ['ES', 'ES-CT', 3],
  ],
];

const CONVERSION_ACTIONS: Readonly<Record<AdPlatformType, readonly string[]>> = {
  GOOGLE_ADS: ['Purchase', 'Lead form submit', 'Phone call lead', 'Sign-up'],
  MICROSOFT_ADVERTISING: ['Purchase', 'Contact form', 'Store visit', 'Newsletter sign-up'],
  FACEBOOK: ['Purchase', 'Lead', 'Add to cart', 'Complete registration'],
};

/** Per platform account: two to four of its platform's actions, most conversions on the first. */
const conversionActionVariants = (platform: AdPlatformType) =>
  [2, 3, 4].map((n) =>
    variant(
      CONVERSION_ACTIONS[platform].slice(0, n).map((conversion_action) => ({ conversion_action })),
      [60, 25, 10, 5].slice(0, n),
    ),
  );

/**
 * Meta's attribution windows as disjoint parts of a FACEBOOK campaign day's conversions
 * (../catalog/attribution.ts): `base` carries everything but conversions; click within 1 day,
 * click within 2-7 days and view within 1 day are the daily rows' conversions (Meta's default
 * setting, 7-day click + 1-day view); click within 8-28 days and engaged view come on top.
 */
const attribution = (click1d: number, click7d: number, click28d: number, engagedView: number): BreakdownBucket[] => {
  const bounds = [
    ['click_1d', 0, click1d],
    ['click_7d', click1d, click1d + click7d],
    ['view_1d', click1d + click7d, SHARE_PARTS],
    ['click_28d', SHARE_PARTS, SHARE_PARTS + click28d],
    ['engaged_view_1d', SHARE_PARTS + click28d, SHARE_PARTS + click28d + engagedView],
  ] as const;
  return [
    { values: { attribution_part: 'base' }, share: SHARE_PARTS, conversions: { from: 0, to: 0 } },
    ...bounds.map(([attribution_part, from, to]) => ({
      values: { attribution_part },
      share: 0,
      conversions: { from, to },
    })),
  ];
};

export const BREAKDOWN_PROFILES: readonly BreakdownProfile[] = [
  {
    source: 'hours',
    platforms: ALL,
    variantBy: 'campaignDay',
    variants: [0, 1, -1, 2].map((by) => variant(HOURS, shifted(by))),
  },
  {
    source: 'audience',
    platforms: ['FACEBOOK'],
    variantBy: 'campaign',
    variants: [
      variant(AGE_GENDER, ageGender([30, 35, 15, 8, 5, 2, 5], 0.55)),
      variant(AGE_GENDER, ageGender([8, 25, 30, 20, 10, 4, 3], 0.45)),
      variant(AGE_GENDER, ageGender([3, 8, 15, 25, 25, 20, 4], 0.6)),
    ],
  },
  {
    source: 'placement',
    platforms: ['FACEBOOK'],
    variantBy: 'campaign',
    variants: [
      variant(PLACEMENTS, [40, 10, 4, 3, 25, 10, 5, 1, 2]),
      variant(PLACEMENTS, [20, 8, 2, 2, 30, 18, 16, 1, 3]),
    ],
  },
  {
    source: 'geography',
    platforms: ALL,
    variantBy: 'platformAccount',
    variants: GEOGRAPHIES.map((rows) =>
      variant(
        rows.map(([country, region]) => ({ country, region })),
        rows.map(([, , weight]) => weight),
      ),
    ),
  },
  ...(['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const).map((platform): BreakdownProfile => ({
    source: 'conversionActions',
    platforms: [platform],
    variantBy: 'platformAccount',
    variants: conversionActionVariants(platform),
  })),
  {
    source: 'attribution',
    platforms: ['FACEBOOK'],
    variantBy: 'campaign',
    variants: [
      attribution(5500, 3000, 1200, 400),
      attribution(4000, 3500, 1800, 700),
      attribution(6500, 2000, 800, 200),
    ],
  },
];
