import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { EVENT_TYPES } from '../../events/event-log.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { WEBHOOKS_PER_ORGANIZATION, webhookCreateSchema, type WebhookCreate } from '../../webhooks/webhook-schema.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../webhooks/webhook-store.js';
import { webhookTag, type WebhookService } from '../../webhooks/webhook-service.js';
import {
  CONDITIONAL_WRITE_HEADERS,
  IF_NONE_MATCH,
  RESOURCE_ETAG,
  RESOURCE_NOT_MODIFIED,
  resourceNotModified,
  resourceTagHeaders,
  writePrecondition,
} from '../conditional.js';
import type { AppEnv } from '../context.js';
import type { OperationRate } from '../operation-rate.js';
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, LOCATION, TOTAL_COUNT } from '../openapi-helpers.js';
import { pagingQuery } from '../openapi-parameters.js';
import { idParam, pathId } from '../path-ids.js';

const BASE = '/provisioning/v0/webhooks';
/** The defaults (config rateLimit.redeliveriesPerMinute, redeliveryBurst), as the document states them. */
const REDELIVERY_LIMIT_TEXT =
  '20 at once, then 60 per minute per organization by default (ADREPORT_REDELIVERY_RATE_LIMIT_BURST, ADREPORT_REDELIVERY_RATE_LIMIT_PER_MINUTE)';
const common = { tags: ['Webhooks'], ...bearer('provisioning') };
const NO_WEBHOOK = "No such webhook in this organization (another organization's is not found either).";

const WebhookSchema = z
  .object({
    id: z.number().int(),
    url: z.string().openapi({ format: 'uri' }),
    events: z.array(z.enum(EVENT_TYPES)),
    description: z.string().nullable(),
    createdAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Webhook');
const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().openapi({
    description:
      'The signing secret (whsec_...), shown in this answer only: store it now. Deliveries carry Adreport-Signature: t=<unix seconds>, v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with this string>.',
  }),
}).openapi('WebhookWithSecret');
const AttemptSchema = z.object({
  at: z.string().openapi({ format: 'date-time' }),
  statusCode: z.number().int().nullable().openapi({ description: "The receiver's status; null when none came." }),
  error: z.string().nullable().openapi({
    description: 'Why the attempt failed (a non-2xx status, timeout, refused address, TLS); null when delivered.',
  }),
  durationMs: z.number().int(),
});
const DeliverySchema = z
  .object({
    id: z.number().int(),
    webhookId: z.number().int(),
    eventId: z.string().openapi({
      example: 'evt_Q2xhdWRlIHdhcyBoZXJlIQ',
      description: 'The `id` of the delivered JSON: the same for every attempt and redelivery of an event.',
    }),
    eventType: z.enum(EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES).openapi({
      description:
        'PENDING (not delivered yet: due at nextAttemptAt), DELIVERED (a 2xx came), FAILED (no 2xx within 24 hours).',
    }),
    attempts: z.number().int(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    nextAttemptAt: z.string().nullable().openapi({ format: 'date-time' }),
    lastAttemptAt: z.string().nullable().openapi({ format: 'date-time' }),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: z.string().nullable().openapi({ format: 'date-time' }),
    attemptLog: z.array(AttemptSchema).openapi({ description: 'Every attempt, oldest first (at most the last 50).' }),
  })
  .openapi('WebhookDelivery');

const IdParam = z.object({ id: idParam() });
const DeliveryParams = z.object({ id: idParam(), deliveryId: idParam('deliveryId') });

const createWebhookRoute = createRoute({
  method: 'post',
  path: BASE,
  operationId: 'createWebhook',
  ...common,
  summary: 'Subscribe an HTTPS endpoint to events; the signing secret is shown once',
  description: `Events: job.succeeded, job.failed (every job, report jobs too), statistics.synced, link.no_access. Each is POSTed as JSON {id, type, createdAt, data}, signed, retried with exponential backoff for 24 hours until a 2xx (README: Webhooks). At most ${WEBHOOKS_PER_ORGANIZATION} webhooks per organization.`,
  middleware: [acceptJson()] as const,
  request: {
    body: { required: true, ...jsonContent(z.strictObject({ webhook: webhookCreateSchema }).openapi('WebhookCreate')) },
  },
  responses: {
    201: {
      description: 'Created. ETag is that of the webhook as GET shows it (without the secret).',
      headers: { ...LOCATION, ...RESOURCE_ETAG },
      ...jsonContent(z.object({ webhook: CreatedWebhookSchema })),
    },
    ...errorResponses('post', {
      400: 'The request cannot be read: malformed JSON or a body that is not {"webhook": {...}}.',
      409: `The organization has ${WEBHOOKS_PER_ORGANIZATION} webhooks already (too_many_webhooks).`,
      413: true,
      415: true,
      422: 'A rule is broken (validation_failed); details name the field: url not matching its pattern (not https, user:password@, #fragment: invalid_format), a host that does not resolve (host_not_found) or resolves to a loopback, private or link-local address (private_address); events empty, unknown or repeated (duplicate); description too long or with control characters.',
    }),
  },
});
const listWebhooksRoute = createRoute({
  method: 'get',
  path: BASE,
  operationId: 'listWebhooks',
  ...common,
  summary: "The organization's webhooks, by id",
  description: 'Secrets are never shown again.',
  request: { query: z.object(pagingQuery(100)) },
  responses: {
    200: {
      description: 'One page.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ webhooks: z.array(WebhookSchema) })),
    },
    ...errorResponses('get', {
      400: 'A query parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.',
    }),
  },
});
const getWebhookRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}`,
  operationId: 'getWebhook',
  ...common,
  summary: 'One webhook',
  description: 'The secret is not shown.',
  request: { params: IdParam, headers: z.object({ 'If-None-Match': IF_NONE_MATCH }) },
  responses: {
    200: { description: 'The webhook.', headers: RESOURCE_ETAG, ...jsonContent(z.object({ webhook: WebhookSchema })) },
    ...RESOURCE_NOT_MODIFIED,
    ...errorResponses('get', { 400: 'A malformed path id.', 404: NO_WEBHOOK }),
  },
});
const deleteWebhookRoute = createRoute({
  method: 'delete',
  path: `${BASE}/id/{id}`,
  operationId: 'deleteWebhook',
  ...common,
  summary: 'Remove a webhook',
  description: 'Its pending deliveries are not sent and its delivery log goes with it.',
  request: { params: IdParam, headers: CONDITIONAL_WRITE_HEADERS },
  responses: {
    204: { description: 'Removed; empty body.' },
    ...errorResponses('delete', {
      400: 'A malformed path id, or an If-Match / If-None-Match that is not * or a list of entity-tags (invalid_header).',
      404: NO_WEBHOOK,
      412: true,
      413: true,
    }),
  },
});
const listDeliveriesRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}/deliveries`,
  operationId: 'listWebhookDeliveries',
  ...common,
  summary: 'The delivery log of a webhook, newest first',
  description: 'Deliveries of the last seven days (pending ones until they end), each with its attempts.',
  request: {
    params: IdParam,
    query: z.object({
      status: z.enum(DELIVERY_STATUSES).optional().openapi({ description: 'Only deliveries in this status.' }),
      ...pagingQuery(100),
    }),
  },
  responses: {
    200: {
      description: 'One page.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ deliveries: z.array(DeliverySchema) })),
    },
    ...errorResponses('get', {
      400: 'A query parameter breaks its rules, or a malformed path id; details name it.',
      404: NO_WEBHOOK,
    }),
  },
});
const getDeliveryRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}/deliveries/id/{deliveryId}`,
  operationId: 'getWebhookDelivery',
  ...common,
  summary: 'One delivery of a webhook, with its attempts',
  description: 'Status, attempts and the log of each attempt (status code, error, duration).',
  request: { params: DeliveryParams },
  responses: {
    200: { description: 'The delivery.', ...jsonContent(z.object({ delivery: DeliverySchema })) },
    ...errorResponses('get', {
      400: 'A malformed path id.',
      404: 'No such webhook in this organization, or no such delivery of it.',
    }),
  },
});
const redeliverRoute = createRoute({
  method: 'post',
  path: `${BASE}/id/{id}/deliveries/id/{deliveryId}/redeliveries`,
  operationId: 'redeliverWebhookDelivery',
  ...common,
  summary: "Send a delivery's event again",
  description:
    'Queues the same event (same id and body, a fresh signature) as a new delivery with its own attempts and 24-hour retry window; the old delivery stays in the log. No body.',
  request: { params: DeliveryParams },
  responses: {
    202: {
      description: 'Queued; the new delivery.',
      headers: LOCATION,
      ...jsonContent(z.object({ delivery: DeliverySchema })),
    },
    ...errorResponses('post', {
      400: 'A malformed path id.',
      404: 'No such webhook in this organization, or no such delivery of it.',
      413: true,
      429: `rate_limited: the client's token bucket is empty, or the organization's bucket of redeliveries is (each is an outbound POST: ${REDELIVERY_LIMIT_TEXT}). RateLimit-Policy and RateLimit list both policies ("per-client", "redeliveries"); Retry-After says when the next is let in.`,
    }),
  },
});

export function registerWebhookRoutes(
  app: OpenAPIHono<AppEnv>,
  webhooks: WebhookService,
  redeliveryRate: OperationRate,
): void {
  app.openapi(createWebhookRoute, async (c) => {
    const body = c.req.valid('json') as { webhook: WebhookCreate };
    const { webhook, secret } = await webhooks.create(c.get('auth').organizationId, body.webhook);
    return c.json({ webhook: { ...webhook, secret } }, 201, {
      Location: `${BASE}/id/${webhook.id}`,
      ...resourceTagHeaders(c, webhookTag(webhook)),
    });
  });
  app.openapi(listWebhooksRoute, async (c) => {
    const page = parsePaging(QueryParams.parse(c.req.url, ['limit', 'offset']), 100, 100);
    const { total, webhooks: rows } = await webhooks.list(c.get('auth').organizationId, page);
    return c.json({ webhooks: rows }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getWebhookRoute, async (c) => {
    const webhook = await webhooks.get(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'webhook'));
    const etag = webhookTag(webhook);
    return resourceNotModified(c, etag) ?? c.json({ webhook }, 200, resourceTagHeaders(c, etag));
  });
  app.openapi(deleteWebhookRoute, async (c) => {
    // The headers first: a malformed one is a 400 whether or not the webhook exists.
    const precondition = writePrecondition(c);
    await webhooks.delete(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'webhook'), precondition);
    return c.body(null, 204);
  });
  app.openapi(listDeliveriesRoute, async (c) => {
    // The query first: a bad parameter is a 400 whether or not the webhook exists.
    const query = QueryParams.parse(c.req.url, ['status', 'limit', 'offset']);
    const status = query.get('status');
    if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status))
      invalidParameter('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    const page = parsePaging(query, 100, 100);
    const id = pathId(c.req.valid('param').id, 'webhook');
    const { total, deliveries } = await webhooks.deliveries(
      c.get('auth').organizationId,
      id,
      { status: status as DeliveryStatus | undefined },
      page,
    );
    return c.json({ deliveries }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getDeliveryRoute, async (c) => {
    const params = c.req.valid('param');
    const delivery = await webhooks.delivery(
      c.get('auth').organizationId,
      pathId(params.id, 'webhook'),
      pathId(params.deliveryId, 'delivery', 'deliveryId'),
    );
    return c.json({ delivery }, 200);
  });
  app.openapi(redeliverRoute, async (c) => {
    const params = c.req.valid('param');
    const webhookId = pathId(params.id, 'webhook');
    const deliveryId = pathId(params.deliveryId, 'delivery', 'deliveryId');
    const organizationId = c.get('auth').organizationId;
    const rate = await redeliveryRate.take(organizationId);
    const delivery = await webhooks.redeliver(organizationId, webhookId, deliveryId);
    return c.json({ delivery }, 202, {
      Location: `${BASE}/id/${webhookId}/deliveries/id/${delivery.id}`,
      ...rate,
    });
  });
}
