import { chooseEncoding } from './content-coding.js';
import type { ReportService } from '../reporting/report-service.js';
import { ApiError } from '../shared/errors.js';
import { invalidParameter } from '../shared/query-params.js';

/** The formats the reporting service exports, as its interface says (http maps them to media types, D4: not from sql). */
export type ExportFormat = Parameters<ReportService['export']>[1];

export type ResponseFormat = 'json' | ExportFormat;

const MEDIA_TYPES: Readonly<Record<ResponseFormat, readonly string[]>> = {
  json: ['application/json', 'application/*', '*/*'],
  csv: ['text/csv'],
  ndjson: ['application/x-ndjson', 'application/jsonl'],
  parquet: ['application/vnd.apache.parquet', 'application/parquet'],
};

export const CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8; header=present',
  ndjson: 'application/x-ndjson; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/**
 * `format=` wins; otherwise the Accept header's most preferred type we serve (q-values
 * honoured, ties in header order). No Accept, or one that allows anything, is JSON; an Accept
 * naming only types we cannot produce is 406.
 */
export function responseFormat(formatParameter: string | undefined, accept: string | undefined): ResponseFormat {
  if (formatParameter !== undefined) {
    if (!(formatParameter in MEDIA_TYPES))
      invalidParameter('format', `"${formatParameter}" is not one of json, csv, ndjson, parquet`);
    return formatParameter as ResponseFormat;
  }
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [type = '', ...parameters] = part.split(';').map((p) => p.trim().toLowerCase());
      const q = parameters.find((p) => p.startsWith('q='));
      return { type, q: q === undefined ? 1 : Number(q.slice(2)) || 0, index };
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of ranges) {
    const format = (Object.keys(MEDIA_TYPES) as ResponseFormat[]).find((f) => MEDIA_TYPES[f].includes(range.type));
    if (format) return format;
  }
  throw new ApiError(
    406,
    'not_acceptable',
    `None of the types in Accept can be produced; reports are application/json, text/csv, application/x-ndjson or application/vnd.apache.parquet (or ask with format=).`,
  );
}

/**
 * gzip when Accept-Encoding chooses it over identity (RFC 9110 12.5.3, the same reading as the
 * JSON answers'): a refusal by name (`gzip;q=0`) holds under `*`, `x-gzip` is gzip.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return chooseEncoding(acceptEncoding, EXPORT_CODINGS).coding === 'gzip';
}

/** Exports have one coding of their own (Parquet compresses inside the file and takes none). */
const EXPORT_CODINGS = ['gzip'] as const;
