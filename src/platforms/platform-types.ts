import type { AdPlatformType } from '../shared/ad-platforms.js';

export { ACCEPTED_PLATFORM_NAMES, parsePlatformType } from '../shared/ad-platforms.js';

export const MASTER_KIND: Readonly<Record<AdPlatformType, 'MANAGER' | 'RESELLER' | null>> = {
  GOOGLE_ADS: 'MANAGER',
  MICROSOFT_ADVERTISING: 'RESELLER',
  FACEBOOK: null,
};
