import { Readable, pipeline } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { createGzip } from 'node:zlib';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ENDPOINT_BY_PATH, ENDPOINTS, type ReportEndpoint } from '../../catalog/endpoints.js';
import { customFieldType } from '../../catalog/levels.js';
import { FACT_SOURCES, reportedOn, type FactColumn, type FactSourceDefinition } from '../../catalog/fact-sources.js';
import { FACT_FILTER_FIELDS, SEGMENTS } from '../../catalog/segments.js';
import {
  DEFAULT_STATISTICS,
  FORMULA_TYPE_UNITS,
  FORMULA_TYPES,
  measuresOf,
  UNITS,
  type MeasureSource,
} from '../../catalog/statistics.js';
import {
  commaList,
  DATE_PRESET_DESCRIPTIONS,
  DATE_PRESETS,
  EXPRESSION_LIMITS,
  MAX_LIMIT,
  parseReportQuery,
  reportRequest,
  type ReportRequest,
} from '../../reporting/report-request.js';
import { CALL_DETAIL_FIELDS, CALL_DETAIL_LABELS, CALL_DETAIL_UNITS } from '../../catalog/call-details.js';
import {
  REPORT_ENGINE_HEADER,
  type PreparedReport,
  type ReportPage,
  type ReportService,
} from '../../reporting/report-service.js';
import type { ReportFreshness, Validator } from '../../reporting/report-freshness.js';
import type { CachedPage } from '../../reporting/page-cache.js';
import { chooseEncoding } from '../content-coding.js';
import { CODING_PREFERENCE, COMPRESS_MIN_BYTES, compressWhole, WHOLE_MAX_BYTES } from '../middleware/compress-json.js';
import { checkDates } from '../../shared/dates.js';
import type { AppEnv } from '../context.js';
import { bufferBody, jsonPageBody, jsonPageBytes, type JsonPageBody } from '../json-page-body.js';
import {
  IF_NONE_MATCH,
  ifNoneMatchMatches,
  NOT_MODIFIED_RESPONSE,
  notModified,
  VALIDATOR_HEADERS,
  validatorHeaders,
  X_CACHE,
} from '../conditional.js';
import {
  acceptsGzip,
  CONTENT_TYPES,
  type ExportFormat,
  responseFormat,
  type ResponseFormat,
} from '../export-negotiation.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, TOTAL_COUNT } from '../openapi-helpers.js';
import { commaListParameter, dateQuery, pagingQuery } from '../openapi-parameters.js';
import { AD_PLATFORM_TYPES } from '../../shared/ad-platforms.js';
import {
  CAMPAIGN_LABEL_NAME,
  operationIdOf,
  reportQuerySchema,
  reportRowSchema,
  segmentTotalsSchema,
  totalsSchema,
  WARNINGS,
  META,
} from './reporting-docs.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { WARNINGS_HEADER, warningsHeader } from '../../reporting/report-warnings.js';
import { COMPLETE_THROUGH_HEADER, completeThroughHeader, metaMember } from '../../reporting/data-freshness.js';
import { timed, timedSync } from '../../runtime/request-timing.js';

/** Fast gzip: exports are large and the CPU is shared with DuckDB rendering them. */
const GZIP_LEVEL = 1;
function parseRequest(
  url: string,
  endpoint: ReportEndpoint,
  organizationId: number,
  accept: string | undefined,
): { request: ReportRequest; format: ResponseFormat } {
  return timedSync('parse', () => {
    const query = parseReportQuery(url, endpoint);
    const format = responseFormat(query.get('format'), accept);
    return { request: reportRequest(query, endpoint.level, organizationId, format), format };
  });
}

/**
 * The JSON page, or the whole result streamed as CSV, NDJSON or Parquet; 304 when If-None-Match
 * names the current answer, and a JSON page from the page cache when it holds it: both without a
 * query. Pages are cached only when they fit the cache; exports get their ETag but are not cached.
 */
async function respond(
  c: Context<AppEnv>,
  reports: ReportService,
  endpoint: ReportEndpoint,
  parsed: { request: ReportRequest; format: ResponseFormat },
) {
  const prepared = timedSync('parse', () => reports.prepare(endpoint, parsed.request));
  const report = await timed('freshness', () => reports.withFreshness(prepared));
  return withRange(report.plan, withEngine(report.engine, await respondWith(c, reports, report, endpoint, parsed)));
}

/** The resolved date range (a preset's, the defaults', or the dates as given), on every report answer, 304s too. */
const RANGE_HEADERS = { start: 'X-Start-Date', end: 'X-End-Date' } as const;
/** With compare: the compared range as resolved (PREVIOUS_PERIOD, PREVIOUS_YEAR), likewise. */
const COMPARE_START_HEADER = 'X-Compare-Start-Date';
const COMPARE_END_HEADER = 'X-Compare-End-Date';

function withRange(
  plan: { readonly from: string; readonly to: string; readonly compare?: { from: string; to: string } | undefined },
  response: Response,
): Response {
  response.headers.set(RANGE_HEADERS.start, plan.from);
  response.headers.set(RANGE_HEADERS.end, plan.to);
  if (plan.compare) {
    response.headers.set(COMPARE_START_HEADER, plan.compare.from);
    response.headers.set(COMPARE_END_HEADER, plan.compare.to);
  }
  return response;
}

/** Every report answer names the engine that computed it (issue 22). */
function withEngine(engine: { readonly name: string }, response: Response): Response {
  response.headers.set(REPORT_ENGINE_HEADER, engine.name);
  return response;
}

async function respondWith(
  c: Context<AppEnv>,
  reports: ReportService,
  report: PreparedReport,
  endpoint: ReportEndpoint,
  { request, format }: { request: ReportRequest; format: ResponseFormat },
) {
  const validator = reports.validator(report, format);
  if (ifNoneMatchMatches(c.req.header('if-none-match'), validator.etag)) return notModified(validator.etag);
  if (format === 'json') {
    return cachedJson(c, reports.freshness, validator, async () => {
      const page = await reports.run(report);
      return timedSync('render', () => renderedPage(report, endpoint, page, reports.freshness));
    });
  }
  return exportResponse(c, reports, report, validator, { endpoint, request, format });
}

/** The JSON page as bytes (to cache) or streamed (too big to cache), with its headers. */
function renderedPage(
  report: PreparedReport,
  endpoint: ReportEndpoint,
  page: ReportPage,
  freshness: ReportFreshness,
): RenderedJson {
  const totals = page.totals ? `,"totals":${JSON.stringify(page.totals)}` : '';
  const segmentTotals = page.segmentTotals ? `,"segmentTotals":${JSON.stringify(page.segmentTotals)}` : '';
  const warnings = page.warnings.length > 0 ? `,"warnings":${JSON.stringify(page.warnings)}` : '';
  const head = `{"${endpoint.level.plural}":`;
  const tail = `${totals}${segmentTotals}${warnings}${metaMember(report.freshness)}}`;
  const length = page.rows.byteLength + head.length + tail.length + 2;
  const headers = {
    'Content-Type': 'application/json',
    'X-TotalCount': String(page.total),
    Vary: 'Accept',
    ...completeThroughHeader(report.freshness),
  };
  return freshness.caches(length)
    ? { bytes: jsonPageBytes(head, page.rows, tail), headers }
    : { streamed: jsonPageBody(head, page.rows, tail), headers };
}

/** The whole result (or the asked page) as CSV, NDJSON or Parquet, streamed with its headers. */
async function exportResponse(
  c: Context<AppEnv>,
  reports: ReportService,
  report: PreparedReport,
  validator: Validator,
  { endpoint, request, format }: { endpoint: ReportEndpoint; request: ReportRequest; format: ExportFormat },
) {
  const { plan, stream, warnings } = await reports.export(report, format);
  // A client that took nothing for the idle timeout: CSV and NDJSON end with their error line
  // after what is buffered (the transport's write-idle timeout closes a client that never reads
  // again); a Parquet response is aborted, its way of saying so.
  if (format === 'parquet') stream.once('stalled', () => c.env?.outgoing?.destroy());
  const gzip = format !== 'parquet' && acceptsGzip(c.req.header('accept-encoding'));
  const body = gzip ? pipeline(stream, createGzip({ level: GZIP_LEVEL }), () => undefined) : stream;
  const path = request.campaignLabel ? `accounts/campaign-labels/name/${request.campaignLabel.name}` : endpoint.path;
  const compared = plan.compare ? `_vs_${plan.compare.from}_${plan.compare.to}` : '';
  const base = `${path.replaceAll('/', '-')}_${plan.from}_${plan.to}${compared}`;
  return c.body(Readable.toWeb(body) as ReadableStream, 200, {
    'Content-Type': CONTENT_TYPES[format],
    'Content-Disposition': `attachment; filename="${base}.${format}"`,
    Vary: 'Accept, Accept-Encoding',
    ...validatorHeaders(validator.etag),
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    ...(warnings.length > 0 ? { [WARNINGS_HEADER]: warningsHeader(warnings) } : {}),
    ...completeThroughHeader(report.freshness),
  });
}

/** A JSON answer rendered in full (cacheable) or streamed (too big to cache), with the headers it carries. */
type RenderedJson = { readonly headers: Record<string, string> } & (
  { readonly bytes: Uint8Array<ArrayBuffer> } | { readonly streamed: JsonPageBody }
);

/**
 * A JSON answer from the page cache (X-Cache: hit), or rendered (miss) and kept when the data did
 * not change while it ran. The caller has answered If-None-Match already.
 */
async function cachedJson(
  c: Context<AppEnv>,
  freshness: ReportFreshness,
  validator: Validator,
  render: () => Promise<RenderedJson>,
) {
  const hit = freshness.cached(validator);
  if (hit) {
    const coded = await encodedHit(c, freshness, validator, hit);
    if (coded) return sendJson(c, bufferBody(coded.body), coded.headers, validator, 'hit');
    return sendJson(c, bufferBody(hit.body), hit.headers, validator, 'hit');
  }
  const rendered = await render();
  if ('streamed' in rendered) return sendJson(c, rendered.streamed, rendered.headers, validator, 'miss');
  freshness.remember(validator, { body: rendered.bytes, headers: rendered.headers });
  return sendJson(c, bufferBody(rendered.bytes), rendered.headers, validator, 'miss');
}

/**
 * A hit in the coding the client asks for, compressed once and kept beside the page: compressing
 * a 22 KB campaign page at every hit cost ~0.4 ms, twice GET /health (bench/conditional.ts).
 * Undefined when the client takes identity, or the body is too small or too big for one piece (as
 * compressJson decides).
 */
async function encodedHit(
  c: Context<AppEnv>,
  freshness: ReportFreshness,
  validator: Validator,
  hit: CachedPage,
): Promise<{ body: Uint8Array<ArrayBuffer>; headers: Record<string, string> } | undefined> {
  const { coding, identityRefused } = chooseEncoding(c.req.header('accept-encoding'), CODING_PREFERENCE);
  const length = hit.body.byteLength;
  // Larger pages are left to compressJson, which compresses them as they stream (no Content-Length).
  if (coding === undefined || length > WHOLE_MAX_BYTES || (length <= COMPRESS_MIN_BYTES && !identityRefused))
    return undefined;
  let body = hit.encoded?.[coding];
  if (body === undefined) {
    body = await compressWhole(coding, hit.body);
    freshness.rememberEncoded(validator, coding, body);
  }
  const vary = hit.headers.Vary === undefined ? 'Accept-Encoding' : `${hit.headers.Vary}, Accept-Encoding`;
  return { body, headers: { ...hit.headers, Vary: vary, 'Content-Encoding': coding } };
}

function sendJson(
  c: Context<AppEnv>,
  { body, length }: JsonPageBody,
  headers: Readonly<Record<string, string>>,
  validator: Validator,
  cache: 'hit' | 'miss',
) {
  return c.body(body, 200, {
    ...headers,
    'Content-Length': String(length),
    ...validatorHeaders(validator.etag),
    [X_CACHE]: cache,
  });
}

/**
 * A small JSON answer (markups, call details): 304 when If-None-Match names it, else from the page
 * cache or computed. They vary by Accept-Encoding only (one format).
 */
function smallJson(
  c: Context<AppEnv>,
  freshness: ReportFreshness,
  validator: Validator,
  compute: () => Promise<{ value: unknown; total: number }>,
) {
  if (ifNoneMatchMatches(c.req.header('if-none-match'), validator.etag))
    return notModified(validator.etag, 'Accept-Encoding');
  return cachedJson(c, freshness, validator, async () => {
    const { value, total } = await compute();
    return renderJson(value, total);
  });
}

/** A small JSON answer as bytes, for cachedJson. */
function renderJson(value: unknown, total: number): RenderedJson {
  return {
    bytes: Buffer.from(JSON.stringify(value)),
    headers: { 'Content-Type': 'application/json', 'X-TotalCount': String(total) },
  };
}

const REPORT_ERRORS = {
  400: 'A parameter breaks its rules (invalid_parameter, unknown_parameter); details name it, and the position and token in an expression.',
  406: true,
  503: "The service is at capacity, or all export slots are busy (exports.maxConcurrent), or the organization's own ones (exports.maxPerOrganization), or the report engine (ClickHouse) does not answer (report_engine_unavailable); Retry-After says when to retry.",
} as const;

const EXPORT_HEADERS = {
  'X-TotalCount': {
    description: 'JSON only: rows of the whole result.',
    schema: { type: 'integer' as const, minimum: 0 },
  },
  'Content-Disposition': {
    description:
      'Exports only: attachment; filename="<path>_<from>_<to>.<format>", with compare "<path>_<from>_<to>_vs_<compared from>_<compared to>.<format>".',
    schema: { type: 'string' as const },
  },
  [COMPLETE_THROUGH_HEADER]: {
    description:
      "JSON and exports: the last day for which every synced platform account of the report has final figures (fetched at least the platform's conversion lag after the day ended; meta.freshness.completeThrough; an account never synced is named by incomplete_data instead). Absent when unknown: no platform account of the report was ever synced, or it has none. A range ending after it gets the incomplete_data warning.",
    schema: { type: 'string' as const, format: 'date' },
  },
  'X-Compare-Start-Date': {
    description: 'With compare= only: the first day of the compared range, as resolved.',
    schema: { type: 'string' as const, format: 'date' },
  },
  'X-Compare-End-Date': {
    description: 'With compare= only: the last day of the compared range, as resolved.',
    schema: { type: 'string' as const, format: 'date' },
  },
  [WARNINGS_HEADER]: {
    description:
      'Exports only, when there is something to say (the `warnings` of a JSON body): an RFC 8941 List, e.g. estimated_fx_rates;first="2025-10-20";last="2026-11-23";currencies="AUD USD", incomplete_data;through="2026-11-09";accounts=2;never_synced=1 (through absent when no platform account was ever synced; never_synced only when one was never synced), mixed_currency_sort;currencies="EUR MXN PLN", unknown_labels;labels="regoin".',
    schema: { type: 'string' as const },
  },
};

/** X-Start-Date and X-End-Date, as withRange sets them. */
const RANGE_HEADER_DOCS = {
  [RANGE_HEADERS.start]: {
    description:
      'The first day of the resolved range (YYYY-MM-DD): startDate, the start of the dateRange preset, or the default.',
    schema: { type: 'string' as const, format: 'date' },
  },
  [RANGE_HEADERS.end]: {
    description: 'The last day of the resolved range, inclusive (YYYY-MM-DD).',
    schema: { type: 'string' as const, format: 'date' },
  },
};

function reportResponses(endpoint: ReportEndpoint, campaignLabel: boolean) {
  const level = endpoint.level;
  const row = reportRowSchema(endpoint, campaignLabel);
  return {
    200: {
      description:
        'JSON: one page; `warnings` when totals mix currencies, money was converted at estimated FX rates, the range ends after the last complete day or a platform account was never synced (incomplete_data), rows in several currencies are sorted by money without currency= (mixed_currency_sort), or the filter names labels no entity has (unknown_labels); `meta.freshness` always, last. CSV, NDJSON, Parquet (format= or Accept): the whole result (or the asked page), streamed; a failure after the first byte ends CSV with a "#adreport-error:" line, NDJSON with an {"error":...} line, Parquet with an aborted response.',
      headers: { ...EXPORT_HEADERS, ...VALIDATOR_HEADERS, ...RANGE_HEADER_DOCS },
      content: {
        'application/json': {
          schema: z.object({
            [level.plural]: z.array(row),
            totals: totalsSchema(endpoint),
            segmentTotals: segmentTotalsSchema(endpoint),
            warnings: WARNINGS,
            meta: META,
          }),
        },
        'text/csv': {
          schema: z.string().openapi({
            description:
              'A header row of JSON paths (statistics.clicks, segments.day, ...), then one row per result row.',
          }),
        },
        'application/x-ndjson': {
          schema: z.string().openapi({ description: 'One JSON object per line, shaped like the JSON rows.' }),
        },
        'application/vnd.apache.parquet': {
          schema: z.string().openapi({ format: 'binary', description: 'A Parquet file, columns as in CSV.' }),
        },
      },
    },
    304: {
      ...NOT_MODIFIED_RESPONSE[304],
      headers: { ...NOT_MODIFIED_RESPONSE[304].headers, ...RANGE_HEADER_DOCS },
    },
    ...errorResponses('get', REPORT_ERRORS),
  };
}

/** The request headers every report operation documents. */
const CONDITIONAL_HEADERS = z.object({ 'If-None-Match': IF_NONE_MATCH });

function routeOf(endpoint: ReportEndpoint) {
  const level = endpoint.level;
  const special =
    endpoint.platform === undefined
      ? ''
      : ` of ${endpoint.platform} platform accounts only, with ${endpoint.defaultStatistics
          .filter((s) => !(DEFAULT_STATISTICS as readonly string[]).includes(s.name))
          .map((s) => s.name)
          .join(', ')} by default`;
  return createRoute({
    method: 'get',
    path: `/reporting/v0/${endpoint.path}`,
    operationId: operationIdOf(endpoint),
    tags: ['Reporting'],
    summary: endpoint.summary,
    description: `One row per ${level.path === 'adplatform-accounts' ? 'ad platform account' : level.path.replace(/s$/, '')} (and segment bucket)${special}. See GET /reporting/v0/fields for what this endpoint offers, filters, sorts and embeds. Accept or format= chooses JSON (default), CSV, NDJSON or Parquet; an Accept naming none of them is a 406.`,
    ...bearer('reporting'),
    request: { query: reportQuerySchema(endpoint), headers: CONDITIONAL_HEADERS },
    responses: reportResponses(endpoint, false),
  });
}

const UNIT = z.enum(UNITS).openapi({
  description:
    "How a person reads the value: count (a number of things, fractional ones included, e.g. conversions), money (in the row's currency), percent (a fraction shown as a percentage: the value stays the fraction, 0.0215 is 2.15 %), ratio (a plain multiple: roas, frequency), duration (seconds).",
});
const LABEL = z
  .string()
  .openapi({ description: 'A short column label for people ("Avg. CPC", "Conv. rate", "Device").' });

const FieldsStatistic = z
  .object({
    name: z.string(),
    type: z.enum(['Integer', 'Decimal', 'Money', 'Ratio']),
    additive: z.boolean().openapi({ description: 'false: a ratio recomputed from sums, never summed or averaged.' }),
    default: z.boolean().openapi({ description: 'Returned when a request names no statistics.' }),
    description: z.string(),
    unit: UNIT,
    label: LABEL,
  })
  .openapi('ReportFieldStatistic');
const FieldsSegment = z
  .object({
    name: z.string().openapi({ description: 'As the segments parameter names it.' }),
    key: z.string().openapi({ description: 'segments.<key>, as rows carry it.' }),
    kind: z.enum(['sequence', 'value']),
    type: z.enum(['string', 'number']),
    description: z.string(),
    label: LABEL,
  })
  .openapi('ReportFieldSegment');
const FieldsEndpoint = z
  .object({
    path: z.string(),
    statistics: z.array(FieldsStatistic).optional(),
    segments: z.array(FieldsSegment).optional(),
    formulaTypes: z
      .array(z.object({ type: z.enum(FORMULA_TYPES), unit: UNIT }))
      .optional()
      .openapi({ description: 'The unit a formula of each type is read in.' }),
    columns: z
      .array(z.object({ name: z.string(), type: z.string(), label: LABEL, unit: UNIT.optional() }))
      .optional()
      .openapi({ description: 'The fields of a row that is no statistics row (call details), with a label each.' }),
  })
  .catchall(z.unknown())
  .openapi('ReportFieldsEndpoint');

const fieldsRoute = createRoute({
  method: 'get',
  path: '/reporting/v0/fields',
  operationId: 'getReportingFields',
  tags: ['Reporting'],
  summary: 'What each reporting endpoint offers',
  description:
    'Per endpoint: statistics (type, additive or ratio, unit, label), segments (with a label), the unit of each formula type, sources, dateRanges (the presets of dateRange), and the fields filter, sort and embed accept.',
  ...bearer('reporting'),
  responses: {
    200: {
      description: 'The catalogue.',
      ...jsonContent(z.object({ endpoints: z.array(FieldsEndpoint) })),
    },
    ...errorResponses('get', {}),
  },
});

/** What `compare` takes, and how rows pair (GET /reporting/v0/fields). */
const COMPARE_FORMS = {
  forms: [
    { value: 'PREVIOUS_PERIOD', description: 'as many days as the range, ending the day before it starts' },
    { value: 'PREVIOUS_YEAR', description: 'both ends one calendar year earlier (29 February: 28 February)' },
    { value: 'YYYY-MM-DD..YYYY-MM-DD', description: 'an inclusive range, under five years' },
  ],
  pairing: `rows pair by entity; ${SEGMENTS.filter((s) => s.kind === 'sequence')
    .map((s) => s.name)
    .join(
      ', ',
    )} buckets by position (the i-th with the i-th: both ranges need as many), the other segments (${SEGMENTS.filter(
    (s) => s.kind === 'value',
  )
    .map((s) => s.name)
    .join(', ')}) by value`,
};
/** Filter and sort keys of the compared range, with compare only. */
const COMPARED_FIELDS = [
  'comparison.statistics.<name>',
  'change.statistics.<name>',
  'comparison.formulas.<name>',
  'change.formulas.<name>',
];

/**
 * The fact sources an endpoint reads, as the planner chooses among them: the segments each holds
 * (a request's segments and fact filters must all be in one), the statistics it carries, the
 * platforms that report it, how far back it goes.
 */
function sourcesOf(endpoint: ReportEndpoint) {
  const level = endpoint.level;
  const keyed = (source: FactSourceDefinition) =>
    level.factKey === null || source.grain.includes(level.factKey as FactColumn);
  return FACT_SOURCES.filter(
    (source) =>
      keyed(source) &&
      reportedOn(source, endpoint.platform) &&
      (source.kind === 'breakdown'
        ? level.factTable === 'fact_ad_daily'
        : source.kind === 'facts'
          ? source.table === level.factTable
          : endpoint.sources.includes(source.kind as MeasureSource)),
  ).map((source) => ({
    name: source.name,
    description: source.description,
    segments: SEGMENTS.filter((s) => s.reads.every((c) => source.grain.includes(c))).map((s) => s.name),
    statistics: endpoint.statistics
      .filter((s) => [...measuresOf(s)].every((m) => source.measures.includes(m)))
      .map((s) => s.name),
    ...(source.platforms ? { adPlatformTypes: source.platforms } : {}),
    ...(source.retentionDays === undefined ? {} : { retentionDays: source.retentionDays }),
  }));
}

/** The catalogue as clients see it; built from the same definitions the planner uses. */
function describeFields() {
  return {
    endpoints: [
      ...ENDPOINTS.map((endpoint) => {
        const level = endpoint.level;
        const statistics = endpoint.statistics.map((s) => ({
          name: s.name,
          type: s.type,
          additive: s.additive,
          default: endpoint.defaultStatistics.includes(s),
          description: s.description,
          unit: s.unit,
          label: s.label,
        }));
        const dimensions = level.fields.map((f) => f.name);
        const extra = [
          ...(level.labels ? ['labels.<name>'] : []),
          ...(level.customFields ? ['customFields.field1..field30'] : []),
        ];
        return {
          path: `/reporting/v0/${endpoint.path}`,
          rows: level.plural,
          ...(endpoint.platform ? { adPlatformType: endpoint.platform } : {}),
          statistics,
          segments: endpoint.segments.map((s) => ({
            name: s.name,
            key: `segments.${s.key}`,
            kind: s.kind,
            type: s.type,
            description: s.description,
            label: s.label,
          })),
          formulaTypes: FORMULA_TYPES.map((type) => ({ type, unit: FORMULA_TYPE_UNITS[type] })),
          sources: sourcesOf(endpoint),
          dateRanges: DATE_PRESETS.map((name) => ({ name, description: DATE_PRESET_DESCRIPTIONS[name] })),
          compare: COMPARE_FORMS,
          totals: ['false', 'true', 'segments'],
          filterable: [
            ...dimensions,
            ...(level.platformAccountColumn ? ['accountId'] : []),
            ...extra,
            'statistics.<name>',
            'formulas.<name>',
            ...endpoint.segments.flatMap((s) => (FACT_FILTER_FIELDS.has(s.key) ? [`segments.${s.key}`] : [])),
            'segments.<key of a requested segment>',
            ...COMPARED_FIELDS,
          ],
          sortable: [
            ...dimensions,
            ...extra,
            'statistics.<name>',
            'formulas.<name>',
            'segments.<key of a requested segment>',
            ...COMPARED_FIELDS,
          ],
          embeddable: [...level.embeds],
          nameParameter: level.nameParameter,
          ...(level.customFields
            ? {
                customFieldTypes: {
                  'field1..field20': customFieldType('field1')!,
                  'field21..field30': customFieldType('field21')!,
                },
              }
            : {}),
        };
      }),
      {
        path: '/reporting/v0/accounts/campaign-labels/name/{name}',
        rows: 'accounts',
        like: '/reporting/v0/accounts',
        description:
          'as /reporting/v0/accounts, over the campaigns carrying the label, one row per (account, label value) with campaignLabel {name, value}',
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
        columns: Object.entries(CALL_DETAIL_FIELDS).map(([name, type]) => ({
          name,
          type,
          label: CALL_DETAIL_LABELS[name]!,
          ...(CALL_DETAIL_UNITS[name] ? { unit: CALL_DETAIL_UNITS[name] } : {}),
        })),
        filterable: Object.keys(CALL_DETAIL_FIELDS),
        sortable: Object.keys(CALL_DETAIL_FIELDS),
        parameters: [...CALL_DETAIL_PARAMETERS],
      },
    ],
  };
}

const MarkupPeriodSchema = z
  .object({
    id: z.number().int(),
    accountId: z.number().int(),
    accountName: z.string(),
    currency: z.string(),
    rate: z.number(),
    startDate: z.string().openapi({ format: 'date' }),
    endDate: z.string().nullable().openapi({ format: 'date' }),
  })
  .openapi('MarkupPeriod');

const markupsRoute = createRoute({
  method: 'get',
  path: '/reporting/v0/markups',
  operationId: 'listMarkupPeriods',
  tags: ['Reporting'],
  summary: 'Markup periods of the organization',
  description:
    'Markup rates applied to cost (costWithMarkup = cost x (1 + rate) on the days of a period). Without dates every period; with startDate/endDate the periods sharing a day with the range.',
  ...bearer('reporting'),
  request: {
    query: z.object({
      startDate: dateQuery('Only periods that end on or after this day.'),
      endDate: dateQuery('Only periods that start on or before this day; not before startDate (otherwise 400).'),
      // At most 16 digits (the id pattern); 9,999,999,999,999,999 is no double, so the bound reads 10^16 as it always did in the document.
      accountId: commaListParameter(
        { type: 'integer', format: 'int64', minimum: 1, maximum: 1e16 },
        { description: 'Only periods of these accounts.' },
      ),
      ...pagingQuery(MAX_LIMIT),
    }),
    headers: CONDITIONAL_HEADERS,
  },
  responses: {
    200: {
      description: 'One page by account, start date and id.',
      headers: { ...TOTAL_COUNT, ...VALIDATOR_HEADERS },
      ...jsonContent(z.object({ markups: z.array(MarkupPeriodSchema) })),
    },
    ...NOT_MODIFIED_RESPONSE,
    ...errorResponses('get', {
      400: 'A parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.',
    }),
  },
});

function markupQuery(url: string, organizationId: number) {
  const query = QueryParams.parse(url, ['startDate', 'endDate', 'accountId', 'limit', 'offset'], ['accountId']);
  const from = query.get('startDate');
  const to = query.get('endDate');
  // Markups have no default range: without dates, every period.
  checkDates(from, to, invalidParameter);
  const ids = commaList(query, 'accountId');
  if (ids?.some((id) => !/^[1-9][0-9]{0,15}$/.test(id)))
    invalidParameter('accountId', 'is a comma-separated list of account ids');
  return { organizationId, from, to, accountIds: ids?.map(Number), ...parsePaging(query, MAX_LIMIT, 100) };
}

const accounts = ENDPOINT_BY_PATH.get('accounts')!;
const campaignLabelRoute = createRoute({
  ...routeOf(accounts),
  path: '/reporting/v0/accounts/campaign-labels/name/{name}',
  operationId: 'getAccountStatisticsByCampaignLabel',
  summary: 'Statistics of accounts over their campaigns carrying a campaign label',
  description:
    'One row per (account, value of the label) for accounts with campaigns carrying the label; statistics over those campaigns only, in the account currency. `campaignGroup` names the campaign group. Rows carry campaignLabel {name, value}. Parameters as GET /reporting/v0/accounts.',
  request: {
    query: reportQuerySchema(accounts),
    params: z.object({ name: CAMPAIGN_LABEL_NAME }),
    headers: CONDITIONAL_HEADERS,
  },
  responses: reportResponses(accounts, true),
});

/** Label names as the label endpoints allow them; campaignGroup is kept as sys.campaignGroup. */
function campaignLabelName(name: string): { name: string; stored: string } {
  if (name === 'campaignGroup') return { name, stored: 'sys.campaignGroup' };
  if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name))
    invalidParameter(
      'name',
      'a campaign label name is a letter followed by up to 63 letters, digits or _ (or campaignGroup)',
    );
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
    adPlatformType: z.enum(AD_PLATFORM_TYPES),
    startTime: z.string().openapi({ format: 'date-time' }),
    durationSeconds: z.number().int(),
    status: z.string(),
    callType: z.string(),
    callerCountry: z.string(),
    callerAreaCode: z.string(),
    isConversion: z.boolean(),
  })
  .openapi('CallDetail');

function callDetailsQuerySchema() {
  const fields = Object.keys(CALL_DETAIL_FIELDS).join(', ');
  return z.object({
    startDate: dateQuery(
      'First day (account-local), inclusive. Default: 29 days before endDate. The range, defaults included, must be under five years (otherwise 400).',
    ),
    endDate: dateQuery(
      'Last day, inclusive; not before startDate, under five years after it (otherwise 400). Default: yesterday (UTC), or startDate when that is later.',
    ),
    filter: z
      .string()
      .optional()
      .openapi({
        maxLength: EXPRESSION_LIMITS.maxLength,
        description: `One expression as on the statistics endpoints, over the fields ${fields} (isConversion alone is a condition, and compares with true/false or 1/0). Anything else: 400 naming the position and the token.`,
        param: {
          examples: {
            long: { value: 'durationSeconds >= 60' },
            converted: { value: "isConversion && callerCountry == 'US'" },
            platform: { value: "adPlatformType in ['GOOGLE_ADS', 'BING_ADS']" },
          },
        },
      }),
    sort: z
      .string()
      .optional()
      .openapi({
        description: `Comma list of ${fields}, \`-\` for descending; default startTime, ties by id. The parameter may repeat (\`sort=a&sort=-b\` is \`sort=a,-b\`).`,
        param: { examples: { longest: { value: '-durationSeconds' }, byCampaign: { value: 'campaignId,-startTime' } } },
      }),
    ...pagingQuery(MAX_LIMIT),
  });
}

const callDetailsRoute = createRoute({
  method: 'get',
  path: '/reporting/v0/call-details',
  operationId: 'listCallDetails',
  tags: ['Reporting'],
  summary: 'Single calls of the organization',
  description:
    'Calls whose account-local day lies in startDate..endDate (default the 30 days ending yesterday, UTC). accountId is the account the platform account is linked to: a platform account linked to two accounts gives each call once per account; an unlinked one gives accountId null. filter and sort take the row fields (ADWORDS/BING_ADS accepted for adPlatformType; isConversion compares with true/false or 1/0); default sort startTime, ties by id.',
  ...bearer('reporting'),
  request: { query: callDetailsQuerySchema(), headers: CONDITIONAL_HEADERS },
  responses: {
    200: {
      description: 'One page.',
      headers: { ...TOTAL_COUNT, ...VALIDATOR_HEADERS },
      ...jsonContent(z.object({ callDetails: z.array(CallDetailSchema) })),
    },
    ...NOT_MODIFIED_RESPONSE,
    ...errorResponses('get', {
      400: 'A parameter breaks its rules (invalid_parameter, unknown_parameter); details name it, and the position and token in an expression.',
    }),
  },
});

function callDetailsQuery(url: string, organizationId: number) {
  const query = QueryParams.parse(url, CALL_DETAIL_PARAMETERS, ['sort']);
  return {
    organizationId,
    startDate: query.get('startDate'),
    endDate: query.get('endDate'),
    filter: query.get('filter'),
    sort: query.get('sort'),
    ...parsePaging(query, MAX_LIMIT, 100),
  };
}

export function registerReportingRoutes(app: OpenAPIHono<AppEnv>, reports: ReportService): void {
  app.openAPIRegistry.registerPath(campaignLabelRoute);
  app.get('/reporting/v0/accounts/campaign-labels/name/:name', async (c) => {
    const parsed = parseRequest(c.req.url, accounts, c.get('auth').organizationId, c.req.header('accept'));
    return respond(c, reports, accounts, {
      ...parsed,
      request: { ...parsed.request, campaignLabel: campaignLabelName(c.req.param('name')) },
    });
  });
  app.openAPIRegistry.registerPath(markupsRoute);
  app.get(markupsRoute.path, async (c) => {
    const prepared = reports.prepareMarkups(markupQuery(c.req.url, c.get('auth').organizationId));
    await reports.follow(prepared.request.organizationId);
    const response = await smallJson(c, reports.freshness, reports.markupsValidator(prepared), async () => {
      const { total, markups } = await reports.markups(prepared);
      return { value: { markups }, total };
    });
    return withEngine(prepared.engine, response);
  });
  app.openAPIRegistry.registerPath(callDetailsRoute);
  app.get(callDetailsRoute.path, async (c) => {
    const prepared = reports.prepareCallDetails(callDetailsQuery(c.req.url, c.get('auth').organizationId));
    await reports.follow(prepared.plan.organizationId);
    const response = await smallJson(c, reports.freshness, reports.callDetailsValidator(prepared), async () => {
      const { total, callDetails } = await reports.callDetails(prepared);
      return { value: { callDetails }, total };
    });
    return withEngine(prepared.engine, response);
  });

  for (const endpoint of ENDPOINTS) {
    const route = routeOf(endpoint);
    app.openAPIRegistry.registerPath(route);
    app.get(route.path, async (c) => {
      return respond(
        c,
        reports,
        endpoint,
        parseRequest(c.req.url, endpoint, c.get('auth').organizationId, c.req.header('accept')),
      );
    });
  }
  const catalogue = describeFields();
  app.openAPIRegistry.registerPath(fieldsRoute);
  app.get(fieldsRoute.path, (c) => c.json(catalogue, 200));
}
