import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  JOB_STATUSES,
  JOB_TYPES,
  toJobResponse,
  type JobLookup,
  type JobStatus,
  type JobType,
} from '../../provisioning/job-queue.js';
import type { AppEnv } from '../context.js';
import { idParam, pathId } from '../path-ids.js';
import { errorResponses } from '../openapi-errors.js';
import { bearer, jsonContent, TOTAL_COUNT } from '../openapi-helpers.js';
import { pagingQuery } from '../openapi-parameters.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';

export const JobSchema = z
  .object({
    id: z.number().int(),
    type: z.enum(JOB_TYPES),
    status: z.enum(JOB_STATUSES),
    createdAt: z.string().openapi({ format: 'date-time' }),
    startedAt: z.string().nullable().openapi({ format: 'date-time' }),
    finishedAt: z.string().nullable().openapi({ format: 'date-time' }),
    attempts: z.number().int(),
    input: z.record(z.string(), z.unknown()),
    result: z.record(z.string(), z.unknown()).nullable(),
    errors: z.array(
      z.object({
        code: z.string(),
        message: z.string(),
        attempt: z.number().int(),
        at: z.string().openapi({ format: 'date-time' }),
      }),
    ),
  })
  .openapi('Job');

const getJobRoute = createRoute({
  method: 'get',
  path: '/provisioning/v0/jobs/id/{id}',
  operationId: 'getJob',
  description:
    'Jobs are kept seven days. status goes QUEUED, RUNNING, then SUCCEEDED, PARTIALLY_SUCCEEDED or FAILED; errors lists each failed attempt.',
  tags: ['Jobs'],
  summary: 'One job of the last seven days',
  ...bearer('provisioning'),
  request: { params: z.object({ id: idParam() }) },
  responses: {
    200: { description: 'The job.', ...jsonContent(z.object({ job: JobSchema })) },
    ...errorResponses('get', { 400: 'A malformed path id.', 404: 'Unknown, or older than seven days.' }),
  },
});

const listJobsRoute = createRoute({
  method: 'get',
  path: '/provisioning/v0/jobs',
  operationId: 'listJobs',
  description: 'Jobs started in the last seven days, sorted by id, filtered by status and type.',
  tags: ['Jobs'],
  summary: 'Jobs of the last seven days, by id',
  ...bearer('provisioning'),
  request: {
    query: z.object({
      status: z.enum(JOB_STATUSES).optional().openapi({ description: 'Only jobs in this status.' }),
      type: z.enum(JOB_TYPES).optional().openapi({ description: 'Only jobs of this type.' }),
      ...pagingQuery(100),
    }),
  },
  responses: {
    200: { description: 'One page.', headers: TOTAL_COUNT, ...jsonContent(z.object({ jobs: z.array(JobSchema) })) },
    ...errorResponses('get', {
      400: 'A query parameter breaks its rules (invalid_parameter, unknown_parameter); details name it.',
    }),
  },
});

function oneOf<T extends string>(query: QueryParams, name: string, allowed: readonly T[]): T | undefined {
  const value = query.get(name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) invalidParameter(name, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function registerJobRoutes(app: OpenAPIHono<AppEnv>, jobs: JobLookup): void {
  app.openapi(getJobRoute, async (c) => {
    const job = await jobs.get(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'job'));
    return c.json({ job: toJobResponse(job) }, 200);
  });
  app.openAPIRegistry.registerPath(listJobsRoute);
  app.get(listJobsRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['status', 'type', 'limit', 'offset']);
    const filter = {
      status: oneOf<JobStatus>(query, 'status', JOB_STATUSES),
      type: oneOf<JobType>(query, 'type', JOB_TYPES),
    };
    const { total, jobs: page } = await jobs.list(c.get('auth').organizationId, filter, parsePaging(query, 100, 100));
    return c.json({ jobs: page.map(toJobResponse) }, 200, { 'X-TotalCount': String(total) });
  });
}
