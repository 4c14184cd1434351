import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { toJobResponse } from '../../provisioning/job-queue.js';
import { AD_PLATFORM_TYPES } from '../../shared/ad-platforms.js';
import type { CampaignService } from '../../provisioning/campaigns/campaign-service.js';
import type { AppEnv } from '../context.js';
import { IDEMPOTENCY_KEY, idempotencyOf } from '../idempotency.js';
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, LOCATION, TOTAL_COUNT } from '../openapi-helpers.js';
import { pagingQuery, queryId } from '../openapi-parameters.js';
import { idParam, pathId } from '../path-ids.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { singleLine } from '../../shared/zod-rules.js';
import { JobSchema } from './jobs.js';

const P = '/provisioning/v0';
const common = { tags: ['Campaigns'], ...bearer('provisioning') };

const CampaignSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    adPlatformId: z.string(),
    adPlatformAccountId: z.number().int(),
    adPlatformType: z.enum(AD_PLATFORM_TYPES),
    status: z.string(),
    campaignGroup: z.string().nullable(),
    labels: z.record(z.string(), z.string()),
    importedAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Campaign');
const AvailableSchema = z
  .object({ adPlatformId: z.string(), name: z.string(), status: z.string() })
  .openapi('AvailableCampaign');
const ImportBody = z
  .strictObject({
    campaign: z.strictObject({
      adPlatformId: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
      campaignGroup: singleLine(z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters')),
    }),
  })
  .openapi('CampaignImport');
const BAD_QUERY = 'A query parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.';

const availableRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts/id/{id}/available-campaigns`,
  operationId: 'listAvailableCampaigns',
  description: 'Asks the platform for the campaigns of the platform account and leaves out those already imported.',
  ...common,
  summary: 'Campaigns of a platform account not imported yet (asks the platform)',
  request: { params: z.object({ id: idParam() }) },
  responses: {
    200: { description: 'Campaigns.', ...jsonContent(z.object({ campaigns: z.array(AvailableSchema) })) },
    ...errorResponses('get', {
      400: 'A malformed path id.',
      404: 'Unknown platform account.',
      422: 'The platform refuses the request (validation_failed: no_access, unknown_at_platform, refused_by_platform).',
      503: 'The platform is not answering (platform_unavailable; Retry-After), or the service is at capacity.',
    }),
  },
});
const importRoute = createRoute({
  method: 'post',
  path: `${P}/adplatform-accounts/id/{id}/campaigns`,
  operationId: 'importCampaign',
  ...common,
  summary: 'Import one campaign with its ad groups, keywords and ads (an IMPORT_CAMPAIGN job)',
  description:
    'campaignGroup is required. Importing an imported campaign again is a no-op whose job result says alreadyImported. Whether the platform knows adPlatformId is found out by the job.',
  middleware: [acceptJson()] as const,
  request: {
    params: z.object({ id: idParam() }),
    headers: z.object({ 'Idempotency-Key': IDEMPOTENCY_KEY }),
    body: { required: true, ...jsonContent(ImportBody) },
  },
  responses: {
    202: { description: 'The queued job.', headers: LOCATION, ...jsonContent(z.object({ job: JobSchema })) },
    ...errorResponses('post', {
      400: 'The request cannot be read: malformed JSON, a body that is not {"campaign": {...}}, a malformed path id or Idempotency-Key.',
      404: 'Unknown platform account.',
      413: true,
      415: true,
      422: 'campaignGroup or adPlatformId missing or invalid (validation_failed), or the Idempotency-Key belongs to another request (idempotency_key_reused).',
    }),
  },
});
const listRoute = createRoute({
  method: 'get',
  path: `${P}/campaigns`,
  operationId: 'listCampaigns',
  description:
    'Sorted by id; accountId keeps the campaigns of platform accounts linked to that account, adPlatformAccountId those of one platform account.',
  ...common,
  summary: 'Imported campaigns, by id',
  request: {
    query: z.object({
      accountId: queryId('Only campaigns of platform accounts linked to this account.'),
      adPlatformAccountId: queryId('Only campaigns of this platform account.'),
      ...pagingQuery(100),
    }),
  },
  responses: {
    200: {
      description: 'One page.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ campaigns: z.array(CampaignSchema) })),
    },
    ...errorResponses('get', { 400: BAD_QUERY }),
  },
});
const getRoute = createRoute({
  method: 'get',
  path: `${P}/campaigns/id/{id}`,
  operationId: 'getCampaign',
  description: 'With its campaign group (the label set at import) and its client labels.',
  ...common,
  summary: 'One imported campaign',
  request: { params: z.object({ id: idParam() }) },
  responses: {
    200: { description: 'The campaign.', ...jsonContent(z.object({ campaign: CampaignSchema })) },
    ...errorResponses('get', { 400: 'A malformed path id.', 404: 'Unknown id.' }),
  },
});

function idFilter(query: QueryParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) invalidParameter(name, 'must be an integer id');
  return Number(text);
}

export function registerCampaignRoutes(app: OpenAPIHono<AppEnv>, campaigns: CampaignService): void {
  app.openapi(availableRoute, async (c) => {
    const list = await campaigns.availableCampaigns(
      c.get('auth').organizationId,
      pathId(c.req.valid('param').id, 'ad platform account'),
    );
    return c.json({ campaigns: list.map(({ adPlatformId, name, status }) => ({ adPlatformId, name, status })) }, 200);
  });
  app.openapi(importRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof ImportBody>;
    const job = await campaigns.requestImport(
      c.get('auth').organizationId,
      pathId(c.req.valid('param').id, 'ad platform account'),
      body.campaign,
      idempotencyOf(c, body),
    );
    return c.json({ job: toJobResponse(job) }, 202, { Location: `${P}/jobs/id/${job.id}` });
  });
  app.openAPIRegistry.registerPath(listRoute);
  app.get(listRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['accountId', 'adPlatformAccountId', 'limit', 'offset']);
    const filter = {
      accountId: idFilter(query, 'accountId'),
      adPlatformAccountId: idFilter(query, 'adPlatformAccountId'),
    };
    const { total, campaigns: page } = await campaigns.list(
      c.get('auth').organizationId,
      filter,
      parsePaging(query, 100, 100),
    );
    return c.json({ campaigns: page }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getRoute, async (c) => {
    const campaign = await campaigns.get(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'campaign'));
    return c.json({ campaign }, 200);
  });
}
