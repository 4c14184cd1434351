import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  MARKUP_RATE_DECIMALS,
  MARKUP_RATE_MAX,
  markupCreateSchema,
  type MarkupCreate,
} from '../../provisioning/markups/markup-schema.js';
import { markupTag, type MarkupService } from '../../provisioning/markups/markup-service.js';
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
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, LOCATION, TOTAL_COUNT } from '../openapi-helpers.js';
import { pagingQuery } from '../openapi-parameters.js';
import { idParam, pathId } from '../path-ids.js';
import { parsePaging, QueryParams } from '../../shared/query-params.js';

const BASE = '/provisioning/v0/accounts/id/{id}/markups';

const MarkupSchema = z
  .object({
    id: z.number().int(),
    accountId: z.number().int(),
    rate: z.number().openapi({
      minimum: 0,
      maximum: MARKUP_RATE_MAX,
      description: `Fraction on top of cost: costWithMarkup = cost x (1 + rate); 0-${MARKUP_RATE_MAX}, at most ${MARKUP_RATE_DECIMALS} decimals.`,
    }),
    startDate: z.string().openapi({ format: 'date', example: '2026-01-01' }),
    endDate: z.string().nullable().openapi({
      format: 'date',
      description: 'Last day of the period (inclusive); null: open-ended.',
      example: '2026-01-31',
    }),
  })
  .openapi('Markup');
const CreateBody = z.strictObject({ markup: markupCreateSchema }).openapi('MarkupCreate');
const AccountParam = z.object({ id: idParam() });
const MarkupParams = z.object({ id: idParam(), mid: idParam('mid') });

const common = { tags: ['Markups'], ...bearer('provisioning') };
const NO_ACCOUNT = 'No such account in this organization.';
const NO_MARKUP = 'No such account, or no such markup of it.';
const MarkupEnvelope = z.object({ markup: MarkupSchema });

const listRoute = createRoute({
  method: 'get',
  path: BASE,
  operationId: 'listMarkups',
  description: 'Periods of one account, sorted by startDate then id; X-TotalCount counts all of them.',
  ...common,
  summary: "The account's markup periods, by startDate then id",
  request: { params: AccountParam, query: z.object(pagingQuery(100)) },
  responses: {
    200: {
      description: 'One page.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ markups: z.array(MarkupSchema) })),
    },
    ...errorResponses('get', {
      400: 'A query parameter breaks its rules, or a malformed path id; details name it.',
      404: NO_ACCOUNT,
    }),
  },
});
const createMarkupRoute = createRoute({
  method: 'post',
  path: BASE,
  operationId: 'createMarkup',
  ...common,
  summary: 'Add a markup period to the account',
  description:
    'Periods of one account must not overlap; both ends count, so a period ending 2026-01-31 and one starting 2026-02-01 may coexist, two sharing a day may not. endDate null or missing: open-ended.',
  middleware: [acceptJson()] as const,
  request: { params: AccountParam, body: { required: true, ...jsonContent(CreateBody) } },
  responses: {
    201: { description: 'Created.', headers: { ...LOCATION, ...RESOURCE_ETAG }, ...jsonContent(MarkupEnvelope) },
    ...errorResponses('post', {
      400: 'The request cannot be read: malformed JSON, a body that is not {"markup": {...}}, or a malformed path id.',
      404: NO_ACCOUNT,
      413: true,
      415: true,
      422: 'A rule is broken (validation_failed: rate, dates, endDate before startDate (before_start), too_precise), or the period overlaps another markup of the account (overlapping_period names it).',
    }),
  },
});
const getMarkupRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{mid}`,
  operationId: 'getMarkup',
  description: 'One markup period of the account, with its ETag (for a conditional DELETE).',
  ...common,
  summary: 'One markup period',
  request: { params: MarkupParams, headers: z.object({ 'If-None-Match': IF_NONE_MATCH }) },
  responses: {
    200: { description: 'The markup.', headers: RESOURCE_ETAG, ...jsonContent(MarkupEnvelope) },
    ...RESOURCE_NOT_MODIFIED,
    ...errorResponses('get', { 400: 'A malformed path id.', 404: NO_MARKUP }),
  },
});
const deleteRoute = createRoute({
  method: 'delete',
  path: `${BASE}/id/{mid}`,
  operationId: 'deleteMarkup',
  description: 'Costs of the days the period covered are reported without markup afterwards.',
  ...common,
  summary: 'Remove a markup period',
  request: { params: MarkupParams, headers: CONDITIONAL_WRITE_HEADERS },
  responses: {
    204: { description: 'Removed; empty body.' },
    ...errorResponses('delete', {
      400: 'A malformed path id, or an If-Match / If-None-Match that is not * or a list of entity-tags (invalid_header).',
      404: NO_MARKUP,
      412: true,
      413: true,
    }),
  },
});

export function registerMarkupRoutes(app: OpenAPIHono<AppEnv>, markups: MarkupService): void {
  app.openapi(listRoute, async (c) => {
    const accountId = pathId(c.req.valid('param').id, 'account');
    // Parsed again by hand, as the other lists do, so unknown and repeated parameters are refused.
    const page = parsePaging(QueryParams.parse(c.req.url, ['limit', 'offset']), 100, 100);
    const { total, markups: rows } = await markups.list(c.get('auth').organizationId, accountId, page);
    return c.json({ markups: rows }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(createMarkupRoute, async (c) => {
    const accountId = pathId(c.req.valid('param').id, 'account');
    const body = c.req.valid('json') as { markup: MarkupCreate };
    const markup = await markups.create(c.get('auth').organizationId, accountId, body.markup);
    return c.json({ markup }, 201, {
      Location: `/provisioning/v0/accounts/id/${accountId}/markups/id/${markup.id}`,
      ...resourceTagHeaders(c, markupTag(markup)),
    });
  });
  app.openapi(getMarkupRoute, async (c) => {
    const params = c.req.valid('param');
    const markup = await markups.get(
      c.get('auth').organizationId,
      pathId(params.id, 'account'),
      pathId(params.mid, 'markup', 'mid'),
    );
    const etag = markupTag(markup);
    return resourceNotModified(c, etag) ?? c.json({ markup }, 200, resourceTagHeaders(c, etag));
  });
  app.openapi(deleteRoute, async (c) => {
    const params = c.req.valid('param');
    // The headers first: a malformed one is a 400 whether or not the markup exists.
    const precondition = writePrecondition(c);
    await markups.delete(
      c.get('auth').organizationId,
      pathId(params.id, 'account'),
      pathId(params.mid, 'markup', 'mid'),
      precondition,
    );
    return c.body(null, 204);
  });
}
