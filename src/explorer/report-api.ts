import type { AdreportClient } from '../client/index.js';
import { REPORTING_PREFIX, reportEndpointsOf, type ReportEndpoint } from './report-fields.js';
import { exportQuery, pageQuery, type ExportFormat } from './report-query.js';
import type { ReportState } from './report-state.js';

/**
 * The explorer's calls, through the typed client. Every statistics endpoint takes the campaigns
 * endpoint's query or a part of it, so the calls are typed as the campaigns endpoint's; an
 * endpoint's own rules (a statistic it lacks) come back as the service's 400, shown in place.
 */
type StatisticsPath = '/reporting/v0/campaigns';
const pathOf = (endpoint: ReportEndpoint) => `${REPORTING_PREFIX}${endpoint.path}` as StatisticsPath;

export interface ReportAnswer {
  readonly body: Record<string, unknown>;
  readonly rows: ReadonlyArray<Record<string, unknown>>;
  /** X-TotalCount: rows of the whole result. */
  readonly totalCount: number;
  /** The resolved range (X-Start-Date, X-End-Date). */
  readonly startDate: string | null;
  readonly endDate: string | null;
  /** X-Data-Complete-Through: figures after it may still change. */
  readonly completeThrough: string | null;
  /** Under compare, the compared range (X-Compare-Start-Date, X-Compare-End-Date). */
  readonly compareStartDate: string | null;
  readonly compareEndDate: string | null;
}

export async function fetchEndpoints(client: AdreportClient): Promise<ReportEndpoint[]> {
  return reportEndpointsOf(await client.get('/reporting/v0/fields'));
}

/** One page of a report, with its totals. */
export async function fetchReport(
  client: AdreportClient,
  endpoint: ReportEndpoint,
  state: ReportState,
  signal: AbortSignal,
): Promise<ReportAnswer> {
  for await (const page of client.pages(pathOf(endpoint), { params: { query: pageQuery(state) }, signal })) {
    const body = page.data as unknown as Record<string, unknown>;
    const rows = (body[endpoint.rows] ?? []) as Array<Record<string, unknown>>;
    const headers = page.response.headers;
    return {
      body,
      rows,
      totalCount: page.totalCount ?? rows.length,
      startDate: headers.get('x-start-date'),
      endDate: headers.get('x-end-date'),
      completeThrough: headers.get('x-data-complete-through'),
      compareStartDate: headers.get('x-compare-start-date'),
      compareEndDate: headers.get('x-compare-end-date'),
    };
  }
  throw new Error(`GET ${pathOf(endpoint)} answered no page`);
}

export interface Download {
  readonly blob: Blob;
  readonly fileName: string;
}

/**
 * The whole report as a file: streamed from the service, `onProgress` told the bytes received
 * so far, then handed over as one Blob.
 */
export async function downloadReport(
  client: AdreportClient,
  endpoint: ReportEndpoint,
  state: ReportState,
  format: ExportFormat,
  onProgress: (bytes: number) => void,
): Promise<Download> {
  const file = await client.export(pathOf(endpoint), format, { params: { query: exportQuery(state) } });
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = file.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
    onProgress(bytes);
  }
  return {
    blob: new Blob(chunks as BlobPart[], { type: file.contentType }),
    fileName: file.fileName ?? `${endpoint.rows}.${format}`,
  };
}
