import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { toJobResponse } from '../../provisioning/job-queue.js';
import type { CampaignCopyService } from '../../provisioning/campaigns/campaign-copy-service.js';
import type { AppEnv } from '../context.js';
import { IDEMPOTENCY_KEY, idempotencyOf } from '../idempotency.js';
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, LOCATION } from '../openapi-helpers.js';
import { JobSchema } from './jobs.js';

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const campaignIds = z
  .array(id)
  .min(1, 'give at least one campaign id')
  .max(100, 'at most 100 campaigns at once')
  .refine((ids) => new Set(ids).size === ids.length, 'ids must be unique')
  .meta({ uniqueItems: true });

const CopyBody = z
  .strictObject({
    campaignCopy: z.strictObject({ sourceAdPlatformAccountId: id, targetAdPlatformAccountId: id, campaignIds }),
  })
  .openapi('CampaignCopyCreate');
const SyncBody = z.strictObject({ campaignIds }).openapi('CampaignCopySync');
const CopyResultSchema = z.object({
  sourceCampaignId: z.number().int(),
  targetCampaignId: z.number().int(),
  targetAdPlatformId: z.string(),
  changes: z.array(z.string()),
});
const FailureSchema = z.object({
  campaignId: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }),
});

const copyRoute = createRoute({
  method: 'post',
  path: '/provisioning/v0/campaign-copies',
  operationId: 'copyCampaigns',
  description:
    'Source and target are one GOOGLE_ADS and one MICROSOFT_ADVERTISING platform account in the same currency; the campaigns must be imported from the source. The job result lists the copies and the campaigns that failed. Send Idempotency-Key to make retries safe.',
  tags: ['Campaigns'],
  summary: 'Copy imported campaigns from GOOGLE_ADS to MICROSOFT_ADVERTISING or back (a COPY_CAMPAIGNS job)',
  middleware: [acceptJson()] as const,
  ...bearer('provisioning'),
  request: {
    headers: z.object({ 'Idempotency-Key': IDEMPOTENCY_KEY }),
    body: { required: true, ...jsonContent(CopyBody) },
  },
  responses: {
    202: {
      description: 'The queued job; its result lists copies and failures.',
      headers: LOCATION,
      ...jsonContent(z.object({ job: JobSchema })),
    },
    ...errorResponses('post', {
      400: 'The request cannot be read: malformed JSON, a body that is not {"campaignCopy": {...}}, or a malformed Idempotency-Key.',
      413: true,
      415: true,
      422: 'A field breaks a rule, or the copy cannot start (validation_failed): unknown platform accounts or campaigns (unknown), not one GOOGLE_ADS and one MICROSOFT_ADVERTISING account (not_allowed), other currencies (currency_mismatch); or the Idempotency-Key belongs to another request (idempotency_key_reused).',
    }),
  },
});
const syncRoute = createRoute({
  method: 'post',
  path: '/provisioning/v0/campaign-copies/sync',
  operationId: 'syncCampaignCopies',
  tags: ['Campaigns'],
  summary: 'Re-push existing copies of the given source campaigns (bulk, partial errors)',
  description:
    'Each campaign succeeds or fails on its own (spec 4.2): unknown campaigns and campaigns without copies are listed under failed.',
  middleware: [acceptJson()] as const,
  ...bearer('provisioning'),
  request: { body: { required: true, ...jsonContent(SyncBody) } },
  responses: {
    200: {
      description: 'What was synced and what failed, per campaign.',
      ...jsonContent(z.object({ synced: z.array(CopyResultSchema), failed: z.array(FailureSchema) })),
    },
    ...errorResponses('post', {
      400: 'The request cannot be read: malformed JSON, or a body that is not {"campaignIds": [...]} (campaignIds missing, not a list of 1-100 distinct positive ids).',
      413: true,
      415: true,
      422: 'An entry of campaignIds is not a positive int64 (validation_failed).',
    }),
  },
});

export function registerCampaignCopyRoutes(app: OpenAPIHono<AppEnv>, copies: CampaignCopyService): void {
  app.openapi(copyRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof CopyBody>;
    const job = await copies.requestCopy(c.get('auth').organizationId, body.campaignCopy, idempotencyOf(c, body));
    return c.json({ job: toJobResponse(job) }, 202, { Location: `/provisioning/v0/jobs/id/${job.id}` });
  });
  app.openapi(syncRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof SyncBody>;
    return c.json(await copies.sync(c.get('auth').organizationId, body.campaignIds), 200);
  });
}
