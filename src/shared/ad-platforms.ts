/** The three ad platforms (supplement 2), as every layer names them. */
export const AD_PLATFORM_TYPES = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const;
export type AdPlatformType = (typeof AD_PLATFORM_TYPES)[number];

/** Pre-rebranding names accepted as input, never emitted (supplement 2). */
export const AD_PLATFORM_ALIASES: Readonly<Record<string, AdPlatformType>> = { ADWORDS: 'GOOGLE_ADS', BING_ADS: 'MICROSOFT_ADVERTISING' };
