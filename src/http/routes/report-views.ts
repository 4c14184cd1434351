import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ENDPOINTS } from '../../catalog/endpoints.js';
import {
  VIEW_NAME_MAX,
  VIEWS_PER_ORGANIZATION,
  type ReportViewService,
} from '../../report-views/report-view-service.js';
import { parsePaging, QueryParams } from '../../shared/query-params.js';
import { ruleIssue, SINGLE_LINE_NOT_BLANK, singleLine } from '../../shared/zod-rules.js';
import type { AppEnv } from '../context.js';
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, LOCATION, TOTAL_COUNT } from '../openapi-helpers.js';
import { pagingQuery } from '../openapi-parameters.js';
import { idParam, pathId } from '../path-ids.js';

/** Saved report views (issue 43): a statistics request saved by name, shared by the organization's clients. */
const BASE = '/reporting/v0/views';
const common = { tags: ['Reporting'], ...bearer('reporting') };
const ENDPOINT_PATHS = ENDPOINTS.map((e) => e.path) as [string, ...string[]];
const NO_VIEW = "No such view in this organization (another organization's is not found either).";

const QUERY_VALUE = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

const name = singleLine(
  z
    .string()
    .min(1, `must be 1-${VIEW_NAME_MAX} characters`)
    .max(VIEW_NAME_MAX, `must be at most ${VIEW_NAME_MAX} characters`),
)
  .superRefine((value, ctx) => {
    if (value.trim() === '') ctx.addIssue(ruleIssue('blank', 'must not be blank'));
  })
  .meta({
    pattern: SINGLE_LINE_NOT_BLANK.source,
    maxLength: VIEW_NAME_MAX,
    description: `1-${VIEW_NAME_MAX} characters, not only white space, no control characters; unique in the organization (exactly as given: "Weekly" and "weekly" are two names).`,
    example: 'Campaigns by device, last 30 days',
  });

const ReportViewCreate = z
  .strictObject({
    view: z.strictObject({
      name,
      endpoint: z.enum(ENDPOINT_PATHS).openapi({
        description: 'The statistics endpoint below /reporting/v0 the view opens (as report jobs take it).',
        example: 'campaigns',
      }),
      query: z
        .record(z.string(), QUERY_VALUE)
        .optional()
        .openapi({
          description:
            "The endpoint's GET query parameters (startDate, endDate, dateRange, statistics, segments, filter, sort, formulas, currency, compare, totals, limit, offset, ...), without format. Values as in the URL; a list repeats the parameter (formulas; a list parameter such as segments as a list or a comma text). Validated exactly as the GET validates them: the same 400s. Default: none (the endpoint's defaults).",
          example: { dateRange: 'LAST_30_DAYS', segments: 'DeviceType', statistics: 'clicks,cost,ctr' },
        }),
      chart: z.string().max(200).nullable().optional().openapi({
        description:
          'What the chart draws: a statistic the endpoint offers (clicks or statistics.clicks) or formulas.<name> of a formula in query.formulas; otherwise 422. Null or absent: none chosen.',
        example: 'clicks',
      }),
    }),
  })
  .openapi('ReportViewCreate');

const ReportViewSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    endpoint: z.enum(ENDPOINT_PATHS),
    query: z
      .record(z.string(), z.union([z.string(), z.array(z.string())]))
      .openapi({ description: 'As sent, every value text; a parameter given several times a list.' }),
    chart: z.string().nullable(),
    path: z.string().openapi({
      description:
        'The report the view opens: /reporting/v0/<endpoint>?<query>, percent-encoded, to GET with the same token (append format= for an export).',
      example: '/reporting/v0/campaigns?dateRange=LAST_30_DAYS&segments=DeviceType&statistics=clicks%2Ccost%2Cctr',
    }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    createdBy: z.string().openapi({ description: 'The client id of the client that saved it.' }),
  })
  .openapi('ReportView');

const IdParam = z.object({ id: idParam() });

const createReportViewRoute = createRoute({
  method: 'post',
  path: BASE,
  operationId: 'createReportView',
  ...common,
  summary: 'Save a report view by name',
  description: `A statistics request (endpoint, its GET parameters, what the chart draws) saved under a name, listed and opened by every client of the organization. The query is validated as the GET validates it before the view exists. At most ${VIEWS_PER_ORGANIZATION} views per organization.`,
  middleware: [acceptJson()] as const,
  request: { body: { required: true, ...jsonContent(ReportViewCreate) } },
  responses: {
    201: {
      description: 'Saved.',
      headers: LOCATION,
      ...jsonContent(z.object({ view: ReportViewSchema })),
    },
    ...errorResponses('post', {
      400: 'The request cannot be read (malformed JSON, not {"view": {...}}), or a query parameter breaks the rules of the GET (invalid_parameter, unknown_parameter, format given); details name it.',
      409: `Another view of the organization has this name (view_name_taken), or the organization has ${VIEWS_PER_ORGANIZATION} views already (too_many_views).`,
      413: true,
      415: true,
      422: 'A rule is broken (validation_failed); details name the field: name empty, blank, too long or with control characters; endpoint not one of the listed; chart naming no statistic of the endpoint (unknown_statistic) or no formula of the query (unknown_formula).',
    }),
  },
});

const listReportViewsRoute = createRoute({
  method: 'get',
  path: BASE,
  operationId: 'listReportViews',
  ...common,
  summary: "The organization's saved views, by name",
  description: 'Sorted by name (by Unicode code point), then id; every client of the organization sees the same list.',
  request: { query: z.object(pagingQuery(100)) },
  responses: {
    200: {
      description: 'One page.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ views: z.array(ReportViewSchema) })),
    },
    ...errorResponses('get', {
      400: 'A query parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.',
    }),
  },
});

const getReportViewRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}`,
  operationId: 'getReportView',
  ...common,
  summary: 'One saved view',
  description: 'With path, the GET of the report it opens.',
  request: { params: IdParam },
  responses: {
    200: { description: 'The view.', ...jsonContent(z.object({ view: ReportViewSchema })) },
    ...errorResponses('get', { 400: 'A malformed path id.', 404: NO_VIEW }),
  },
});

const deleteReportViewRoute = createRoute({
  method: 'delete',
  path: `${BASE}/id/{id}`,
  operationId: 'deleteReportView',
  ...common,
  summary: 'Delete a saved view',
  description: 'For every client of the organization; its name is free again.',
  request: { params: IdParam },
  responses: {
    204: { description: 'Deleted; empty body.' },
    ...errorResponses('delete', { 400: 'A malformed path id.', 404: NO_VIEW, 413: true }),
  },
});

export function registerReportViewRoutes(app: OpenAPIHono<AppEnv>, views: ReportViewService): void {
  app.openapi(createReportViewRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof ReportViewCreate>;
    const auth = c.get('auth');
    const view = await views.create(auth.organizationId, auth.clientId, body.view);
    return c.json({ view }, 201, { Location: `${BASE}/id/${view.id}` });
  });
  app.openapi(listReportViewsRoute, async (c) => {
    const page = parsePaging(QueryParams.parse(c.req.url, ['limit', 'offset']), 100, 100);
    const { total, views: rows } = await views.list(c.get('auth').organizationId, page);
    return c.json({ views: rows }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getReportViewRoute, async (c) => {
    const view = await views.get(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'view'));
    return c.json({ view }, 200);
  });
  app.openapi(deleteReportViewRoute, async (c) => {
    await views.delete(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'view'));
    return c.body(null, 204);
  });
}
