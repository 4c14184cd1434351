import { badRequest } from '../shared/errors.js';
import type { ExpressionError } from './expression/index.js';

/** A 400 that names the parameter (and, for expressions, the position: in the message and as a number). */
export function invalidParameter(
  parameter: string,
  message: string,
  code = 'invalid_parameter',
  position?: number,
): never {
  throw badRequest('invalid_parameter', `Invalid query parameter ${parameter}: ${message}`, [
    { field: parameter, code, message, ...(position === undefined ? {} : { position }) },
  ]);
}

/** A parse error of an expression parameter, its position counted from `offset` (a formula within the parameter). */
export function expressionFailure(parameter: string, error: ExpressionError, offset = 0): never {
  const where = `at position ${error.position + offset}${error.token === '' ? ' (end of text)' : ` near "${error.token}"`}`;
  return invalidParameter(parameter, `${error.message} ${where}`, 'invalid_expression', error.position + offset);
}
