/** Spec table 2.3, exactly: the only language/country pairs an account may have. */
export const COUNTRIES_BY_LANGUAGE: Readonly<Record<string, readonly string[]>> = {
  zh: ['CN', 'HK', 'SG', 'TW'],
  da: ['DK'],
  nl: ['BE', 'NL'],
  en: ['AU', 'CA', 'DK', 'ID', 'IE', 'NZ', 'ZA', 'GB', 'US'],
  fi: ['FI'],
  fr: ['BE', 'CA', 'FR', 'CH', 'US'],
  de: ['AT', 'DE', 'CH'],
  it: ['IT'],
  ja: ['JP'],
  nb: ['NO'],
  pt: ['BR'],
  es: ['AR', 'MX', 'ES', 'US'],
  sv: ['FI', 'SE'],
};

export function isKnownLanguage(languageCode: string): boolean {
  return Object.hasOwn(COUNTRIES_BY_LANGUAGE, languageCode);
}

export function isAllowedPair(languageCode: string, countryCode: string): boolean {
  return isKnownLanguage(languageCode) && COUNTRIES_BY_LANGUAGE[languageCode]!.includes(countryCode);
}
