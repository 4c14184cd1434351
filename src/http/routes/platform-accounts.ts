import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { toJobResponse } from '../../jobs/job-service.js';
import { AD_PLATFORM_TYPES } from '../../platforms/connector.js';
import { parsePlatformType, ACCEPTED_PLATFORM_NAMES } from '../../platforms/platform-types.js';
import { isCurrencyCode, noRatesMessage } from '../../shared/currencies.js';
import { supportedCurrencies } from '../../reference/fx-rates.js';
import type { PlatformAccountService } from '../../provisioning/platform-accounts/platform-account-service.js';
import { ruleIssue, singleLine } from '../../shared/zod-rules.js';
import type { AppEnv } from '../context.js';
import { jsonContent } from '../openapi-helpers.js';
import { idempotencyOf } from '../idempotency.js';
import { acceptJson } from '../middleware/content-type.js';
import { idParam, pathId } from '../path-ids.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { JobSchema } from './jobs.js';

const P = '/provisioning/v0';
const TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone').concat('UTC'));
const secured = { security: [{ bearerAuth: [] }] };

const MasterSchema = z
  .object({ id: z.number().int(), name: z.string(), adPlatformType: z.enum(AD_PLATFORM_TYPES), adPlatformId: z.string(), kind: z.enum(['MANAGER', 'RESELLER']) })
  .openapi('AdPlatformMasterAccount');
const ListingSchema = z
  .object({ adPlatformId: z.string(), name: z.string(), currency: z.string(), timeZone: z.string(), linked: z.boolean() })
  .openapi('AdPlatformAccountListing');
const KnownSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    adPlatformType: z.enum(AD_PLATFORM_TYPES),
    adPlatformId: z.string(),
    currency: z.string(),
    timeZone: z.string(),
    masterAccountId: z.number().int().nullable(),
    linkedAccountIds: z.array(z.number().int()),
  })
  .openapi('AdPlatformAccount');

const NewAccountBody = z.strictObject({
  adPlatformAccount: z.strictObject({
    name: singleLine(z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters')),
    currency: z.string().superRefine((value, ctx) => {
      if (!isCurrencyCode(value)) ctx.addIssue(ruleIssue('unknown_currency', `"${value}" is not an ISO 4217 currency code`));
      else if (!supportedCurrencies().has(value)) ctx.addIssue(ruleIssue('unsupported_currency', noRatesMessage(value)));
    }),
    timeZone: z.string().superRefine((value, ctx) => {
      if (!TIME_ZONES.has(value)) ctx.addIssue(ruleIssue('unknown_time_zone', `"${value}" is not an IANA time zone such as Europe/Berlin`));
    }),
  }),
});
const MasterIdParam = z.object({ id: idParam() });
const paging = {
  limit: z.string().optional().openapi({ description: '1-100, default 100' }),
  offset: z.string().optional().openapi({ description: '0 or a multiple of limit' }),
};

const listMastersRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-master-accounts`,
  summary: 'Master accounts (manager / reseller) an operator linked to the organization',
  ...secured,
  request: { query: z.object(paging) },
  responses: { 200: { description: 'One page; X-TotalCount counts all.', ...jsonContent(z.object({ adPlatformMasterAccounts: z.array(MasterSchema) })) } },
});
const getMasterRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-master-accounts/id/{id}`,
  summary: 'One master account',
  ...secured,
  request: { params: MasterIdParam },
  responses: { 200: { description: 'The master account.', ...jsonContent(z.object({ adPlatformMasterAccount: MasterSchema })) }, 404: { description: 'Unknown id.' } },
});
const underMasterRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-master-accounts/id/{id}/adplatform-accounts`,
  summary: 'Platform accounts under a master, as the platform lists them',
  ...secured,
  request: { params: MasterIdParam },
  responses: {
    200: { description: 'Accounts; linked says whether one of the organization accounts links it.', ...jsonContent(z.object({ adPlatformAccounts: z.array(ListingSchema) })) },
    404: { description: 'Unknown master.' },
    503: { description: 'The platform is not answering.' },
  },
});
const createUnderMasterRoute = createRoute({
  method: 'post',
  path: `${P}/adplatform-master-accounts/id/{id}/adplatform-accounts`,
  summary: 'Create a platform account inside a master (a CREATE_ADPLATFORM_ACCOUNT job)',
  description: 'Send Idempotency-Key to make retries safe: the same key and body within 24 h return the same job.',
  middleware: [acceptJson()] as const,
  ...secured,
  request: { params: MasterIdParam, body: { required: true, ...jsonContent(NewAccountBody) } },
  responses: { 202: { description: 'The queued job.', ...jsonContent(z.object({ job: JobSchema })) }, 404: { description: 'Unknown master.' }, 422: { description: 'A rule is broken.' } },
});
const listKnownRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts`,
  summary: 'Platform accounts known to the organization (linked or created)',
  ...secured,
  request: { query: z.object({ ...paging, adPlatformType: z.string().optional() }) },
  responses: { 200: { description: 'One page; X-TotalCount counts all.', ...jsonContent(z.object({ adPlatformAccounts: z.array(KnownSchema) })) } },
});
const availableRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts/available`,
  summary: 'FACEBOOK ad accounts the organization may link directly, as the platform lists them',
  ...secured,
  request: { query: z.object({ adPlatformType: z.string().openapi({ example: 'FACEBOOK' }) }) },
  responses: { 200: { description: 'Accounts with linked.', ...jsonContent(z.object({ adPlatformAccounts: z.array(ListingSchema) })) } },
});
const getKnownRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts/id/{id}`,
  summary: 'One platform account known to the organization',
  ...secured,
  request: { params: z.object({ id: idParam() }) },
  responses: { 200: { description: 'The platform account.', ...jsonContent(z.object({ adPlatformAccount: KnownSchema })) }, 404: { description: 'Unknown id.' } },
});

function typeParam(query: QueryParams, required: boolean) {
  const text = query.get('adPlatformType');
  if (text === undefined) return required ? invalidParameter('adPlatformType', 'is required') : undefined;
  return parsePlatformType(text) ?? invalidParameter('adPlatformType', `must be one of ${ACCEPTED_PLATFORM_NAMES.join(', ')}`);
}

export function registerPlatformAccountRoutes(app: OpenAPIHono<AppEnv>, service: PlatformAccountService): void {
  app.openAPIRegistry.registerPath(listMastersRoute);
  app.get(listMastersRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['limit', 'offset']);
    const { total, masters } = await service.listMasters(c.get('auth').organizationId, parsePaging(query, 100, 100));
    return c.json({ adPlatformMasterAccounts: masters }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getMasterRoute, async (c) => {
    const master = await service.getMaster(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'ad platform master account'));
    return c.json({ adPlatformMasterAccount: master }, 200);
  });
  app.openapi(underMasterRoute, async (c) => {
    const accounts = await service.accountsUnderMaster(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'ad platform master account'));
    return c.json({ adPlatformAccounts: accounts.map(({ adPlatformId, name, currency, timeZone, linked }) => ({ adPlatformId, name, currency, timeZone, linked })) }, 200);
  });
  app.openapi(createUnderMasterRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof NewAccountBody>;
    const masterId = pathId(c.req.valid('param').id, 'ad platform master account');
    const job = await service.requestNewAccount(c.get('auth').organizationId, masterId, body.adPlatformAccount, idempotencyOf(c, body));
    return c.json({ job: toJobResponse(job) }, 202, { Location: `${P}/jobs/id/${job.id}` });
  });

  app.openAPIRegistry.registerPath(availableRoute);
  app.get(availableRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['adPlatformType']);
    const type = typeParam(query, true)!;
    const accounts = await service.availableDirectAccounts(c.get('auth').organizationId, type);
    return c.json({ adPlatformAccounts: accounts.map(({ adPlatformId, name, currency, timeZone, linked }) => ({ adPlatformId, name, currency, timeZone, linked })) }, 200);
  });
  app.openAPIRegistry.registerPath(listKnownRoute);
  app.get(listKnownRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['limit', 'offset', 'adPlatformType']);
    const { total, accounts } = await service.listKnown(c.get('auth').organizationId, { type: typeParam(query, false) }, parsePaging(query, 100, 100));
    return c.json({ adPlatformAccounts: accounts }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getKnownRoute, async (c) => {
    const account = await service.getKnown(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'ad platform account'));
    return c.json({ adPlatformAccount: account }, 200);
  });
}
