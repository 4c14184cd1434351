import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { toJobResponse } from '../../jobs/job-service.js';
import { AD_PLATFORM_TYPES } from '../../platforms/connector.js';
import type { CampaignService } from '../../provisioning/campaigns/campaign-service.js';
import type { AppEnv } from '../context.js';
import { idempotencyOf } from '../idempotency.js';
import { acceptJson } from '../middleware/content-type.js';
import { jsonContent } from '../openapi-helpers.js';
import { idParam, pathId } from '../path-ids.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { singleLine } from '../../shared/zod-rules.js';
import { JobSchema } from './jobs.js';

const P = '/provisioning/v0';
const secured = { security: [{ bearerAuth: [] }] };

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
    importedAt: z.string(),
  })
  .openapi('Campaign');
const AvailableSchema = z.object({ adPlatformId: z.string(), name: z.string(), status: z.string() }).openapi('AvailableCampaign');
const ImportBody = z.strictObject({
  campaign: z.strictObject({
    adPlatformId: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    campaignGroup: singleLine(z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters')),
  }),
});

const availableRoute = createRoute({
  method: 'get',
  path: `${P}/adplatform-accounts/id/{id}/available-campaigns`,
  summary: 'Campaigns of a platform account not imported yet (asks the platform)',
  ...secured,
  request: { params: z.object({ id: idParam() }) },
  responses: { 200: { description: 'Campaigns.', ...jsonContent(z.object({ campaigns: z.array(AvailableSchema) })) }, 404: { description: 'Unknown platform account.' }, 503: { description: 'Platform down.' } },
});
const importRoute = createRoute({
  method: 'post',
  path: `${P}/adplatform-accounts/id/{id}/campaigns`,
  summary: 'Import one campaign with its ad groups, keywords and ads (an IMPORT_CAMPAIGN job)',
  description: 'campaignGroup is required. Importing an imported campaign again is a no-op whose job result says alreadyImported.',
  middleware: [acceptJson()] as const,
  ...secured,
  request: { params: z.object({ id: idParam() }), body: { required: true, ...jsonContent(ImportBody) } },
  responses: { 202: { description: 'The queued job.', ...jsonContent(z.object({ job: JobSchema })) }, 404: { description: 'Unknown platform account.' }, 422: { description: 'campaignGroup missing or invalid.' } },
});
const listRoute = createRoute({
  method: 'get',
  path: `${P}/campaigns`,
  summary: 'Imported campaigns, by id',
  ...secured,
  request: { query: z.object({ accountId: z.string().optional(), adPlatformAccountId: z.string().optional(), limit: z.string().optional(), offset: z.string().optional() }) },
  responses: { 200: { description: 'One page; X-TotalCount counts all.', ...jsonContent(z.object({ campaigns: z.array(CampaignSchema) })) } },
});
const getRoute = createRoute({
  method: 'get',
  path: `${P}/campaigns/id/{id}`,
  summary: 'One imported campaign',
  ...secured,
  request: { params: z.object({ id: idParam() }) },
  responses: { 200: { description: 'The campaign.', ...jsonContent(z.object({ campaign: CampaignSchema })) }, 404: { description: 'Unknown id.' } },
});

function idFilter(query: QueryParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) invalidParameter(name, 'must be an integer id');
  return Number(text);
}

export function registerCampaignRoutes(app: OpenAPIHono<AppEnv>, campaigns: CampaignService): void {
  app.openapi(availableRoute, async (c) => {
    const list = await campaigns.availableCampaigns(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'ad platform account'));
    return c.json({ campaigns: list.map(({ adPlatformId, name, status }) => ({ adPlatformId, name, status })) }, 200);
  });
  app.openapi(importRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof ImportBody>;
    const job = await campaigns.requestImport(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'ad platform account'), body.campaign, idempotencyOf(c, body));
    return c.json({ job: toJobResponse(job) }, 202, { Location: `${P}/jobs/id/${job.id}` });
  });
  app.openAPIRegistry.registerPath(listRoute);
  app.get(listRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['accountId', 'adPlatformAccountId', 'limit', 'offset']);
    const filter = { accountId: idFilter(query, 'accountId'), adPlatformAccountId: idFilter(query, 'adPlatformAccountId') };
    const { total, campaigns: page } = await campaigns.list(c.get('auth').organizationId, filter, parsePaging(query, 100, 100));
    return c.json({ campaigns: page }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getRoute, async (c) => {
    const campaign = await campaigns.get(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'campaign'));
    return c.json({ campaign }, 200);
  });
}
