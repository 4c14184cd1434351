import type { ErrorFields } from './backend-messages.js';
import { ProtocolViolation } from './frontend-messages.js';
import { SqlError } from './session.js';

/**
 * The one place an exception becomes an ErrorResponse. A SqlError is the client's to read; a
 * ProtocolViolation ends the connection (08P01 FATAL); anything else is a bug: the client gets
 * XX000 with a generic message, the log gets the stack.
 */
export function errorFields(error: unknown, log: (line: string) => void, where: string): ErrorFields {
  if (error instanceof SqlError)
    return {
      severity: error.details.severity ?? 'ERROR',
      code: error.code,
      message: error.message,
      detail: error.details.detail,
      hint: error.details.hint,
      position: error.details.position,
    };
  if (error instanceof ProtocolViolation) return { severity: 'FATAL', code: '08P01', message: error.message };
  log(
    `sql endpoint: internal error ${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return { severity: 'ERROR', code: 'XX000', message: 'internal error' };
}

export const fatal = (code: string, message: string, details: { detail?: string; hint?: string } = {}) =>
  new SqlError(code, message, { ...details, severity: 'FATAL' });
