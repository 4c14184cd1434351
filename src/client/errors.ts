import type { components } from './openapi-types.js';

/** The service's error envelope (every status but a DELETE's and the token endpoint's). */
export type ErrorBody = components['schemas']['Error'];
/** The token endpoint's error (RFC 6749 5.2). */
export type OAuthErrorBody = components['schemas']['OAuthError'];
export type ErrorDetail = ErrorBody['error']['details'][number];

/**
 * A failed call: the status, the service's stable `code` and `message`, the `details` naming each
 * offending field, and the request id to quote. `retryAfterSeconds` is set on 429 and 503.
 */
export class AdreportError extends Error {
  override readonly name = 'AdreportError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[],
    readonly requestId: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }

  /** The detail naming `field` (a query parameter such as `filter`, or a body field such as `account.name`). */
  detail(field: string): ErrorDetail | undefined {
    return this.details.find((d) => d.field === field);
  }
}

/** An AdreportError from a failed response; its body is read here (a DELETE's error has none). */
export async function errorFromResponse(response: Response): Promise<AdreportError> {
  const text = await response.text().catch(() => '');
  return errorFrom(response, parseJson(text), text);
}

/** An AdreportError from a response whose body openapi-fetch already parsed. */
export function errorFrom(response: Response, body: unknown, text = ''): AdreportError {
  const retryAfter = Number(response.headers.get('retry-after'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (isErrorBody(body)) {
    const { code, message, details } = body.error;
    return new AdreportError(
      response.status,
      code,
      message,
      details,
      body.error.requestId ?? requestId,
      retryAfterSeconds,
    );
  }
  if (isOAuthErrorBody(body)) {
    return new AdreportError(response.status, body.error, body.error_description, [], requestId, retryAfterSeconds);
  }
  // A DELETE's error, or a 503 a proxy answered with an HTML page (spec 7).
  const message = `${response.status} ${response.statusText}${text && !text.startsWith('<') ? `: ${text.slice(0, 200)}` : ''}`;
  return new AdreportError(response.status, `http_${response.status}`, message, [], requestId, retryAfterSeconds);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as { error?: unknown } | undefined)?.error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

function isOAuthErrorBody(body: unknown): body is OAuthErrorBody {
  return typeof (body as { error?: unknown } | undefined)?.error === 'string';
}
