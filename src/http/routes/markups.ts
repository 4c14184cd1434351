import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { MARKUP_RATE_DECIMALS, MARKUP_RATE_MAX, markupCreateSchema, type MarkupCreate } from '../../provisioning/markups/markup-schema.js';
import type { MarkupService } from '../../provisioning/markups/markup-service.js';
import type { AppEnv } from '../context.js';
import { acceptJson } from '../middleware/content-type.js';
import { jsonContent } from '../openapi-helpers.js';
import { idParam, pathId } from '../path-ids.js';
import { parsePaging, QueryParams } from '../../shared/query-params.js';

const BASE = '/provisioning/v0/accounts/id/{id}/markups';
const secured = { security: [{ bearerAuth: [] }] };

const MarkupSchema = z
  .object({
    id: z.number().int(),
    accountId: z.number().int(),
    rate: z.number().openapi({ description: `Fraction on top of cost: costWithMarkup = cost x (1 + rate); 0-${MARKUP_RATE_MAX}, at most ${MARKUP_RATE_DECIMALS} decimals.` }),
    startDate: z.string().openapi({ example: '2026-01-01' }),
    endDate: z.string().nullable().openapi({ description: 'Last day of the period (inclusive); null: open-ended.', example: '2026-01-31' }),
  })
  .openapi('Markup');
const CreateBody = z.strictObject({ markup: markupCreateSchema }).openapi('MarkupCreate');
const AccountParam = z.object({ id: idParam() });
const MarkupParams = z.object({ id: idParam(), mid: idParam('mid') });

const listRoute = createRoute({
  method: 'get',
  path: BASE,
  summary: "The account's markup periods, by startDate then id",
  ...secured,
  request: {
    params: AccountParam,
    query: z.object({
      limit: z.string().optional().openapi({ description: 'Page size, 1-100 (default 100).' }),
      offset: z.string().optional().openapi({ description: '0 or a multiple of limit.' }),
    }),
  },
  responses: {
    200: { description: 'One page; X-TotalCount counts all pages.', headers: { 'X-TotalCount': { schema: { type: 'integer' } } }, ...jsonContent(z.object({ markups: z.array(MarkupSchema) })) },
    400: { description: 'A bad parameter, named in the error.' },
    404: { description: 'No such account in this organization.' },
  },
});
const createMarkupRoute = createRoute({
  method: 'post',
  path: BASE,
  summary: 'Add a markup period to the account',
  description: 'Periods of one account must not overlap; both ends count, so a period ending 2026-01-31 and one starting 2026-02-01 may coexist, two sharing a day may not. endDate null or missing: open-ended.',
  middleware: [acceptJson()] as const,
  ...secured,
  request: { params: AccountParam, body: { required: true, ...jsonContent(CreateBody) } },
  responses: {
    201: { description: 'Created.', ...jsonContent(z.object({ markup: MarkupSchema })) },
    400: { description: 'Unreadable request (malformed JSON, not {markup: {...}}, bad path id).' },
    404: { description: 'No such account in this organization.' },
    415: { description: 'The body is not JSON.' },
    422: { description: 'A rule is broken (rate, dates, endDate before startDate), or the period overlaps another markup of the account (overlapping_period names it).' },
  },
});
const deleteRoute = createRoute({
  method: 'delete',
  path: `${BASE}/id/{mid}`,
  summary: 'Remove a markup period',
  ...secured,
  request: { params: MarkupParams },
  responses: { 204: { description: 'Removed; empty body.' }, 404: { description: 'No such account or markup (empty body, as for every DELETE error).' } },
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
    return c.json({ markup }, 201, { Location: `/provisioning/v0/accounts/id/${accountId}/markups/id/${markup.id}` });
  });
  app.openapi(deleteRoute, async (c) => {
    const params = c.req.valid('param');
    await markups.delete(c.get('auth').organizationId, pathId(params.id, 'account'), pathId(params.mid, 'markup', 'mid'));
    return c.body(null, 204);
  });
}
