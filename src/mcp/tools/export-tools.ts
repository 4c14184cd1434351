import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { queryValues, reportParameters } from '../report-arguments.js';
import type { RestAnswer, RestGateway } from '../rest-gateway.js';
import { withCachedJsonSchema } from '../cached-json-schema.js';
import { ANSWER_OUTPUT, answerResult, isSuccess } from '../tool-results.js';
import { READ_ONLY } from './reporting-tools.js';

const JOBS_PATH = '/reporting/v0/report-jobs';

/** run_report's parameters but paging (a job writes the whole result) and campaignLabel (jobs take the statistics endpoints). */
const startExportArguments = withCachedJsonSchema(
  z
    .object(reportParameters)
    .omit({ campaignLabel: true, limit: true, offset: true })
    .extend({
      format: z.enum(['csv', 'ndjson', 'parquet']).describe('The file format.'),
      compare: z.string().optional().describe('PREVIOUS_PERIOD, PREVIOUS_YEAR or YYYY-MM-DD..YYYY-MM-DD.'),
    }),
);

const jobId = withCachedJsonSchema(
  z.object({ id: z.number().int().positive().describe('The report job id start_export answered.') }),
);

/** The job as the REST API answers it, with where its file is and what to do next. */
function jobResult(rest: RestGateway, answer: RestAnswer) {
  if (!isSuccess(answer)) return answerResult(answer);
  const job = (answer.body as { reportJob: { id: number; status: string } }).reportJob;
  const fileUrl = rest.urlOf(`${JOBS_PATH}/id/${job.id}/file`);
  const lead =
    job.status === 'SUCCEEDED'
      ? `Report job ${job.id} SUCCEEDED: its file is at fileUrl (GET it with the same bearer token: curl -H "Authorization: Bearer $TOKEN" -o report '${fileUrl}').`
      : job.status === 'QUEUED' || job.status === 'RUNNING'
        ? `Report job ${job.id} is ${job.status}: call get_export with id ${job.id} until it is SUCCEEDED (progress is the share of rows written).`
        : `Report job ${job.id} is ${job.status}.`;
  return answerResult(answer, { lead, fileUrl });
}

export function registerExportTools(server: McpServer, rest: RestGateway): void {
  server.registerTool(
    'start_export',
    {
      title: 'Export a whole report to a file',
      description:
        'Starts a report job (POST /reporting/v0/report-jobs): the whole result of a report as CSV, NDJSON or Parquet, written in the background and kept seven days. For results larger than a page. The same parameters as run_report, validated the same way. Answers the job (status QUEUED); follow it with get_export.',
      inputSchema: startExportArguments,
      outputSchema: ANSWER_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) =>
      jobResult(
        rest,
        await rest.post(JOBS_PATH, {
          reportJob: { endpoint: args.endpoint, query: queryValues(args), format: args.format },
        }),
      ),
  );

  server.registerTool(
    'get_export',
    {
      title: 'A report job and its file',
      description:
        'A report job (GET /reporting/v0/report-jobs/id/<id>): status (QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED, EXPIRED), progress, rows, bytes, SHA-256, warnings, and fileUrl, where the file is once SUCCEEDED (GET it with the same bearer token).',
      inputSchema: jobId,
      outputSchema: ANSWER_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ id }) => jobResult(rest, await rest.get(`${JOBS_PATH}/id/${id}`)),
  );

  server.registerTool(
    'cancel_export',
    {
      title: 'Cancel or delete a report job',
      description:
        'DELETE /reporting/v0/report-jobs/id/<id>: cancels a job that has not finished, or deletes a finished one and its file. Cannot be undone.',
      inputSchema: jobId,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }) => {
      const answer = await rest.delete(`${JOBS_PATH}/id/${id}`);
      if (!isSuccess(answer)) return answerResult(answer);
      return toolDone(`Report job ${id} cancelled or deleted (DELETE ${answer.url} answered ${answer.status}).`);
    },
  );
}

function toolDone(text: string) {
  return { content: [{ type: 'text' as const, text }] };
}
