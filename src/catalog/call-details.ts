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
