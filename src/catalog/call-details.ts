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

export const CALL_DETAIL_FIELD_NAMES: readonly string[] = Object.keys(CALL_DETAIL_FIELDS);

/** The type of a field name, or undefined for a name that is none (own keys only: `constructor` is no field). */
export function callDetailFieldType(name: string): CallDetailFieldType | undefined {
  return Object.hasOwn(CALL_DETAIL_FIELDS, name) ? CALL_DETAIL_FIELDS[name] : undefined;
}
