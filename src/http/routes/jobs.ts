import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { toJobResponse, type JobService } from '../../jobs/job-service.js';
import { JOB_STATUSES, JOB_TYPES, type JobStatus, type JobType } from '../../jobs/job-types.js';
import type { AppEnv } from '../context.js';
import { idParam, pathId } from '../path-ids.js';
import { invalidParameter, parsePaging, QueryParams } from '../../shared/query-params.js';

export const JobSchema = z
  .object({
    id: z.number().int(),
    type: z.enum(JOB_TYPES),
    status: z.enum(JOB_STATUSES),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    attempts: z.number().int(),
    input: z.record(z.string(), z.unknown()),
    result: z.record(z.string(), z.unknown()).nullable(),
    errors: z.array(z.object({ code: z.string(), message: z.string(), attempt: z.number().int(), at: z.string() })),
  })
  .openapi('Job');

const getJobRoute = createRoute({
  method: 'get',
  path: '/provisioning/v0/jobs/id/{id}',
  summary: 'One job of the last seven days',
  security: [{ bearerAuth: [] }],
  request: { params: z.object({ id: idParam() }) },
  responses: { 200: { description: 'The job.', content: { 'application/json': { schema: z.object({ job: JobSchema }) } } }, 404: { description: 'Unknown, or older than seven days.' } },
});

const listJobsRoute = createRoute({
  method: 'get',
  path: '/provisioning/v0/jobs',
  summary: 'Jobs of the last seven days, by id',
  security: [{ bearerAuth: [] }],
  request: {
    query: z.object({
      status: z.enum(JOB_STATUSES).optional(),
      type: z.enum(JOB_TYPES).optional(),
      limit: z.string().optional(),
      offset: z.string().optional(),
    }),
  },
  responses: { 200: { description: 'One page; X-TotalCount counts all.', content: { 'application/json': { schema: z.object({ jobs: z.array(JobSchema) }) } } } },
});

function oneOf<T extends string>(query: QueryParams, name: string, allowed: readonly T[]): T | undefined {
  const value = query.get(name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) invalidParameter(name, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function registerJobRoutes(app: OpenAPIHono<AppEnv>, jobs: JobService): void {
  app.openapi(getJobRoute, async (c) => {
    const job = await jobs.get(c.get('auth').organizationId, pathId(c.req.valid('param').id, 'job'));
    return c.json({ job: toJobResponse(job) }, 200);
  });
  app.openAPIRegistry.registerPath(listJobsRoute);
  app.get(listJobsRoute.path, async (c) => {
    const query = QueryParams.parse(c.req.url, ['status', 'type', 'limit', 'offset']);
    const filter = { status: oneOf<JobStatus>(query, 'status', JOB_STATUSES), type: oneOf<JobType>(query, 'type', JOB_TYPES) };
    const { total, jobs: page } = await jobs.list(c.get('auth').organizationId, filter, parsePaging(query, 100, 100));
    return c.json({ jobs: page.map(toJobResponse) }, 200, { 'X-TotalCount': String(total) });
  });
}
