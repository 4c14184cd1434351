import { MARKETS } from '../platforms/sandbox/vocabulary.js';

/**
 * The sandbox's markets as generated accounts use them: ISO country (the vocabulary's "UK" is
 * GB), the languages spoken there within spec table 2.3 (with how often), a region label.
 * A market whose country has no allowed language (PL) is left out.
 */
export interface GeneratorMarket {
  readonly code: string;
  readonly country: string;
  readonly currency: string;
  readonly timeZone: string;
  readonly weight: number;
  readonly languages: ReadonlyArray<readonly [language: string, weight: number]>;
  readonly region: 'EMEA' | 'AMER' | 'APAC';
}

const LANGUAGES: Readonly<Record<string, ReadonlyArray<readonly [string, number]>>> = {
  DE: [['de', 1]],
  AT: [['de', 1]],
  CH: [
    ['de', 0.65],
    ['fr', 0.35],
  ],
  US: [
    ['en', 0.85],
    ['es', 0.15],
  ],
  GB: [['en', 1]],
  FR: [['fr', 1]],
  NL: [['nl', 1]],
  ES: [['es', 1]],
  IT: [['it', 1]],
  SE: [['sv', 1]],
  DK: [
    ['da', 0.85],
    ['en', 0.15],
  ],
  NO: [['nb', 1]],
  JP: [['ja', 1]],
  AU: [['en', 1]],
  CA: [
    ['en', 0.78],
    ['fr', 0.22],
  ],
  BR: [['pt', 1]],
  MX: [['es', 1]],
};

const AMERICAS = new Set(['US', 'CA', 'BR', 'MX']);
const ASIA_PACIFIC = new Set(['JP', 'AU']);

export const GENERATOR_MARKETS: readonly GeneratorMarket[] = MARKETS.flatMap((market) => {
  const country = market.code === 'UK' ? 'GB' : market.code;
  const languages = LANGUAGES[country];
  if (!languages) return [];
  const region = AMERICAS.has(country) ? 'AMER' : ASIA_PACIFIC.has(country) ? 'APAC' : 'EMEA';
  return [
    {
      code: market.code,
      country,
      currency: market.currency,
      timeZone: market.timeZone,
      weight: market.weight,
      languages,
      region,
    },
  ];
});

/** Currencies with no minor unit: money is rounded to whole units there. */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['JPY']);
