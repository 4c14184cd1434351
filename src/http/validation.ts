import type { Hook } from '@hono/zod-openapi';
import type { z } from 'zod';
import { ApiError, type ErrorDetail } from '../shared/errors.js';
import type { AppEnv } from './context.js';

type Issue = z.core.$ZodIssue;

/**
 * zod issues become the supplement's statuses: a body that is not the documented wrapper
 * object, or a bad query or path parameter, cannot be read (400); a field breaking a rule
 * inside the wrapper is a domain violation (422). Each detail names the field.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  const issues = result.error.issues;
  const target = result.target;
  if (target !== 'json') {
    const details = issues.flatMap(issueDetails);
    const names = [...new Set(details.map((d) => d.field))].join(', ');
    throw new ApiError(400, 'invalid_parameter', `Invalid ${target === 'param' ? 'path' : 'query'} parameter ${names}: ${details[0]?.message ?? 'invalid'}.`, details);
  }
  const unreadable = issues.filter((issue) => issue.path.length <= 1 && issue.code !== 'unrecognized_keys' || issue.path.length === 0);
  if (unreadable.length > 0) {
    throw new ApiError(400, 'invalid_body', `The request body is not the documented object: ${describe(unreadable[0]!)}.`, unreadable.flatMap(issueDetails));
  }
  const details = issues.flatMap(issueDetails);
  throw new ApiError(422, 'validation_failed', `The request breaks ${details.length === 1 ? 'a rule' : `${details.length} rules`}: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`, details);
};

function issueDetails(issue: Issue): ErrorDetail[] {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      field: field === '' ? key : `${field}.${key}`,
      code: 'unknown_field',
      message: `${key} is not a field of this object`,
    }));
  }
  return [{ field: field === '' ? '(body)' : field, code: detailCode(issue), message: issue.message }];
}

function detailCode(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      // zod 4 does not report the input; its message says what was received.
      return /received undefined$/.test(issue.message) ? 'required' : 'wrong_type';
    case 'too_big':
      return issue.origin === 'string' ? 'too_long' : 'too_big';
    case 'too_small':
      return issue.origin === 'string' ? 'too_short' : 'too_small';
    case 'invalid_format':
      return 'invalid_format';
    case 'invalid_value':
      return 'not_allowed';
    default:
      return 'invalid';
  }
}

function describe(issue: Issue): string {
  const field = issue.path.map(String).join('.');
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}
