import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { toJobResponse } from '../../provisioning/job-queue.js';
import { ACCEPTED_PLATFORM_NAMES, AD_PLATFORM_TYPES, parsePlatformType } from '../../shared/ad-platforms.js';
import { isCurrencyCode, noRatesMessage } from '../../shared/currencies.js';
import { supportedCurrencies } from '../../reference/fx-rates.js';
import type { PlatformAccountService } from '../../provisioning/platform-accounts/platform-account-service.js';
import { ruleIssue, singleLine } from '../../shared/zod-rules.js';
import type { AppEnv } from '../context.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, LOCATION, TOTAL_COUNT } from '../openapi-helpers.js';
import { pagingQuery, platformTypeQuery } from '../openapi-parameters.js';
import { IDEMPOTENCY_KEY, idempotencyOf } from '../idempotency.js';
import { acceptJson } from '../middleware/content-type.js';
import { idParam, pathId } from '../path-ids.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { JobSchema } from './jobs.js';

const P = '/provisioning/v0';
const TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone').concat('UTC'));
const tags = ['Platform accounts'];
const common = { tags, ...bearer('provisioning') };

const MasterSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    adPlatformType: z.enum(AD_PLATFORM_TYPES),
    adPlatformId: z.string(),
    kind: z.enum(['MANAGER', 'RESELLER']),
  })
  .openapi('AdPlatformMasterAccount');
const ListingSchema = z
  .object({
    adPlatformId: z.string(),
    name: z.string(),
    currency: z.string(),
    timeZone: z.string(),
    linked: z.boolean(),
  })
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

const NewAccountBody = z
  .strictObject({
    adPlatformAccount: z.strictObject({
      name: singleLine(z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters')),
      currency: z
        .string()
        .superRefine((value, ctx) => {
          if (!isCurrencyCode(value))
            ctx.addIssue(ruleIssue('unknown_currency', `"${value}" is not an ISO 4217 currency code`));
          else if (!supportedCurrencies().has(value))
            ctx.addIssue(ruleIssue('unsupported_currency', noRatesMessage(value)));
        })
        .meta({
          enum: [...supportedCurrencies()],
          description: 'ISO 4217 code of a currency with daily reference rates.',
        }),
      timeZone: z
        .string()
        .superRefine((value, ctx) => {
          if (!TIME_ZONES.has(value))
            ctx.addIssue(ruleIssue('unknown_time_zone', `"${value}" is not an IANA time zone such as Europe/Berlin`));
        })
        .meta({ enum: [...TIME_ZONES], description: 'An IANA time zone (as this Node.js release knows them).' }),
    }),
  })
  .openapi('AdPlatformAccountCreate');
const MasterIdParam = z.object({ id: idParam() });
const BAD_QUERY = 'A query parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.';
const PLATFORM_DOWN =
  'The platform is not answering (platform_unavailable; Retry-After), or the service is at capacity.';

const listMastersRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-master-accounts`,
  operationId: 'listMasterAccounts',
  description:
    'Manager (GOOGLE_ADS) and reseller (MICROSOFT_ADVERTISING) accounts are linked to an organization by an operator on the command line, never through this API. Sorted by id.',
  ...common,
  summary: 'Master accounts (manager / reseller) an operator linked to the organization',
  request: { query: z.object(pagingQuery(100)) },
  responses: {
    200: {
      description: 'One page, by id.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ adPlatformMasterAccounts: z.array(MasterSchema) })),
    },
    ...errorResponses('get', { 400: BAD_QUERY }),
  },
});
const getMasterRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-master-accounts/id/{id}`,
  operationId: 'getMasterAccount',
  description: "id, name, platform, the platform's own id and the kind (MANAGER or RESELLER).",
  ...common,
  summary: 'One master account',
  request: { params: MasterIdParam },
  responses: {
    200: { description: 'The master account.', ...jsonContent(z.object({ adPlatformMasterAccount: MasterSchema })) },
    ...errorResponses('get', { 400: 'A malformed path id.', 404: 'Unknown id.' }),
  },
});
const underMasterRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-master-accounts/id/{id}/adplatform-accounts`,
  operationId: 'listPlatformAccountsUnderMaster',
  description:
    'Asks the platform each time; linked says whether an account of the organization links the platform account already.',
  ...common,
  summary: 'Platform accounts under a master, as the platform lists them',
  request: { params: MasterIdParam },
  responses: {
    200: {
      description: 'Accounts; linked says whether one of the organization accounts links it.',
      ...jsonContent(z.object({ adPlatformAccounts: z.array(ListingSchema) })),
    },
    ...errorResponses('get', {
      400: 'A malformed path id.',
      404: 'Unknown master.',
      422: 'The platform refuses the request (validation_failed: no_access, unknown_at_platform, refused_by_platform).',
      503: PLATFORM_DOWN,
    }),
  },
});
const createUnderMasterRoute = createRoute({
  method: 'post',
  path: `${P}/adplatform-master-accounts/id/{id}/adplatform-accounts`,
  operationId: 'createPlatformAccount',
  ...common,
  summary: 'Create a platform account inside a master (a CREATE_ADPLATFORM_ACCOUNT job)',
  description:
    'Send Idempotency-Key to make retries safe: the same key and body within 24 h return the same job; the key with another body is a 422 (idempotency_key_reused).',
  middleware: [acceptJson()] as const,
  request: {
    params: MasterIdParam,
    headers: z.object({ 'Idempotency-Key': IDEMPOTENCY_KEY }),
    body: { required: true, ...jsonContent(NewAccountBody) },
  },
  responses: {
    202: { description: 'The queued job.', headers: LOCATION, ...jsonContent(z.object({ job: JobSchema })) },
    ...errorResponses('post', {
      400: 'The request cannot be read: malformed JSON, a body that is not {"adPlatformAccount": {...}}, a malformed path id or Idempotency-Key.',
      404: 'Unknown master.',
      413: true,
      415: true,
      422: 'A rule is broken (validation_failed: too_long, too_short, unknown_currency, unsupported_currency, unknown_time_zone, ...), or the Idempotency-Key belongs to another request (idempotency_key_reused).',
    }),
  },
});
const listKnownRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts`,
  operationId: 'listPlatformAccounts',
  description:
    'Every platform account the organization linked or created, sorted by id, with the accounts that link it.',
  ...common,
  summary: 'Platform accounts known to the organization (linked or created)',
  request: {
    query: z.object({
      ...pagingQuery(100),
      adPlatformType: platformTypeQuery(false, 'Only accounts of this platform.'),
    }),
  },
  responses: {
    200: {
      description: 'One page, by id.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ adPlatformAccounts: z.array(KnownSchema) })),
    },
    ...errorResponses('get', { 400: BAD_QUERY }),
  },
});
const availableRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts/available`,
  operationId: 'listAvailablePlatformAccounts',
  ...common,
  summary: 'FACEBOOK ad accounts the organization may link directly, as the platform lists them',
  description: 'Only FACEBOOK has ad accounts without a master; the search platforms answer an empty list.',
  request: { query: z.object({ adPlatformType: platformTypeQuery(true, 'The platform; required.') }) },
  responses: {
    200: {
      description: 'Accounts with linked.',
      ...jsonContent(z.object({ adPlatformAccounts: z.array(ListingSchema) })),
    },
    ...errorResponses('get', {
      400: BAD_QUERY,
      422: 'The platform refuses the request (validation_failed: no_access, refused_by_platform).',
      503: PLATFORM_DOWN,
    }),
  },
});
const getKnownRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts/id/{id}`,
  operationId: 'getPlatformAccount',
  description: 'With its currency, time zone, master account (null for FACEBOOK) and the accounts that link it.',
  ...common,
  summary: 'One platform account known to the organization',
  request: { params: z.object({ id: idParam() }) },
  responses: {
    200: { description: 'The platform account.', ...jsonContent(z.object({ adPlatformAccount: KnownSchema })) },
    ...errorResponses('get', { 400: 'A malformed path id.', 404: 'Unknown id.' }),
  },
});

function typeParam(query: QueryParams, required: boolean) {
  const text = query.get('adPlatformType');
  if (text === undefined) return required ? invalidParameter('adPlatformType', 'is required') : undefined;
  return (
    parsePlatformType(text) ??
    invalidParameter('adPlatformType', `must be one of ${ACCEPTED_PLATFORM_NAMES.join(', ')}`)
  );
}

export function registerPlatformAccountRoutes(app: OpenAPIHono<AppEnv>, service: PlatformAccountService): void {
  app.openAPIRegistry.registerPath(listMastersRoute);
  app.get(listMastersRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['limit', 'offset']);
    const { total, masters } = await service.listMasters(c.get('auth').organizationId, parsePaging(query, 100, 100));
    return c.json({ adPlatformMasterAccounts: masters }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getMasterRoute, async (c) => {
    const master = await service.getMaster(
      c.get('auth').organizationId,
      pathId(c.req.valid('param').id, 'ad platform master account'),
    );
    return c.json({ adPlatformMasterAccount: master }, 200);
  });
  app.openapi(underMasterRoute, async (c) => {
    const accounts = await service.accountsUnderMaster(
      c.get('auth').organizationId,
      pathId(c.req.valid('param').id, 'ad platform master account'),
    );
    return c.json(
      {
        adPlatformAccounts: accounts.map(({ adPlatformId, name, currency, timeZone, linked }) => ({
          adPlatformId,
          name,
          currency,
          timeZone,
          linked,
        })),
      },
      200,
    );
  });
  app.openapi(createUnderMasterRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof NewAccountBody>;
    const masterId = pathId(c.req.valid('param').id, 'ad platform master account');
    const job = await service.requestNewAccount(
      c.get('auth').organizationId,
      masterId,
      body.adPlatformAccount,
      idempotencyOf(c, body),
    );
    return c.json({ job: toJobResponse(job) }, 202, { Location: `${P}/jobs/id/${job.id}` });
  });

  app.openAPIRegistry.registerPath(availableRoute);
  app.get(availableRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['adPlatformType']);
    const type = typeParam(query, true)!;
    const accounts = await service.availableDirectAccounts(c.get('auth').organizationId, type);
    return c.json(
      {
        adPlatformAccounts: accounts.map(({ adPlatformId, name, currency, timeZone, linked }) => ({
          adPlatformId,
          name,
          currency,
          timeZone,
          linked,
        })),
      },
      200,
    );
  });
  app.openAPIRegistry.registerPath(listKnownRoute);
  app.get(listKnownRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['limit', 'offset', 'adPlatformType']);
    const { total, accounts } = await service.listKnown(
      c.get('auth').organizationId,
      { type: typeParam(query, false) },
      parsePaging(query, 100, 100),
    );
    return c.json({ adPlatformAccounts: accounts }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getKnownRoute, async (c) => {
    const account = await service.getKnown(
      c.get('auth').organizationId,
      pathId(c.req.valid('param').id, 'ad platform account'),
    );
    return c.json({ adPlatformAccount: account }, 200);
  });
}
