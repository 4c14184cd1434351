import { z } from 'zod';
import { noNul, ruleIssue, SINGLE_LINE_NOT_BLANK, singleLine } from '../../shared/zod-rules.js';
import { isCurrencyCode, noRatesMessage } from '../../shared/currencies.js';
import { supportedCurrencies } from '../../reference/fx-rates.js';
import { labelsSchema, type Labels } from '../labels.js';
import { COUNTRIES_BY_LANGUAGE, isAllowedPair, isKnownLanguage } from './language-country.js';

export const ACCOUNT_NAME_MAX = 255;
export const ACCOUNT_NOTES_MAX = 10_000;
export const CUSTOM_TEXT_MAX = 1_000;

export const TEXT_FIELDS = Array.from({ length: 20 }, (_, i) => `field${i + 1}`) as readonly string[];
export const NUMBER_FIELDS = Array.from({ length: 10 }, (_, i) => `field${i + 21}`) as readonly string[];
export const CUSTOM_FIELDS = [...TEXT_FIELDS, ...NUMBER_FIELDS] as readonly string[];
export const REQUIRED_FIELDS = ['name', 'languageCode', 'countryCode', 'currency'] as const;

/** What an account is, in request terms (spec 2.1); the store and the response derive from it. */
export interface AccountState {
  name: string;
  languageCode: string;
  countryCode: string;
  currency: string;
  notes: string | null;
  autoImport: boolean;
  custom: Record<string, string | number | null>;
  labels: Labels;
}

/** Response-shape names a client may echo back by mistake: refused with a pointer, not ignored. */
const READ_ONLY: Readonly<Record<string, string>> = {
  id: 'id is assigned by the service',
  language: 'language is the response name; send languageCode',
  country: 'country is the response name; send countryCode',
  linkedAdPlatformAccounts: 'links are managed under /accounts/id/{id}/adplatform-accounts',
};

// readOnly in the document: generated clients leave these out of requests.
const readOnly = (message: string) =>
  z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
      if (value !== undefined) ctx.addIssue(ruleIssue('read_only', message));
    })
    .meta({ readOnly: true, description: `Response only; sent, it is a 422 (${message}).` });

const name = singleLine(z.string().max(ACCOUNT_NAME_MAX, `must be at most ${ACCOUNT_NAME_MAX} characters`))
  .superRefine((value, ctx) => {
    if (value.trim() === '') ctx.addIssue(ruleIssue('blank', 'must not be blank'));
  })
  .meta({
    pattern: SINGLE_LINE_NOT_BLANK.source,
    maxLength: ACCOUNT_NAME_MAX,
    description: `1-${ACCOUNT_NAME_MAX} characters, not only white space, no control characters.`,
  });

const PAIRS = Object.entries(COUNTRIES_BY_LANGUAGE)
  .map(([language, countries]) => `${language}: ${countries.join(', ')}`)
  .join('; ');

const languageCode = z
  .string()
  .superRefine((value, ctx) => {
    if (!isKnownLanguage(value))
      ctx.addIssue(ruleIssue('not_allowed', `must be one of ${Object.keys(COUNTRIES_BY_LANGUAGE).join(', ')}`));
  })
  .meta({
    enum: Object.keys(COUNTRIES_BY_LANGUAGE),
    description: `With countryCode one of the pairs of spec table 2.3 (otherwise 422 not_allowed on countryCode): ${PAIRS}.`,
  });

const countryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be a two-letter upper-case country code')
  .meta({
    enum: [...new Set(Object.values(COUNTRIES_BY_LANGUAGE).flat())].sort(),
    description: 'A country of spec table 2.3 that goes with languageCode (see there).',
  });

/** The document lists the codes with reference rates; the file is read once, at import. */
const currency = z
  .string()
  .superRefine((value, ctx) => {
    if (!isCurrencyCode(value))
      ctx.addIssue(ruleIssue('unknown_currency', `"${value}" is not an ISO 4217 currency code (upper case, e.g. EUR)`));
    else if (!supportedCurrencies().has(value)) ctx.addIssue(ruleIssue('unsupported_currency', noRatesMessage(value)));
  })
  .meta({ enum: [...supportedCurrencies()], description: 'ISO 4217 code of a currency with daily reference rates.' });

const optionalFields = {
  notes: noNul(z.string().max(ACCOUNT_NOTES_MAX, `must be at most ${ACCOUNT_NOTES_MAX} characters`))
    .nullable()
    .optional(),
  autoImport: z.boolean().nullable().optional(),
  labels: labelsSchema.nullable().optional(),
  ...Object.fromEntries(
    TEXT_FIELDS.map((f) => [
      f,
      noNul(z.string().max(CUSTOM_TEXT_MAX, `must be at most ${CUSTOM_TEXT_MAX} characters`))
        .nullable()
        .optional(),
    ]),
  ),
  ...Object.fromEntries(NUMBER_FIELDS.map((f) => [f, z.number().nullable().optional()])),
  ...Object.fromEntries(Object.entries(READ_ONLY).map(([key, message]) => [key, readOnly(message)])),
};

function checkPair(account: { languageCode?: string | null; countryCode?: string | null }, ctx: z.RefinementCtx): void {
  const { languageCode: language, countryCode: country } = account;
  if (typeof language !== 'string' || typeof country !== 'string' || !isKnownLanguage(language)) return;
  if (!isAllowedPair(language, country)) {
    ctx.addIssue(
      ruleIssue(
        'not_allowed',
        `language ${language} goes with ${COUNTRIES_BY_LANGUAGE[language]!.join(', ')}, not ${country}`,
        ['countryCode'],
      ),
    );
  }
}

/** Lets the pair check run even when other fields failed, so one answer lists every broken rule. */
const whenBothCodesAreStrings = {
  when: (payload: { value: unknown }) => {
    const value = payload.value as { languageCode?: unknown; countryCode?: unknown } | null;
    return typeof value?.languageCode === 'string' && typeof value.countryCode === 'string';
  },
};

/** AccountCreateUpdate for POST and PUT: the four required fields, every rule. */
export const accountWriteSchema = z
  .strictObject({ name, languageCode, countryCode, currency, ...optionalFields })
  .superRefine(checkPair, whenBothCodesAreStrings);

/** The document shows a required field of a patch as not nullable: null is refused (422 required). */
const REQUIRED_IN_PATCH = { type: 'string' };

/** PATCH: any subset; null clears. Rules that span fields are checked on the merged account. */
export const accountPatchSchema = z.strictObject({
  // null passes here so that the service can say which required field a patch tried to clear.
  name: name.nullable().optional().meta(REQUIRED_IN_PATCH),
  languageCode: languageCode.nullable().optional().meta(REQUIRED_IN_PATCH),
  countryCode: countryCode.nullable().optional().meta(REQUIRED_IN_PATCH),
  currency: currency.nullable().optional().meta(REQUIRED_IN_PATCH),
  ...optionalFields,
});

export type AccountWrite = z.infer<typeof accountWriteSchema>;
export type AccountPatch = z.infer<typeof accountPatchSchema>;

/** A validated body (or merged patch) as the state the store keeps; missing means null. */
export function stateFromWrite(body: AccountWrite): AccountState {
  const fields = body as Record<string, unknown>;
  return {
    name: body.name,
    languageCode: body.languageCode,
    countryCode: body.countryCode,
    currency: body.currency,
    notes: body.notes ?? null,
    autoImport: body.autoImport ?? false,
    custom: Object.fromEntries(
      CUSTOM_FIELDS.map((f) => [f, (fields[f] as string | number | null | undefined) ?? null]),
    ),
    // Sorted by name, as reads return them, so a write's answer equals the next read.
    labels: Object.fromEntries(Object.entries(body.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}

/** The state written back in request terms, so a merge patch can be applied and re-validated. */
export function writeFromState(state: AccountState): Record<string, unknown> {
  return {
    name: state.name,
    languageCode: state.languageCode,
    countryCode: state.countryCode,
    currency: state.currency,
    notes: state.notes,
    autoImport: state.autoImport,
    ...state.custom,
    labels: state.labels,
  };
}
