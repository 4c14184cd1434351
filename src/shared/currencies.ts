import { data, publishDate } from 'currency-codes';

/**
 * ISO 4217 codes from the maintained `currency-codes` package, which ingests ISO's own
 * "list one" (its publish date is exported below). Entries of the ZZ pseudo-entities are left
 * out: precious metals, bond market units, the testing code XTS and XXX (no currency) are not
 * currencies an advertiser's figures can be shown in.
 */
const CODES: ReadonlySet<string> = new Set(data.filter((c) => !c.countries.some((country) => /^zz\d/i.test(country))).map((c) => c.code));

export const CURRENCY_LIST_PUBLISHED: string = publishDate;

export function isCurrencyCode(code: string): boolean {
  return CODES.has(code);
}
