/**
 * The ad platforms' names as the API spells them (supplement 2), and the device vocabulary of the
 * reports. Plain data, so http, provisioning and the reporting core read it without reaching into
 * platforms/ (DESIGN D4); platforms/connector.ts re-exports it for the connectors.
 */
export const AD_PLATFORM_TYPES = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const;
export type AdPlatformType = (typeof AD_PLATFORM_TYPES)[number];

/** Pre-rebranding names accepted as input, never emitted (supplement 2). */
export const AD_PLATFORM_ALIASES: Readonly<Record<string, AdPlatformType>> = {
  ADWORDS: 'GOOGLE_ADS',
  BING_ADS: 'MICROSOFT_ADVERTISING',
};

/** Reads a platform name, accepting the pre-rebranding aliases (supplement 2). */
export function parsePlatformType(text: string): AdPlatformType | undefined {
  if ((AD_PLATFORM_TYPES as readonly string[]).includes(text)) return text as AdPlatformType;
  return AD_PLATFORM_ALIASES[text];
}

export const ACCEPTED_PLATFORM_NAMES = [...AD_PLATFORM_TYPES, ...Object.keys(AD_PLATFORM_ALIASES)];

export const DEVICE_TYPES = ['DESKTOP', 'MOBILE', 'TABLET', 'CONNECTED_TV', 'OTHER', 'UNKNOWN'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];
export const NETWORK_TYPES = ['SEARCH', 'SEARCH_PARTNERS', 'DISPLAY', 'SOCIAL'] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];
