import type { RestAnswer } from './rest-gateway.js';

/**
 * Where a tool's numbers come from, on every result: the data version and the completeness the
 * REST answer states in its headers and body, the engine that computed it, and the REST URL (and,
 * where the explorer can show it, the explorer's) with which a person opens the same numbers.
 */
export interface Provenance {
  /** The REST request the tool made: GET it with the same bearer token for the same answer. */
  readonly restUrl: string;
  readonly method: string;
  /** The REST answer's X-Request-Id (the service's logs name it). */
  readonly requestId: string | null;
  /** The ETag: the version of the data behind the answer; an unchanged ETag is an unchanged answer. */
  readonly dataVersion: string | null;
  /** X-Data-Complete-Through: the last day whose figures are final for every synced platform account of the report. */
  readonly completeThrough: string | null;
  /**
   * Whether the numbers may still change: the range ends after completeThrough (or nothing
   * was synced yet), so platforms may still restate its last days.
   */
  readonly mayChange: boolean | null;
  /** X-Report-Engine: the engine that computed the figures (duckdb, clickhouse). */
  readonly engine: string | null;
  /** The resolved range (X-Start-Date, X-End-Date), and with compare the compared one. */
  readonly range: { readonly startDate: string; readonly endDate: string } | null;
  readonly comparedRange: { readonly startDate: string; readonly endDate: string } | null;
  /** The answer's warnings (incomplete_data, mixed_currencies, estimated_fx_rates, ...), as REST gives them. */
  readonly warnings: readonly unknown[];
  /** The same report in the browser explorer, when the explorer can show every parameter. */
  readonly explorerUrl?: string;
}

const header = (answer: RestAnswer, name: string) => answer.headers.get(name);

function rangeOf(answer: RestAnswer, start: string, end: string): Provenance['range'] {
  const startDate = header(answer, start);
  const endDate = header(answer, end);
  return startDate === null || endDate === null ? null : { startDate, endDate };
}

/** The warnings of a JSON answer, or of a report job (its `warnings`). */
function warningsOf(body: unknown): readonly unknown[] {
  if (typeof body !== 'object' || body === null) return [];
  const warnings = (body as { warnings?: unknown }).warnings;
  return Array.isArray(warnings) ? warnings : [];
}

export function provenanceOf(answer: RestAnswer, explorerUrl?: string): Provenance {
  const range = rangeOf(answer, 'x-start-date', 'x-end-date');
  const completeThrough = header(answer, 'x-data-complete-through');
  return {
    restUrl: answer.url,
    method: answer.method,
    requestId: header(answer, 'x-request-id'),
    dataVersion: header(answer, 'etag'),
    completeThrough,
    mayChange: range === null ? null : completeThrough === null || range.endDate > completeThrough,
    engine: header(answer, 'x-report-engine'),
    range,
    comparedRange: rangeOf(answer, 'x-compare-start-date', 'x-compare-end-date'),
    warnings: warningsOf(answer.body),
    ...(explorerUrl === undefined ? {} : { explorerUrl }),
  };
}
