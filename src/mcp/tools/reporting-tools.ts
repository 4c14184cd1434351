import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { explorerLink } from '../explorer-link.js';
import {
  comparePeriodsArguments,
  DATE,
  MCP_DEFAULT_LIMIT,
  reportPath,
  reportQuery,
  runReportArguments,
  type RunReportArguments,
} from '../report-arguments.js';
import type { RestGateway } from '../rest-gateway.js';
import { explainStatistic, STATISTIC_NAMES } from '../statistic-explanation.js';
import { STATISTIC_BY_NAME } from '../../catalog/statistics.js';
import { withCachedJsonSchema } from '../cached-json-schema.js';
import {
  ANSWER_OUTPUT,
  answerResult,
  provenanceSchema,
  isSuccess,
  restFailure,
  reportPageResult,
  toolFailure,
  type ToolResult,
} from '../tool-results.js';
import { provenanceOf } from '../provenance.js';
import { DATE_PRESETS } from '../../reporting/report-request.js';

const DESCRIBE_INPUT = withCachedJsonSchema(
  z.object({
    endpoint: z.string().min(1).max(200).optional().describe('An endpoint path, with or without /reporting/v0/.'),
  }),
);
const FRESHNESS_INPUT = withCachedJsonSchema(
  z.object({
    accountIds: z
      .array(z.number().int().positive())
      .min(1)
      .max(100)
      .optional()
      .describe('Only the platform accounts linked to these accounts.'),
    dateRange: z.enum(DATE_PRESETS).optional().describe('The range to judge (default LAST_30_DAYS).'),
    startDate: DATE.optional().describe('YYYY-MM-DD, with endDate, instead of dateRange.'),
    endDate: DATE.optional().describe('YYYY-MM-DD, inclusive.'),
  }),
);
const CHANGES_INPUT = withCachedJsonSchema(
  z.object({
    since: z.string().min(1).max(500).optional().describe('The nextCursor of the previous answer.'),
    limit: z.number().int().min(1).max(1000).optional().describe('Changes per answer (default 100).'),
  }),
);
const EXPLAIN_INPUT = withCachedJsonSchema(
  z.object({ name: z.enum(STATISTIC_NAMES).describe('The statistic, e.g. "ctr", "roas", "reach".') }),
);
const EXPLAIN_OUTPUT = withCachedJsonSchema(
  z.object({ explanation: z.record(z.string(), z.unknown()), provenance: provenanceSchema }),
);
const RUN_REPORT_INPUT = withCachedJsonSchema(runReportArguments);
const COMPARE_INPUT = withCachedJsonSchema(comparePeriodsArguments);

/** Reads only this organization's data; asking twice answers the same (until the data changes). */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const FIELDS_PATH = '/reporting/v0/fields';

/** A report page through the REST API: the arguments as its query, the answer with provenance and paging. */
async function runReport(rest: RestGateway, args: RunReportArguments): Promise<ToolResult> {
  if (args.campaignLabel !== undefined && args.endpoint !== 'accounts')
    return toolFailure(
      'invalid_parameter',
      `campaignLabel reports accounts by a campaign label: it needs endpoint "accounts", not "${args.endpoint}".`,
      'campaignLabel',
    );
  const query = reportQuery(args);
  const answer = await rest.get(reportPath(args), query);
  const paging = { offset: args.offset ?? 0, limit: args.limit ?? MCP_DEFAULT_LIMIT };
  const explorer = args.campaignLabel === undefined ? explorerLink(rest.origin, args.endpoint, query) : undefined;
  return reportPageResult(answer, paging, explorer);
}

/** One endpoint of GET /reporting/v0/fields in a line: what an agent needs to choose one. */
function endpointIndex(entry: Record<string, unknown>) {
  const names = (member: string) =>
    Array.isArray(entry[member]) ? (entry[member] as Array<{ name: string }>).map((item) => item.name) : undefined;
  return { path: entry.path, rows: entry.rows, statistics: names('statistics'), segments: names('segments') };
}

export function registerReportingTools(server: McpServer, rest: RestGateway): void {
  server.registerTool(
    'describe_reporting',
    {
      title: 'Describe the reporting endpoints',
      description:
        'What GET /reporting/v0/fields says. Without endpoint: every endpoint with its statistics and segments (an index). With endpoint (e.g. "campaigns", "/reporting/v0/ads/facebook", "markups"): its whole entry: statistics with type and default, segments, the sources and what they combine, date ranges, compare forms, totals, what filter and sort accept, embeds. Call it before run_report.',
      inputSchema: DESCRIBE_INPUT,
      outputSchema: ANSWER_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ endpoint }) => {
      const answer = await rest.get(FIELDS_PATH);
      if (!isSuccess(answer)) return restFailure(answer);
      const entries = (answer.body as { endpoints: Array<Record<string, unknown>> }).endpoints;
      if (endpoint === undefined)
        return answerResult(answer, {
          part: () => ({ endpoints: entries.map(endpointIndex) }),
          lead: 'The reporting endpoints, each with its statistics and segments. describe_reporting with an endpoint gives its whole entry of GET /reporting/v0/fields.',
        });
      const path = endpoint.startsWith('/') ? endpoint : `/reporting/v0/${endpoint}`;
      const entry = entries.find((e) => e.path === path);
      if (entry === undefined)
        return toolFailure(
          'invalid_parameter',
          `No reporting endpoint ${path}; the endpoints: ${entries.map((e) => String(e.path)).join(', ')}.`,
          'endpoint',
        );
      return answerResult(answer, { part: () => entry });
    },
  );

  server.registerTool(
    'run_report',
    {
      title: 'Run a report',
      description:
        'One page of a statistics report: GET /reporting/v0/<endpoint> with these parameters (the same names and rules; a bad value is refused with the REST error). The answer is the REST body (rows, totals, warnings, meta.freshness) with provenance: the data version (ETag), completeThrough and whether the numbers may still change, the warnings, the engine, the REST URL and the explorer URL of the same numbers. A result larger than the page says so and gives the next offset; for the whole result as a file use start_export.',
      inputSchema: RUN_REPORT_INPUT,
      outputSchema: ANSWER_OUTPUT,
      annotations: READ_ONLY,
    },
    (args) => runReport(rest, args),
  );

  server.registerTool(
    'compare_periods',
    {
      title: 'Compare two periods',
      description:
        'A report over a range compared with another (default PREVIOUS_PERIOD): every row and the totals gain `comparison` (the same statistics over the compared range) and `change` ((current - compared) / compared, null when compared is 0). Rows pair by entity, time buckets by position, other segments by value. Filter and sort may name comparison.statistics.<name> and change.statistics.<name>. Same parameters, paging and provenance as run_report.',
      inputSchema: COMPARE_INPUT,
      outputSchema: ANSWER_OUTPUT,
      annotations: READ_ONLY,
    },
    (args) => runReport(rest, args),
  );

  server.registerTool(
    'freshness',
    {
      title: 'How fresh the data is',
      description:
        "How complete the figures are: per platform account the last day synced, when it was synced, the last day whose figures are final (completeThrough: the platform's conversion lag has passed) and whether a backfill runs; the organization's completeThrough; for the range, whether its numbers may still change. The answer is meta.freshness of the platform accounts report over the range (the accounts the filter selects).",
      inputSchema: FRESHNESS_INPUT,
      outputSchema: ANSWER_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ accountIds, dateRange, startDate, endDate }) => {
      const query = new URLSearchParams({ statistics: 'impressions', limit: '1' });
      if (accountIds !== undefined) query.set('filter', `accountId in [${accountIds.join(', ')}]`);
      for (const [name, value] of Object.entries({ dateRange, startDate, endDate }))
        if (value !== undefined) query.set(name, value);
      const answer = await rest.get('/reporting/v0/adplatform-accounts', query);
      return answerResult(answer, { part: (body) => (body as { meta: { freshness: unknown } }).meta.freshness });
    },
  );

  server.registerTool(
    'changes_since',
    {
      title: 'What report data changed',
      description:
        'The change feed (GET /reporting/v0/changes): what changed in the report data since a cursor, in commit order (days restated, entities and links changed). Without since: from the oldest change kept (seven days). Pass nextCursor as since next time; while hasMore, more are there already. A cursor older than seven days is refused (cursor_expired): start again without since.',
      inputSchema: CHANGES_INPUT,
      outputSchema: ANSWER_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ since, limit }) => {
      const query = new URLSearchParams();
      if (since !== undefined) query.set('since', since);
      if (limit !== undefined) query.set('limit', String(limit));
      const answer = await rest.get('/reporting/v0/changes', query);
      const more = isSuccess(answer) && (answer.body as { hasMore?: boolean }).hasMore === true;
      return answerResult(answer, {
        lead: more ? 'More changes are there already: call again with since = nextCursor.' : undefined,
      });
    },
  );

  server.registerTool(
    'explain_statistic',
    {
      title: 'How a statistic is computed',
      description:
        "How a statistic is computed, from the catalogue the reports are compiled from: what it sums or divides (ratios from the row's sums, never averages of daily ratios), its type, null rules, currency conversion, rounding, totals, the tables its figures come from and the endpoints that offer it (and where it is a default).",
      inputSchema: EXPLAIN_INPUT,
      outputSchema: EXPLAIN_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ name }) => {
      // The catalogue is the service's own; GET /reporting/v0/fields is where a person reads the same descriptions.
      const answer = await rest.get(FIELDS_PATH);
      if (!isSuccess(answer)) return restFailure(answer);
      const explanation = explainStatistic(STATISTIC_BY_NAME.get(name)!);
      const structured = { explanation, provenance: provenanceOf(answer) };
      return { content: [{ type: 'text' as const, text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );
}
