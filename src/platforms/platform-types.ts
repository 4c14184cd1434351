import { AD_PLATFORM_ALIASES, AD_PLATFORM_TYPES, type AdPlatformType } from './connector.js';

/** Reads a platform name, accepting the pre-rebranding aliases (supplement 2). */
export function parsePlatformType(text: string): AdPlatformType | undefined {
  if ((AD_PLATFORM_TYPES as readonly string[]).includes(text)) return text as AdPlatformType;
  return AD_PLATFORM_ALIASES[text];
}

export const MASTER_KIND: Readonly<Record<AdPlatformType, 'MANAGER' | 'RESELLER' | null>> = {
  GOOGLE_ADS: 'MANAGER',
  MICROSOFT_ADVERTISING: 'RESELLER',
  FACEBOOK: null,
};

export const ACCEPTED_PLATFORM_NAMES = [...AD_PLATFORM_TYPES, ...Object.keys(AD_PLATFORM_ALIASES)];
