import * as z from 'zod';
import { withCachedJsonSchema } from './cached-json-schema.js';
import { provenanceOf, type Provenance } from './provenance.js';
import type { RestAnswer } from './rest-gateway.js';

/** A tool's answer as the SDK sends it: JSON text for every client, the same object as structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Which rows a report answer holds, and where the next ones are. */
export interface PageInfo {
  readonly offset: number;
  readonly limit: number;
  readonly returned: number;
  /** X-TotalCount: rows of the whole result. */
  readonly totalCount: number | null;
  /** The offset of the next page; null when this is the last. */
  readonly nextOffset: number | null;
}

export const provenanceSchema = z.object({
  restUrl: z.string(),
  method: z.string(),
  requestId: z.string().nullable(),
  dataVersion: z.string().nullable(),
  completeThrough: z.string().nullable(),
  mayChange: z.boolean().nullable(),
  engine: z.string().nullable(),
  range: z.object({ startDate: z.string(), endDate: z.string() }).nullable(),
  comparedRange: z.object({ startDate: z.string(), endDate: z.string() }).nullable(),
  warnings: z.array(z.unknown()),
  explorerUrl: z.string().optional(),
});

const pageSchema = z.object({
  offset: z.number(),
  limit: z.number(),
  returned: z.number(),
  totalCount: z.number().nullable(),
  nextOffset: z.number().nullable(),
});

/** The structured content of every tool that answers from the REST API. */
export const answerSchema = z.object({
  answer: z.unknown().describe('The REST answer body, as GET provenance.restUrl returns it.'),
  provenance: provenanceSchema,
  page: pageSchema.optional(),
  fileUrl: z
    .string()
    .optional()
    .describe('Report jobs: where the file is once SUCCEEDED (GET with the same bearer token).'),
});

/** answerSchema with its JSON Schema computed once (cached-json-schema.ts), for registerTool. */
export const ANSWER_OUTPUT = withCachedJsonSchema(answerSchema);

/**
 * The structured content as JSON text too (for clients that read only text), led by what to do
 * next. `answerJson` is the REST body's text when the answer is the whole body: a 1,000-row page
 * is not serialized a second time.
 */
function textResult(structured: Record<string, unknown>, lead?: string, answerJson?: string): ToolResult {
  let json: string;
  if (answerJson === undefined || answerJson === '') json = JSON.stringify(structured);
  else {
    const others = JSON.stringify({ ...structured, answer: undefined });
    json = others === '{}' ? `{"answer":${answerJson}}` : `{"answer":${answerJson},${others.slice(1)}`;
  }
  return {
    content: [{ type: 'text', text: lead === undefined ? json : `${lead}\n${json}` }],
    structuredContent: structured,
  };
}

/** The REST error envelope's members, for the tool error. */
interface RestError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details: readonly unknown[];
}

/** The code of an answer without a body: DELETE errors are the status alone (spec 7). */
const CODE_OF_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'precondition_failed',
  429: 'rate_limited',
  503: 'unavailable',
};

function restErrorOf(answer: RestAnswer): RestError {
  const envelope = (answer.body as { error?: Partial<RestError> } | undefined)?.error;
  const code =
    typeof envelope?.code === 'string' ? envelope.code : (CODE_OF_STATUS[answer.status] ?? `http_${answer.status}`);
  return {
    status: answer.status,
    code,
    message:
      typeof envelope?.message === 'string'
        ? envelope.message
        : `${answer.method} ${new URL(answer.url).pathname} answered ${answer.status} (${code}).`,
    details: Array.isArray(envelope?.details) ? envelope.details : [],
  };
}

/**
 * A REST failure as an MCP tool error (isError: the agent reads it and may correct itself): the
 * REST error's code and message first, then the whole error with the URL it came from.
 */
export function restFailure(answer: RestAnswer): ToolResult {
  const error = restErrorOf(answer);
  const retryAfter = answer.headers.get('retry-after');
  const structured = {
    error: { ...error, ...(retryAfter === null ? {} : { retryAfterSeconds: Number(retryAfter) }) },
    restUrl: answer.url,
    requestId: answer.headers.get('x-request-id'),
  };
  return { ...textResult(structured, `${error.code}: ${error.message}`), isError: true };
}

/** A tool error of the MCP layer itself, in the REST error's shape (e.g. arguments that cannot go together). */
export function toolFailure(code: string, message: string, field?: string): ToolResult {
  const details = field === undefined ? [] : [{ field, code, message }];
  const structured = { error: { status: 400, code, message, details } };
  return { ...textResult(structured, `${code}: ${message}`), isError: true };
}

export function isSuccess(answer: RestAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** The REST answer with its provenance; a failure as a tool error. */
export function answerResult(
  answer: RestAnswer,
  options: {
    explorerUrl?: string | undefined;
    lead?: string | undefined;
    fileUrl?: string | undefined;
    /** The part of the REST body the tool answers with (the provenance is still the whole answer's). */
    part?: (body: unknown) => unknown;
  } = {},
): ToolResult {
  if (!isSuccess(answer)) return restFailure(answer);
  const provenance: Provenance = provenanceOf(answer, options.explorerUrl);
  const fileUrl = options.fileUrl === undefined ? {} : { fileUrl: options.fileUrl };
  if (options.part === undefined)
    return textResult({ answer: answer.body, provenance, ...fileUrl }, options.lead, answer.json);
  return textResult({ answer: options.part(answer.body), provenance, ...fileUrl }, options.lead);
}

/** The rows member of a report body: its one array that is not warnings or segment totals. */
function rowCount(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 0;
  for (const [key, value] of Object.entries(body))
    if (Array.isArray(value) && key !== 'warnings' && key !== 'segmentTotals') return value.length;
  return 0;
}

/**
 * A report page with its provenance and where the rest is: never a page cut short without
 * saying so. The lead line tells the agent how to get the other rows.
 */
export function reportPageResult(
  answer: RestAnswer,
  paging: { offset: number; limit: number },
  explorerUrl: string | undefined,
): ToolResult {
  if (!isSuccess(answer)) return restFailure(answer);
  const total = answer.headers.get('x-totalcount');
  const totalCount = total === null ? null : Number(total);
  const returned = rowCount(answer.body);
  const end = paging.offset + returned;
  const more = totalCount === null ? returned === paging.limit : end < totalCount;
  const page: PageInfo = { ...paging, returned, totalCount, nextOffset: more ? paging.offset + paging.limit : null };
  const lead = more
    ? `Rows ${paging.offset + 1}-${end} of ${totalCount ?? 'more'}: this is one page. For the next, call again with offset ${page.nextOffset}; for the whole result as a file, start_export.`
    : `Rows ${returned === 0 ? 0 : paging.offset + 1}-${end} of ${totalCount ?? end}: the whole result.`;
  return textResult({ answer: answer.body, provenance: provenanceOf(answer, explorerUrl), page }, lead, answer.json);
}
