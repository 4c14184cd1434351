import { PlatformError } from '../../platforms/connector.js';
import { ApiError } from '../../shared/errors.js';

/**
 * A connector failure during a synchronous request: the platform not knowing an id, or our
 * access missing, is the client's input (422); throttling or an outage is ours to report (503).
 */
export function platformFailureToApi(error: unknown, field: string): never {
  if (!(error instanceof PlatformError)) throw error;
  if (error.retryable) {
    const seconds = Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000));
    throw new ApiError(
      503,
      'platform_unavailable',
      `${error.platform} is not answering right now (${error.message}); retry later.`,
      [],
      { 'Retry-After': String(seconds) },
    );
  }
  const code =
    error.code === 'ACCESS_DENIED'
      ? 'no_access'
      : error.code === 'NOT_FOUND'
        ? 'unknown_at_platform'
        : 'refused_by_platform';
  throw new ApiError(422, 'validation_failed', `${error.platform}: ${error.message}`, [
    { field, code, message: error.message },
  ]);
}
