import type { Hook } from '@hono/zod-openapi';
import type { z } from 'zod';
import { ApiError } from '../shared/errors.js';
import { issueDetails, ruleViolation } from '../shared/zod-rules.js';
import type { AppEnv } from './context.js';

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
    throw new ApiError(
      400,
      'invalid_parameter',
      `Invalid ${target === 'param' ? 'path' : 'query'} parameter ${names}: ${details[0]?.message ?? 'invalid'}.`,
      details,
    );
  }
  // Depth 0 is the body itself; depth 1 the wrapper member, unless it is only an unknown key inside the wrapper.
  const unreadable = issues.filter(
    (issue) => issue.path.length === 0 || (issue.path.length === 1 && issue.code !== 'unrecognized_keys'),
  );
  if (unreadable.length > 0) {
    throw new ApiError(
      400,
      'invalid_body',
      `The request body is not the documented object: ${describe(unreadable[0]!)}.`,
      unreadable.flatMap(issueDetails),
    );
  }
  throw ruleViolation(issues, '');
};

function describe(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}
