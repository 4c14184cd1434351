/**
 * User-facing failures. Every error a client may see is an ApiError with a stable `code`;
 * anything else that escapes a handler is a bug and becomes a bare 500 (see http/error-mapper).
 */
export interface ErrorDetail {
  readonly field: string;
  readonly code: string;
  readonly message: string;
  /** For an expression parameter (filter, sort, formulas): the 0-based offset into its value where the fault is. */
  readonly position?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (code: string, message: string, details: readonly ErrorDetail[] = []) =>
  new ApiError(400, code, message, details);

export const unprocessable = (message: string, details: readonly ErrorDetail[]) =>
  new ApiError(422, 'validation_failed', message, details);

export const notFound = (message = 'No resource matches this path.') => new ApiError(404, 'not_found', message);

export const conflict = (code: string, message: string) => new ApiError(409, code, message);

/** The database work queue is full: better a fast 503 than unbounded latency (issue 2, rule 8). */
export class OverloadedError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(503, 'overloaded', 'The service is at capacity; retry shortly.', [], {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/** Errors of the token endpoint speak RFC 6749 section 5.2, not the API's error envelope. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 429,
    readonly code: OAuthErrorCode | 'rate_limited',
    readonly description: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}
