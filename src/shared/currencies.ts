import { data, publishDate } from 'currency-codes';

/**
 * ISO 4217 codes from the maintained `currency-codes` package, which ingests ISO's own
 * "list one" (its publish date is exported below). Entries of the ZZ pseudo-entities are left
 * out: precious metals, bond market units, the testing code XTS and XXX (no currency) are not
 * currencies an advertiser's figures can be shown in.
 */
const CODES: ReadonlySet<string> = new Set(
  data.filter((c) => !c.countries.some((country) => /^zz\d/i.test(country))).map((c) => c.code),
);

export const CURRENCY_LIST_PUBLISHED: string = publishDate;

export function isCurrencyCode(code: string): boolean {
  return CODES.has(code);
}

/** Why a valid ISO code is refused when the FX reference has no rates for it (detail code `unsupported_currency`). */
export function noRatesMessage(code: string): string {
  return `there are no exchange rates for ${code}, so reports in it could not be converted; use a currency with daily reference rates`;
}
