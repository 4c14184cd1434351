import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ENDPOINTS } from '../../catalog/endpoints.js';
import type { ReportJobFile, ReportJobService } from '../../report-jobs/report-job-service.js';
import { REPORT_JOB_FORMATS, REPORT_JOB_STATUSES, type ReportJobStatus } from '../../report-jobs/report-job-store.js';
import { ApiError, badRequest, notFound } from '../../shared/errors.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';
import { byteRange, ifRangeMatches } from '../byte-ranges.js';
import { CACHE_CONTROL, IF_NONE_MATCH, ifNoneMatchMatches } from '../conditional.js';
import type { AppEnv } from '../context.js';
import { CONTENT_TYPES } from '../export-negotiation.js';
import { IDEMPOTENCY_KEY, idempotencyOf } from '../idempotency.js';
import { acceptJson } from '../middleware/content-type.js';
import { errorResponses, ErrorSchema } from '../openapi-errors.js';
import { bearer, jsonContent, LOCATION, TOTAL_COUNT } from '../openapi-helpers.js';
import { pagingQuery } from '../openapi-parameters.js';
import { idParam, pathId } from '../path-ids.js';

const BASE = '/reporting/v0/report-jobs';
// Under Reporting: report jobs are its exports, run later.
const tags = ['Reporting'];
const ENDPOINT_PATHS = ENDPOINTS.map((e) => e.path) as [string, ...string[]];

const QUERY_VALUE = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

const ReportJobCreate = z
  .strictObject({
    reportJob: z.strictObject({
      endpoint: z.enum(ENDPOINT_PATHS).openapi({ description: 'The statistics endpoint below /reporting/v0.' }),
      query: z
        .record(z.string(), QUERY_VALUE)
        .optional()
        .openapi({
          description:
            "The endpoint's GET query parameters (startDate, endDate, dateRange, statistics, segments, filter, sort, formulas, currency, compare, limit, offset, ...), without format. Values as in the URL; a list repeats the parameter (formulas; a list parameter such as segments as a list or a comma text). Validated exactly as the GET validates them: the same 400s.",
          example: { startDate: '2026-01-01', endDate: '2026-01-31', segments: 'Day' },
        }),
      format: z.enum(REPORT_JOB_FORMATS),
    }),
  })
  .openapi('ReportJobCreate');

const ReportJobSchema = z
  .object({
    id: z.number().int(),
    endpoint: z.string(),
    query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    format: z.enum(REPORT_JOB_FORMATS),
    status: z.enum(REPORT_JOB_STATUSES),
    progress: z.number().min(0).max(1).openapi({
      description:
        'Rows written over the rows of the result while RUNNING (0 for Parquet until it ends; at most 0.99), 1 once SUCCEEDED, 0 otherwise.',
    }),
    rows: z.number().int().nullable().openapi({ description: 'Rows in the file (while RUNNING: written so far).' }),
    bytes: z.number().int().nullable().openapi({ description: 'Size of the file (while RUNNING: written so far).' }),
    sha256: z.string().nullable().openapi({ description: 'Hex SHA-256 of the file, once SUCCEEDED.' }),
    startDate: z.string().openapi({ format: 'date', description: 'The first day of the range, resolved at creation.' }),
    endDate: z.string().openapi({ format: 'date', description: 'The last day of the range, resolved at creation.' }),
    warnings: z
      .array(z.record(z.string(), z.unknown()))
      .openapi({ description: 'As the `warnings` of a JSON report (estimated FX rates, incomplete data).' }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    startedAt: z.string().nullable().openapi({ format: 'date-time' }),
    finishedAt: z.string().nullable().openapi({ format: 'date-time' }),
    expiresAt: z
      .string()
      .openapi({ format: 'date-time', description: 'Seven days after creation: the file is deleted, status EXPIRED.' }),
  })
  .openapi('ReportJob');

const IdParams = z.object({ id: idParam() });
const NOT_FOUND = "Unknown, another organization's, deleted, or expired more than seven days ago.";
const ERROR_BODY = jsonContent(ErrorSchema);

const createReportJobRoute = createRoute({
  method: 'post',
  path: BASE,
  operationId: 'createReportJob',
  description:
    'The export GET /reporting/v0/<endpoint>?format=<format> would stream, written to a file to download later (GET .../id/{id}/file). Validated like that GET before the job exists. An organization has at most 10 jobs QUEUED or RUNNING, 2 of them running (ADREPORT_REPORT_JOBS_MAX_RUNNING_PER_ORGANIZATION). Send Idempotency-Key to make retries safe.',
  tags,
  summary: 'Start a report job: an export written to a file',
  middleware: [acceptJson()] as const,
  ...bearer('reporting'),
  request: {
    headers: z.object({ 'Idempotency-Key': IDEMPOTENCY_KEY }),
    body: { required: true, ...jsonContent(ReportJobCreate) },
  },
  responses: {
    202: {
      description: 'The queued job (or, for a repeated Idempotency-Key with the same body, the first one).',
      headers: LOCATION,
      ...jsonContent(z.object({ reportJob: ReportJobSchema })),
    },
    ...errorResponses('post', {
      400: 'The request cannot be read (malformed JSON, not {"reportJob": {...}}, a malformed Idempotency-Key), or a query parameter breaks the rules of the GET (invalid_parameter, unknown_parameter); details name it.',
      413: true,
      415: true,
      422: 'endpoint or format is not one of the listed values (validation_failed), or the Idempotency-Key belongs to another request (idempotency_key_reused).',
      429: "Too many of the organization's report jobs are QUEUED or RUNNING (too_many_report_jobs, Retry-After), or its stored files plus the estimated sizes of its queued and running jobs reach ADREPORT_REPORT_FILES_MB (report_files_quota_exceeded: delete files or wait until they expire); or the client's rate limit (rate_limited).",
    }),
  },
});

const listReportJobsRoute = createRoute({
  method: 'get',
  path: BASE,
  operationId: 'listReportJobs',
  description: 'Report jobs created in the last seven days, sorted by id, optionally of one status.',
  tags,
  summary: 'Report jobs of the last seven days',
  ...bearer('reporting'),
  request: {
    query: z.object({
      status: z.enum(REPORT_JOB_STATUSES).optional().openapi({ description: 'Only jobs in this status.' }),
      ...pagingQuery(100),
    }),
  },
  responses: {
    200: {
      description: 'One page.',
      headers: TOTAL_COUNT,
      ...jsonContent(z.object({ reportJobs: z.array(ReportJobSchema) })),
    },
    ...errorResponses('get', {
      400: 'A query parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.',
    }),
  },
});

const getReportJobRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}`,
  operationId: 'getReportJob',
  description:
    'status goes QUEUED, RUNNING, then SUCCEEDED or FAILED; EXPIRED seven days after creation. A restart of the service reruns a RUNNING job from the start.',
  tags,
  summary: 'One report job',
  ...bearer('reporting'),
  request: { params: IdParams },
  responses: {
    200: { description: 'The job.', ...jsonContent(z.object({ reportJob: ReportJobSchema })) },
    ...errorResponses('get', { 400: 'A malformed path id.', 404: NOT_FOUND }),
  },
});

const deleteReportJobRoute = createRoute({
  method: 'delete',
  path: `${BASE}/id/{id}`,
  operationId: 'deleteReportJob',
  description: 'Removes the job and its file; a running job stops.',
  tags,
  summary: 'Delete a report job and its file',
  ...bearer('reporting'),
  request: { params: IdParams },
  responses: {
    204: { description: 'Deleted; empty body.' },
    ...errorResponses('delete', { 400: 'A malformed path id.', 404: NOT_FOUND, 413: true }),
  },
});

const FILE_HEADERS = {
  'Content-Length': { description: 'Bytes of this response body.', schema: { type: 'integer' as const, minimum: 0 } },
  ETag: {
    description: 'A strong validator of the file: its hex SHA-256, quoted. Send it in If-Range to resume.',
    schema: { type: 'string' as const },
  },
  'Repr-Digest': {
    description: 'RFC 9530: `sha-256=:<base64 of the SHA-256 of the whole file>:` (on 206 too: the whole file).',
    schema: { type: 'string' as const },
  },
  'Accept-Ranges': { description: '`bytes`.', schema: { type: 'string' as const } },
  'Last-Modified': { description: 'When the job finished.', schema: { type: 'string' as const } },
  'Content-Disposition': {
    description: 'attachment; filename="<endpoint>_<startDate>_<endDate>.<format>", as the GET export names it.',
    schema: { type: 'string' as const },
  },
};

const FILE_CONTENT = {
  'text/csv': { schema: z.string() },
  'application/x-ndjson': { schema: z.string() },
  'application/vnd.apache.parquet': { schema: z.string().openapi({ format: 'binary' }) },
};

const reportJobFileRoute = createRoute({
  method: 'get',
  path: `${BASE}/id/{id}/file`,
  operationId: 'getReportJobFile',
  description:
    'The stored file of a SUCCEEDED job, byte for byte what the GET export of the query streamed when the job ran. One byte range per request (RFC 9110 14): `Range: bytes=<first>-[<last>]` or `bytes=-<suffix>` answers 206 with Content-Range; with If-Range the range applies only while the ETag (or Last-Modified) is the given one, otherwise the whole file. A Range header of another shape is ignored (200).',
  tags,
  summary: "Download a report job's file (resumable)",
  ...bearer('reporting'),
  request: {
    params: IdParams,
    headers: z.object({
      Range: z.string().optional().openapi({
        pattern: '^[\\x20-\\x7e]*$',
        description: 'bytes=<first>-[<last>] or bytes=-<suffix>; another shape is ignored (200).',
        example: 'bytes=1048576-',
      }),
      'If-Range': z.string().optional().openapi({
        pattern: '^[\\x20-\\x7e]*$',
        description: 'The ETag (or Last-Modified) of the file: the range applies only while it is current.',
        example: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
      }),
      'If-None-Match': IF_NONE_MATCH,
    }),
  },
  responses: {
    200: { description: 'The whole file.', headers: FILE_HEADERS, content: FILE_CONTENT },
    206: {
      description: 'The asked byte range.',
      headers: {
        ...FILE_HEADERS,
        'Content-Range': { description: 'bytes <first>-<last>/<size>.', schema: { type: 'string' as const } },
      },
      content: FILE_CONTENT,
    },
    304: {
      description: 'If-None-Match named the ETag: the file is the one the client holds.',
      headers: { ETag: FILE_HEADERS.ETag },
    },
    ...errorResponses('get', {
      400: 'A malformed path id.',
      404: NOT_FOUND,
      409: 'The job is not SUCCEEDED (QUEUED, RUNNING or FAILED): report_job_not_ready.',
    }),
    410: { description: 'The job expired and its file was deleted (report_job_expired).', ...ERROR_BODY },
    416: {
      description: 'The range starts at or after the end of the file (range_not_satisfiable).',
      headers: { 'Content-Range': { description: 'bytes */<size>.', schema: { type: 'string' as const } } },
      ...ERROR_BODY,
    },
  },
});

function statusOf(query: QueryParams): ReportJobStatus | undefined {
  const value = query.get('status');
  if (value === undefined) return undefined;
  if (!(REPORT_JOB_STATUSES as readonly string[]).includes(value))
    invalidParameter('status', `must be one of ${REPORT_JOB_STATUSES.join(', ')}`);
  return value as ReportJobStatus;
}

/** The file, whole or one range; opened before the headers go out, so a file gone meanwhile is a 404. */
async function sendFile(c: Context<AppEnv>, file: ReportJobFile): Promise<Response> {
  const { job } = file;
  const sha256 = job.sha256!;
  const etag = `"${sha256}"`;
  const lastModified = new Date(job.finishedAt!).toUTCString();
  if (ifNoneMatchMatches(c.req.header('if-none-match'), etag))
    return new Response(null, { status: 304, headers: { ETag: etag, 'Cache-Control': CACHE_CONTROL } });
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file.path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`No report job with id ${job.id}.`);
    throw error;
  }
  const size = (await handle.stat()).size;
  const headers: Record<string, string> = {
    'Content-Type': CONTENT_TYPES[job.format],
    'Content-Disposition': `attachment; filename="${file.name}"`,
    ETag: etag,
    'Repr-Digest': `sha-256=:${Buffer.from(sha256, 'hex').toString('base64')}:`,
    'Accept-Ranges': 'bytes',
    'Last-Modified': lastModified,
    'Cache-Control': CACHE_CONTROL,
  };
  const range = ifRangeMatches(c.req.header('if-range'), etag, lastModified)
    ? byteRange(c.req.header('range'), size)
    : ({ kind: 'whole' } as const);
  if (range.kind === 'unsatisfiable') {
    await handle.close();
    throw new ApiError(
      416,
      'range_not_satisfiable',
      `The file has ${size} bytes; the range asks for none of them.`,
      [],
      {
        'Content-Range': `bytes */${size}`,
      },
    );
  }
  const [start, end, status] = range.kind === 'partial' ? [range.start, range.end, 206] : [0, size - 1, 200];
  headers['Content-Length'] = String(end - start + 1);
  if (range.kind === 'partial') headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  if (c.req.method === 'HEAD' || end < start) {
    await handle.close();
    return c.body(null, status as 200 | 206, headers);
  }
  return c.body(
    Readable.toWeb(handle.createReadStream({ start, end })) as ReadableStream,
    status as 200 | 206,
    headers,
  );
}

export function registerReportJobRoutes(app: OpenAPIHono<AppEnv>, reportJobs: ReportJobService): void {
  app.openapi(createReportJobRoute, async (c) => {
    const body = c.req.valid('json') as z.infer<typeof ReportJobCreate>;
    const job = await reportJobs.create(
      c.get('auth').organizationId,
      { ...body.reportJob, query: body.reportJob.query ?? {} },
      idempotencyOf(c, body),
    );
    return c.json({ reportJob: job }, 202, { Location: `${BASE}/id/${job.id}` });
  });
  app.openAPIRegistry.registerPath(listReportJobsRoute);
  app.get(listReportJobsRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['status', 'limit', 'offset']);
    const status = statusOf(query);
    const { total, jobs } = await reportJobs.list(c.get('auth').organizationId, status, parsePaging(query, 100, 100));
    return c.json({ reportJobs: jobs }, 200, { 'X-TotalCount': String(total) });
  });
  app.openapi(getReportJobRoute, async (c) => {
    const job = await reportJobs.get(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'report job'));
    return c.json({ reportJob: job }, 200);
  });
  app.openapi(deleteReportJobRoute, async (c) => {
    await reportJobs.delete(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'report job'));
    return c.body(null, 204);
  });
  app.openAPIRegistry.registerPath(reportJobFileRoute);
  app.get('/reporting/v0/report-jobs/id/:id/file', async (c) => {
    const text = c.req.param('id');
    if (!/^-?\d{1,19}$/.test(text))
      throw badRequest('invalid_parameter', 'Invalid path parameter id: must be an integer.', [
        { field: 'id', code: 'invalid', message: 'must be an integer' },
      ]);
    const id = pathId(text, 'report job');
    return sendFile(c, await reportJobs.file(c.get('auth').organizationId, id));
  });
}
