import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ApiError, OAuthError, type ErrorDetail } from '../shared/errors.js';
import type { AppEnv } from './context.js';

export type ErrorLogger = (entry: { requestId: string; method: string; path: string; error: unknown }) => void;

/** The API's error envelope (supplement section 1). */
export function errorBody(
  status: number,
  code: string,
  message: string,
  details: readonly ErrorDetail[],
  requestId: string,
) {
  return { error: { status, code, message, details, requestId } };
}

/**
 * The one place where failures become HTTP: ApiError keeps its status and code, the token
 * endpoint speaks RFC 6749, framework exceptions get our envelope, anything else is a 500 whose
 * body says nothing about the inside (no stack, SQL or path).
 */
export function makeErrorHandler(log: ErrorLogger, logInfo: (line: string) => void = () => undefined) {
  return (error: unknown, c: Context<AppEnv>): Response => {
    const requestId = c.get('requestId') ?? '';
    // The client went away mid-request: nothing failed here, and nobody reads the answer.
    if (isClientAbort(error, c)) {
      logInfo(
        `client closed the connection before its request was read (${clientAbortReason(error)}): ${c.req.method} ${c.req.path}, request ${requestId}`,
      );
      return c.body(null, 400);
    }
    if (error instanceof OAuthError) {
      return c.json({ error: error.code, error_description: error.description }, error.status, {
        ...error.headers,
        'Cache-Control': 'no-store',
        Pragma: 'no-cache',
      });
    }
    const apiError = toApiError(error);
    if (!apiError) log({ requestId, method: c.req.method, path: c.req.path, error });
    // The token endpoint speaks RFC 6749 for the failures it documents, those raised before it runs
    // included (413 of the body limit, 400 of the query check, 503 of a full queue; a content
    // coding it cannot decode is an unreadable request to it: 400 invalid_request, as a body that
    // is not a form is).
    if (
      c.req.method === 'POST' &&
      c.req.path === '/token' &&
      (apiError === undefined || [400, 413, 415].includes(apiError.status) || apiError.status >= 500)
    ) {
      return oauthResponse(c, apiError);
    }
    if (!apiError) {
      if (c.req.method === 'DELETE') return c.body(null, 500);
      return c.json(
        errorBody(
          500,
          'internal_error',
          'The request failed unexpectedly; quote the request id when reporting it.',
          [],
          requestId,
        ),
        500,
      );
    }
    // Spec 7: every method but DELETE carries the error in the body; a DELETE error is its status alone.
    if (c.req.method === 'DELETE') return c.body(null, apiError.status as 400, apiError.headers);
    return c.json(
      errorBody(apiError.status, apiError.code, apiError.message, apiError.details, requestId),
      apiError.status as 400,
      apiError.headers,
    );
  };
}

/** RFC 6749 5.2, with its codes for a failure of the server (4.1.2.1): server_error, temporarily_unavailable. */
function oauthResponse(c: Context<AppEnv>, error: ApiError | undefined): Response {
  const status = error?.status === 415 ? 400 : (error?.status ?? 500);
  const code = status === 503 ? 'temporarily_unavailable' : status >= 500 ? 'server_error' : 'invalid_request';
  const description =
    status >= 500 && status !== 503 ? 'The request failed unexpectedly; retry later.' : (error?.message ?? '');
  return c.json({ error: code, error_description: description }, status as 400, {
    ...(error?.headers ?? {}),
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  });
}

/**
 * What Hono's validators and body limit raise before our handlers run, by status (a table, not a
 * switch: the status is any of Hono's ~60 codes, and every other one keeps Hono's message).
 */
const FRAMEWORK_ERRORS: ReadonlyMap<number, { code: string; message: string }> = new Map([
  [400, { code: 'malformed_json', message: 'The request body is not valid JSON.' }],
  [413, { code: 'payload_too_large', message: 'The request body is larger than 1 MiB.' }],
  [415, { code: 'unsupported_media_type', message: 'Send the request body as application/json.' }],
]);

/**
 * Node rejects the body read of a request whose connection closed with `Error('aborted')`, code
 * ECONNRESET; the request's signal says so too once the response can no longer be sent.
 */
function isClientAbort(error: unknown, c: Context<AppEnv>): boolean {
  if (error instanceof ApiError || error instanceof OAuthError || error instanceof HTTPException) return false;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNRESET' && (error as Error).message === 'aborted') return true;
  return c.req.raw.signal.aborted && (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE');
}

function clientAbortReason(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return [code, message].filter((part) => typeof part === 'string').join(' ');
}

function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    const known = FRAMEWORK_ERRORS.get(error.status);
    if (known) return new ApiError(error.status, known.code, known.message);
    return new ApiError(error.status, 'http_error', error.message || 'The request could not be served.');
  }
  return undefined;
}

export function notFoundHandler(c: Context<AppEnv>): Response {
  if (c.req.method === 'DELETE') return c.body(null, 404);
  return c.json(
    errorBody(404, 'not_found', `No endpoint matches ${c.req.method} ${c.req.path}.`, [], c.get('requestId') ?? ''),
    404,
  );
}
