import createFetchClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import { errorFrom, errorFromResponse } from './errors.js';
import type { components, paths } from './openapi-types.js';
import { TokenSource, type AccessToken, type ClientCredentials } from './token-source.js';

/**
 * `adreport/client`: a typed client of the adreport HTTP API, for Node 20+ and browsers (fetch
 * only). Its types are generated from the OpenAPI document the service serves; the explorer at
 * GET /explorer is built on it.
 */
export { AdreportError } from './errors.js';
export type { ErrorBody, ErrorDetail, OAuthErrorBody } from './errors.js';
export type { AccessToken, ClientCredentials } from './token-source.js';
export type { components, operations, paths } from './openapi-types.js';

export interface AdreportClientOptions extends ClientCredentials {
  /** The service's origin, e.g. `https://localhost:8443`. */
  baseUrl: string;
  /** Renew the token this long before it expires (default 60 s; at most half its lifetime). */
  renewBeforeSeconds?: number;
  /** GETs answered 429 or 503 are sent again after `Retry-After` (at most 30 s each), this many times (default 2). */
  retries?: number;
  /** Another fetch (a proxy's, a test's); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** The clock token renewal reads (tests). */
  nowMs?: () => number;
}

export type GetPath = ClientPathsWithMethod<Client<paths>, 'get'>;
export type GetInit<P extends GetPath> = MaybeOptionalInit<paths[P], 'get'>;
/** The 2xx body of GET `P`. */
export type GetData<P extends GetPath> = NonNullable<
  FetchResponse<paths[P]['get'], object, 'application/json'>['data']
>;
/** Members of a body that are arrays but not its rows. */
type NotRows = 'warnings' | 'segmentTotals';
/** One row of a list or report: the element of the body's array of rows (the level's plural key). */
export type RowOf<Body> = {
  [K in keyof Body]-?: K extends NotRows ? never : NonNullable<Body[K]> extends ReadonlyArray<infer Row> ? Row : never;
}[keyof Body];

/** The endpoints that export: every statistics report. */
export type ExportFormat = 'csv' | 'ndjson' | 'parquet';

export interface ReportPage<Body> {
  readonly data: Body;
  /** X-TotalCount: rows of the whole result, across all pages. */
  readonly totalCount: number | undefined;
  readonly offset: number;
  readonly limit: number;
  readonly response: Response;
}

export interface ExportDownload {
  /** The file's bytes as they arrive; read it to the end or cancel it. */
  readonly body: ReadableStream<Uint8Array>;
  /** The name the service proposes (Content-Disposition), e.g. `campaigns_2026-07-01_2026-09-30.csv`. */
  readonly fileName: string | undefined;
  readonly contentType: string;
  readonly response: Response;
}

export interface AdreportClient extends Client<paths, 'application/json'> {
  /** A valid access token (renewed before expiry); its first call checks the credentials. */
  token(): Promise<AccessToken>;
  /** GET `path`: the typed body, or an AdreportError thrown. */
  get<P extends GetPath>(path: P, init?: GetInit<P>): Promise<GetData<P>>;
  /** Every page of a list or report, `limit` rows each (the query's, else 100), until X-TotalCount is reached. */
  pages<P extends GetPath>(path: P, init?: GetInit<P>): AsyncIterable<ReportPage<GetData<P>>>;
  /** Every row of a list or report, page after page. */
  rows<P extends GetPath>(path: P, init?: GetInit<P>): AsyncIterable<RowOf<GetData<P>>>;
  /** A report as CSV, NDJSON or Parquet, streamed: nothing is buffered. */
  export<P extends GetPath>(path: P, format: ExportFormat, init?: GetInit<P>): Promise<ExportDownload>;
}

const DEFAULT_LIMIT = 100;
const NOT_ROWS: ReadonlySet<string> = new Set<NotRows>(['warnings', 'segmentTotals']);
const MAX_RETRY_WAIT_SECONDS = 30;

export function createAdreportClient(options: AdreportClientOptions): AdreportClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const tokens = new TokenSource(
    `${baseUrl}/token`,
    options,
    baseFetch,
    options.renewBeforeSeconds ?? 60,
    options.nowMs ?? Date.now,
  );
  const retries = options.retries ?? 2;

  // Every call carries a current token; a 401 (token revoked or its key rotated away) gets one
  // new token and one more try, and an idempotent call answered 429/503 waits as told and retries.
  async function authorizedFetch(request: Request): Promise<Response> {
    for (let attempt = 0, renewed = false; ; attempt++) {
      const token = await tokens.get();
      const sent = request.clone();
      sent.headers.set('authorization', `Bearer ${token.accessToken}`);
      const response = await baseFetch(sent);
      if (response.status === 401 && !renewed) {
        renewed = true;
        tokens.invalidate(token.accessToken);
        await response.body?.cancel();
        continue;
      }
      const wait = retryWaitSeconds(request, response, attempt, retries);
      if (wait === undefined) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  }

  const api = createFetchClient<paths, 'application/json'>({
    baseUrl,
    fetch: authorizedFetch,
    // The document's comma lists are `style: form, explode: false` (segments=Day,Week).
    querySerializer: { array: { style: 'form', explode: false } },
  });

  async function get<P extends GetPath>(path: P, init?: GetInit<P>): Promise<GetData<P>> {
    const result = await (api.GET as UntypedGet)(path, init);
    if (result.error !== undefined || !result.response.ok) throw errorFrom(result.response, result.error);
    return result.data as GetData<P>;
  }

  async function* pages<P extends GetPath>(path: P, init?: GetInit<P>): AsyncIterable<ReportPage<GetData<P>>> {
    const query = queryOf(init);
    const limit = Number(query.limit ?? DEFAULT_LIMIT);
    for (let offset = Number(query.offset ?? 0); ; offset += limit) {
      const pageInit = { ...init, params: { ...init?.params, query: { ...query, limit, offset } } };
      const result = await (api.GET as UntypedGet)(path, pageInit);
      if (result.error !== undefined || !result.response.ok) throw errorFrom(result.response, result.error);
      const data = result.data as GetData<P>;
      const header = result.response.headers.get('x-totalcount');
      const totalCount = header === null ? undefined : Number(header);
      yield { data, totalCount, offset, limit, response: result.response };
      const rowCount = rowsIn(data).length;
      if (rowCount < limit || (totalCount !== undefined && offset + limit >= totalCount)) return;
    }
  }

  async function* rows<P extends GetPath>(path: P, init?: GetInit<P>): AsyncIterable<RowOf<GetData<P>>> {
    for await (const page of pages(path, init)) yield* rowsIn(page.data) as Array<RowOf<GetData<P>>>;
  }

  async function exportReport<P extends GetPath>(
    path: P,
    format: ExportFormat,
    init?: GetInit<P>,
  ): Promise<ExportDownload> {
    const exportInit = { ...init, params: { ...init?.params, query: { ...queryOf(init), format } }, parseAs: 'stream' };
    const result = await (api.GET as UntypedGet)(path, exportInit);
    const { response } = result;
    if (!response.ok)
      throw result.error === undefined ? await errorFromResponse(response) : errorFrom(response, result.error);
    return {
      body: result.data as ReadableStream<Uint8Array>,
      fileName: fileNameOf(response.headers.get('content-disposition')),
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      response,
    };
  }

  return Object.assign(api, { token: () => tokens.get(), get, pages, rows, export: exportReport });
}

/** openapi-fetch's GET without its per-path typing: the wrappers above type their own ends. */
type UntypedGet = (path: string, init?: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

function queryOf(init: unknown): Record<string, unknown> {
  return ((init as { params?: { query?: Record<string, unknown> } } | undefined)?.params?.query ?? {}) as Record<
    string,
    unknown
  >;
}

function rowsIn(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (!NOT_ROWS.has(key) && Array.isArray(value)) return value;
  }
  return [];
}

function retryWaitSeconds(request: Request, response: Response, attempt: number, retries: number): number | undefined {
  if (attempt >= retries || (response.status !== 429 && response.status !== 503)) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  const seconds = Number(response.headers.get('retry-after') ?? '1');
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_RETRY_WAIT_SECONDS) return undefined;
  return seconds;
}

/** The `filename` of a Content-Disposition (RFC 6266), its `filename*` UTF-8 form first. */
function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (extended) return decodeURIComponent(extended);
  return /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)?.[1];
}

/** Components by name, for code that types its own variables: `Schema<'Account'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
