import type { Unit } from './statistics.js';

/**
 * GET /reporting/v0/call-details (supplement 5): the fields of one call, in the order rows show
 * them; filters and sorts name exactly these.
 */
export type CallDetailFieldType = 'number' | 'string' | 'boolean';

export const CALL_DETAIL_FIELDS: Readonly<Record<string, CallDetailFieldType>> = {
  id: 'number',
  accountId: 'number',
  campaignId: 'number',
  adGroupId: 'number',
  adPlatformAccountId: 'number',
  adPlatformType: 'string',
  startTime: 'string',
  durationSeconds: 'number',
  status: 'string',
  callType: 'string',
  callerCountry: 'string',
  callerAreaCode: 'string',
  isConversion: 'boolean',
};

/**
 * How `GET /reporting/v0/fields` describes the call details' fields to people (issue 43): a
 * column label each, and the unit of the one measure among them (durationSeconds).
 */
export const CALL_DETAIL_LABELS: Readonly<Record<keyof typeof CALL_DETAIL_FIELDS & string, string>> = {
  id: 'Call',
  accountId: 'Account',
  campaignId: 'Campaign',
  adGroupId: 'Ad group',
  adPlatformAccountId: 'Platform account',
  adPlatformType: 'Platform',
  startTime: 'Start time',
  durationSeconds: 'Duration',
  status: 'Status',
  callType: 'Call type',
  callerCountry: 'Caller country',
  callerAreaCode: 'Area code',
  isConversion: 'Conversion',
};
export const CALL_DETAIL_UNITS: Readonly<Partial<Record<string, Unit>>> = { durationSeconds: 'duration' };

export const CALL_DETAIL_FIELD_NAMES: readonly string[] = Object.keys(CALL_DETAIL_FIELDS);

/** The type of a field name, or undefined for a name that is none (own keys only: `constructor` is no field). */
export function callDetailFieldType(name: string): CallDetailFieldType | undefined {
  return Object.hasOwn(CALL_DETAIL_FIELDS, name) ? CALL_DETAIL_FIELDS[name] : undefined;
}
