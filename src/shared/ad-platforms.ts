/** The three ad platforms (supplement 2), as every layer names them. */
export const AD_PLATFORM_TYPES = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const;
export type AdPlatformType = (typeof AD_PLATFORM_TYPES)[number];

/** Pre-rebranding names accepted as input, never emitted (supplement 2). */
export const AD_PLATFORM_ALIASES: Readonly<Record<string, AdPlatformType>> = { ADWORDS: 'GOOGLE_ADS', BING_ADS: 'MICROSOFT_ADVERTISING' };

/** Devices and networks of the fact rows (supplement 2), as the platforms report them. */
export const DEVICE_TYPES = ['DESKTOP', 'MOBILE', 'TABLET', 'CONNECTED_TV', 'OTHER', 'UNKNOWN'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];
export const NETWORK_TYPES = ['SEARCH', 'SEARCH_PARTNERS', 'DISPLAY', 'SOCIAL'] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];
