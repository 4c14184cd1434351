import { Readable, pipeline } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { createGzip } from 'node:zlib';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ENDPOINT_BY_PATH, ENDPOINTS, type ReportEndpoint } from '../../catalog/endpoints.js';
import { customFieldType, type LevelDefinition } from '../../catalog/levels.js';
import { SEGMENTS } from '../../catalog/segments.js';
import { DEFAULT_STATISTICS } from '../../catalog/statistics.js';
import type { ReportRequest } from '../../planner/report-plan.js';
import { commaList, MAX_LIMIT, parseReportQuery, REPORT_PARAMETERS, reportRequest } from '../../reporting/report-request.js';
import { CALL_DETAIL_FIELDS, listCallDetails } from '../../reporting/call-details.js';
import { listMarkupPeriods } from '../../reporting/markup-periods.js';
import type { ReportService } from '../../reporting/report-service.js';
import { isCalendarDay } from '../../shared/dates.js';
import type { Database } from '../../store/database.js';
import type { AppEnv } from '../context.js';
import { jsonPageBody } from '../json-page-body.js';
import { acceptsGzip, CONTENT_TYPES, responseFormat, type ResponseFormat } from '../export-negotiation.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';

/** Fast gzip: exports are large and the CPU is shared with DuckDB rendering them. */
const GZIP_LEVEL = 1;
function parseRequest(url: string, level: LevelDefinition, organizationId: number, accept: string | undefined): { request: ReportRequest; format: ResponseFormat } {
  const query = parseReportQuery(url, level);
  const format = responseFormat(query.get('format'), accept);
  return { request: reportRequest(query, level, organizationId, format), format };
}

/** The JSON page, or the whole result streamed as CSV, NDJSON or Parquet. */
async function respond(c: Context<AppEnv>, reports: ReportService, endpoint: ReportEndpoint, parsed: { request: ReportRequest; format: ResponseFormat }) {
  const { request, format } = parsed;
  if (format === 'json') {
    const page = await reports.run(endpoint, request);
    const totals = page.totals ? `,"totals":${JSON.stringify(page.totals)}` : '';
    const { body, length } = jsonPageBody(`{"${endpoint.level.plural}":`, page.rows, `${totals}}`);
    return c.body(body, 200, { 'Content-Type': 'application/json', 'Content-Length': String(length), 'X-TotalCount': String(page.total), Vary: 'Accept' });
  }
  const { plan, stream } = await reports.export(endpoint, request, format);
  // A client that took nothing for the idle timeout: close its connection, then the export stops as on a disconnect.
  stream.once('stalled', () => c.env?.outgoing?.destroy());
  const gzip = format !== 'parquet' && acceptsGzip(c.req.header('accept-encoding'));
  const body = gzip ? pipeline(stream, createGzip({ level: GZIP_LEVEL }), () => undefined) : stream;
  const path = request.campaignLabel ? `accounts/campaign-labels/name/${request.campaignLabel.name}` : endpoint.path;
  const base = `${path.replaceAll('/', '-')}_${plan.from}_${plan.to}`;
  return c.body(Readable.toWeb(body) as ReadableStream, 200, {
    'Content-Type': CONTENT_TYPES[format],
    'Content-Disposition': `attachment; filename="${base}.${format}"`,
    Vary: 'Accept, Accept-Encoding',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
}

const StatisticsSchema = z.record(z.string(), z.number().nullable());
const ReportRowSchema = z
  .object({
    id: z.number().int(),
    currency: z.string(),
    segments: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    statistics: StatisticsSchema,
    formulas: StatisticsSchema.optional(),
    labels: z.record(z.string(), z.string()).optional(),
    customFields: z.record(z.string(), z.union([z.string(), z.number()]).nullable()).optional(),
  })
  .passthrough()
  .openapi('ReportRow');

function routeOf(endpoint: ReportEndpoint) {
  const level = endpoint.level;
  const special = endpoint.platform === undefined ? '' : ` of ${endpoint.platform} platform accounts only, with ${endpoint.defaultStatistics.filter((s) => !(DEFAULT_STATISTICS as readonly string[]).includes(s.name)).map((s) => s.name).join(', ')} by default`;
  return createRoute({
    method: 'get',
    path: `/reporting/v0/${endpoint.path}`,
    summary: endpoint.summary,
    description: `One row per ${level.path === 'adplatform-accounts' ? 'ad platform account' : level.path.replace(/s$/, '')} (and segment bucket)${special}. See GET /reporting/v0/fields for what this endpoint offers, filters, sorts and embeds.`,
    security: [{ bearerAuth: [] }],
    request: {
      query: z.object(
        Object.fromEntries([...REPORT_PARAMETERS, level.nameParameter].map((name) => [name, name === 'formulas' ? z.union([z.string(), z.array(z.string())]).optional() : z.string().optional()])),
      ),
    },
    responses: {
      200: {
        description:
          'JSON: one page; X-TotalCount counts the rows of the whole result. CSV, NDJSON, Parquet (format= or Accept): the whole result (or the asked page), streamed; a failure after the first byte ends CSV with a "#adreport-error:" line, NDJSON with an {"error":...} line, Parquet with an aborted response.',
        content: {
          'application/json': { schema: z.object({ [level.plural]: z.array(ReportRowSchema), totals: StatisticsSchema.optional() }) },
          'text/csv': { schema: z.string().describe('header row of JSON paths (statistics.clicks, segments.day, ...), then one row per result row') },
          'application/x-ndjson': { schema: z.string().describe('one JSON object per line, shaped like the JSON rows') },
          'application/vnd.apache.parquet': { schema: z.string().describe('a Parquet file, columns as in CSV') },
        },
      },
      400: { description: 'A parameter breaks its rules; the error names it (and the position in an expression).' },
      406: { description: 'Accept names no type the endpoint produces.' },
      503: { description: "All export slots are busy (exports.maxConcurrent), or the organization's own ones (exports.maxPerOrganization); Retry-After says when to retry." },
    },
  });
}

const fieldsRoute = createRoute({
  method: 'get',
  path: '/reporting/v0/fields',
  summary: 'What each reporting endpoint offers',
  description: 'Per endpoint: statistics (type, additive or ratio), segments, and the fields filter, sort and embed accept.',
  security: [{ bearerAuth: [] }],
  responses: { 200: { description: 'The catalogue.', content: { 'application/json': { schema: z.object({ endpoints: z.array(z.record(z.string(), z.unknown())) }) } } } },
});

/** The catalogue as clients see it; built from the same definitions the planner uses. */
function describeFields() {
  return {
    endpoints: [...ENDPOINTS.map((endpoint) => {
      const level = endpoint.level;
      const statistics = endpoint.statistics.map((s) => ({ name: s.name, type: s.type, additive: s.additive, default: endpoint.defaultStatistics.includes(s), description: s.description }));
      const dimensions = level.fields.map((f) => f.name);
      const extra = [...(level.labels ? ['labels.<name>'] : []), ...(level.customFields ? ['customFields.field1..field30'] : [])];
      return {
        path: `/reporting/v0/${endpoint.path}`,
        rows: level.plural,
        ...(endpoint.platform ? { adPlatformType: endpoint.platform } : {}),
        statistics,
        segments: SEGMENTS.map((s) => ({ name: s.name, key: `segments.${s.key}`, description: s.description })),
        filterable: [...dimensions, ...extra, 'statistics.<name>', 'formulas.<name>', 'segments.deviceType', 'segments.networkType'],
        sortable: [...dimensions, ...extra, 'statistics.<name>', 'formulas.<name>', 'segments.<key of a requested segment>'],
        embeddable: [...level.embeds],
        nameParameter: level.nameParameter,
        ...(level.customFields ? { customFieldTypes: { 'field1..field20': customFieldType('field1')!, 'field21..field30': customFieldType('field21')! } } : {}),
      };
    }),
    {
      path: '/reporting/v0/accounts/campaign-labels/name/{name}',
      rows: 'accounts',
      like: '/reporting/v0/accounts',
      description: 'as /reporting/v0/accounts, over the campaigns carrying the label, one row per (account, label value) with campaignLabel {name, value}',
    },
    {
      path: '/reporting/v0/markups',
      rows: 'markups',
      fields: ['id', 'accountId', 'accountName', 'currency', 'rate', 'startDate', 'endDate'],
      parameters: ['startDate', 'endDate', 'accountId', 'limit', 'offset'],
    },
    {
      path: '/reporting/v0/call-details',
      rows: 'callDetails',
      fields: Object.keys(CALL_DETAIL_FIELDS),
      filterable: Object.keys(CALL_DETAIL_FIELDS),
      sortable: Object.keys(CALL_DETAIL_FIELDS),
      parameters: [...CALL_DETAIL_PARAMETERS],
    }],
  };
}

const MarkupPeriodSchema = z
  .object({
    id: z.number().int(),
    accountId: z.number().int(),
    accountName: z.string(),
    currency: z.string(),
    rate: z.number(),
    startDate: z.string(),
    endDate: z.string().nullable(),
  })
  .openapi('MarkupPeriod');

const markupsRoute = createRoute({
  method: 'get',
  path: '/reporting/v0/markups',
  summary: 'Markup periods of the organization',
  description:
    'Markup rates applied to cost (costWithMarkup = cost x (1 + rate) on the days of a period). Without dates every period; with startDate/endDate the periods sharing a day with the range. accountId: comma list.',
  security: [{ bearerAuth: [] }],
  request: { query: z.object({ startDate: z.string().optional(), endDate: z.string().optional(), accountId: z.string().optional(), limit: z.string().optional(), offset: z.string().optional() }) },
  responses: {
    200: { description: 'One page by account, start date and id; X-TotalCount counts all.', content: { 'application/json': { schema: z.object({ markups: z.array(MarkupPeriodSchema) }) } } },
    400: { description: 'A parameter breaks its rules.' },
  },
});

function markupQuery(url: string, organizationId: number) {
  const query = QueryParams.parse(url, ['startDate', 'endDate', 'accountId', 'limit', 'offset']);
  const from = query.get('startDate');
  const to = query.get('endDate');
  for (const [name, value] of [['startDate', from], ['endDate', to]] as const) {
    if (value !== undefined && !isCalendarDay(value)) invalidParameter(name, `"${value}" is not a date YYYY-MM-DD`);
  }
  if (from !== undefined && to !== undefined && to < from) invalidParameter('endDate', `${to} is before startDate ${from}`);
  const ids = commaList(query, 'accountId');
  if (ids?.some((id) => !/^[1-9][0-9]{0,15}$/.test(id))) invalidParameter('accountId', 'is a comma-separated list of account ids');
  return { organizationId, from, to, accountIds: ids?.map(Number), ...parsePaging(query, MAX_LIMIT, 100) };
}

const accounts = ENDPOINT_BY_PATH.get('accounts')!;
const campaignLabelRoute = createRoute({
  ...routeOf(accounts),
  path: '/reporting/v0/accounts/campaign-labels/name/{name}',
  summary: 'Statistics of accounts over their campaigns carrying a campaign label',
  description:
    'One row per (account, value of the label) for accounts with campaigns carrying the label; statistics over those campaigns only, in the account currency. `campaignGroup` names the campaign group. Rows carry campaignLabel {name, value}.',
  request: { ...routeOf(accounts).request, params: z.object({ name: z.string() }) },
});

/** Label names as the label endpoints allow them; campaignGroup is kept as sys.campaignGroup. */
function campaignLabelName(name: string): { name: string; stored: string } {
  if (name === 'campaignGroup') return { name, stored: 'sys.campaignGroup' };
  if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name)) invalidParameter('name', 'a campaign label name is a letter followed by up to 63 letters, digits or _ (or campaignGroup)');
  return { name, stored: name };
}

const CALL_DETAIL_PARAMETERS = ['startDate', 'endDate', 'filter', 'sort', 'limit', 'offset'] as const;

const CallDetailSchema = z
  .object({
    id: z.number().int(),
    accountId: z.number().int().nullable(),
    campaignId: z.number().int(),
    adGroupId: z.number().int(),
    adPlatformAccountId: z.number().int(),
    adPlatformType: z.string(),
    startTime: z.string(),
    durationSeconds: z.number().int(),
    status: z.string(),
    callType: z.string(),
    callerCountry: z.string(),
    callerAreaCode: z.string(),
    isConversion: z.boolean(),
  })
  .openapi('CallDetail');

const callDetailsRoute = createRoute({
  method: 'get',
  path: '/reporting/v0/call-details',
  summary: 'Single calls of the organization',
  description:
    'Calls whose account-local day lies in startDate..endDate (default the 30 days ending yesterday, UTC). accountId is the account the platform account is linked to: a platform account linked to two accounts gives each call once per account; an unlinked one gives accountId null. filter and sort take the row fields (ADWORDS/BING_ADS accepted for adPlatformType; isConversion compares with true/false or 1/0); default sort startTime, ties by id.',
  security: [{ bearerAuth: [] }],
  request: { query: z.object(Object.fromEntries(CALL_DETAIL_PARAMETERS.map((name) => [name, z.string().optional()]))) },
  responses: {
    200: { description: 'One page; X-TotalCount counts all.', content: { 'application/json': { schema: z.object({ callDetails: z.array(CallDetailSchema) }) } } },
    400: { description: 'A parameter breaks its rules; the error names it (and the position in an expression).' },
  },
});

function callDetailsQuery(url: string, organizationId: number) {
  const query = QueryParams.parse(url, CALL_DETAIL_PARAMETERS);
  return { organizationId, startDate: query.get('startDate'), endDate: query.get('endDate'), filter: query.get('filter'), sort: query.get('sort'), ...parsePaging(query, MAX_LIMIT, 100) };
}

export function registerReportingRoutes(app: OpenAPIHono<AppEnv>, reports: ReportService, db: Database, now: () => Date): void {
  app.openAPIRegistry.registerPath(campaignLabelRoute);
  app.get('/reporting/v0/accounts/campaign-labels/name/:name', async (c) => {
    const parsed = parseRequest(c.req.url, accounts.level, c.get('auth').organizationId, c.req.header('accept'));
    return respond(c, reports, accounts, { ...parsed, request: { ...parsed.request, campaignLabel: campaignLabelName(c.req.param('name')) } });
  });
  app.openAPIRegistry.registerPath(markupsRoute);
  app.get(markupsRoute.path, async (c) => {
    const { total, markups } = await listMarkupPeriods(db, markupQuery(c.req.url, c.get('auth').organizationId));
    return c.json({ markups }, 200, { 'X-TotalCount': String(total) });
  });
  app.openAPIRegistry.registerPath(callDetailsRoute);
  app.get(callDetailsRoute.path, async (c) => {
    const { total, callDetails } = await listCallDetails(db, callDetailsQuery(c.req.url, c.get('auth').organizationId), now());
    return c.json({ callDetails }, 200, { 'X-TotalCount': String(total) });
  });

  for (const endpoint of ENDPOINTS) {
    const route = routeOf(endpoint);
    app.openAPIRegistry.registerPath(route);
    app.get(route.path, async (c) => {
      return respond(c, reports, endpoint, parseRequest(c.req.url, endpoint.level, c.get('auth').organizationId, c.req.header('accept')));
    });
  }
  const catalogue = describeFields();
  app.openAPIRegistry.registerPath(fieldsRoute);
  app.get(fieldsRoute.path, (c) => c.json(catalogue, 200));
}
