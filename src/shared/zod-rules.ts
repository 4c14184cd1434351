import type { z } from 'zod';
import { ApiError, type ErrorDetail } from './errors.js';

type Issue = z.core.$ZodIssue;

/**
 * Names and label values are one line of text: no C0 control character (U+0000-U+001F, so no
 * tab or line break either) and no DEL. They end up in CSV cells, filters, logs and UIs.
 * (The patterns below are about control characters, so they spell them: no-control-regex is off.)
 */
/* eslint-disable no-control-regex */
export const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;
export const SINGLE_LINE_MESSAGE = 'must not contain control characters (U+0000-U+001F, U+007F)';
/**
 * The documented pattern of a name that must also hold something besides white space: what the
 * OpenAPI document states, so generated clients and fuzzers refuse what the service refuses.
 */
export const SINGLE_LINE_NOT_BLANK = /^[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f][^\u0000-\u001f\u007f]*$/;
/** The same for a name stored trimmed: white space (tabs and line breaks too) may surround it. */
export const TRIMMED_SINGLE_LINE_NOT_BLANK =
  /^\s*[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f][^\u0000-\u001f\u007f]*\s*$/;
/** Free text (notes, text custom fields) keeps tabs and line breaks, but NUL is no text. */
export const NO_NUL = /^[^\u0000]*$/;
/* eslint-enable no-control-regex */
export const NO_NUL_MESSAGE = 'must not contain NUL (U+0000)';

/** A string schema that refuses control characters as a name does (detail code control_character). */
export function singleLine<T extends z.ZodString>(schema: T): T {
  return schema.regex(SINGLE_LINE, SINGLE_LINE_MESSAGE) as T;
}

/** A string schema that refuses NUL (detail code control_character). */
export function noNul<T extends z.ZodString>(schema: T): T {
  return schema.regex(NO_NUL, NO_NUL_MESSAGE) as T;
}

const CONTROL_PATTERNS = new Set([String(SINGLE_LINE), String(NO_NUL)]);

/**
 * A domain rule broken inside a zod schema, carrying the stable detail code the API reports
 * (`http/validation.ts` reads `params.code`).
 */
export function ruleIssue(code: string, message: string, path: PropertyKey[] = []): z.core.$ZodRawIssue {
  return { code: 'custom', message, path, params: { code }, input: undefined };
}

/** A 422 for rules a service checks itself (e.g. a merged PATCH), with fields under `prefix`. */
export function ruleViolation(issues: readonly Issue[], prefix: string): ApiError {
  const details = issues.flatMap((issue) =>
    issueDetails(prefix === '' ? issue : ({ ...issue, path: [prefix, ...issue.path] } as Issue)),
  );
  return new ApiError(
    422,
    'validation_failed',
    `The request breaks ${details.length === 1 ? 'a rule' : `${details.length} rules`}: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`,
    details,
  );
}

export function issueDetails(issue: Issue): ErrorDetail[] {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      field: field === '' ? key : `${field}.${key}`,
      code: 'unknown_field',
      message: `${key} is not a field of this object`,
    }));
  }
  if (isOverflowedNumber(issue)) {
    return [
      {
        field: field === '' ? '(body)' : field,
        code: 'not_finite',
        message: `must be a finite number: the JSON number is beyond the double range (±${Number.MAX_VALUE})`,
      },
    ];
  }
  return [{ field: field === '' ? '(body)' : field, code: detailCode(issue), message: issue.message }];
}

/**
 * A JSON number too large for a double: JSON.parse makes it ±Infinity, which zod 4 refuses as
 * not a number (it records what it got in `received`, a member its issue type does not declare).
 */
function isOverflowedNumber(issue: Issue): boolean {
  if (issue.code !== 'invalid_type' || issue.expected !== 'number') return false;
  const received = (issue as { received?: unknown }).received;
  return received === 'Infinity' || received === '-Infinity';
}

function detailCode(issue: Issue): string {
  switch (issue.code) {
    case 'custom':
      return typeof issue.params?.code === 'string' ? issue.params.code : 'invalid';
    case 'invalid_type':
      // zod 4 does not report the input; its message says what was received.
      return /received undefined$/.test(issue.message) ? 'required' : 'wrong_type';
    case 'too_big':
      return issue.origin === 'string' ? 'too_long' : 'too_big';
    case 'too_small':
      return issue.origin === 'string' ? 'too_short' : 'too_small';
    case 'invalid_format':
      return issue.format === 'regex' && CONTROL_PATTERNS.has(String(issue.pattern))
        ? 'control_character'
        : 'invalid_format';
    case 'invalid_value':
      return 'not_allowed';
    case 'not_multiple_of':
    case 'unrecognized_keys':
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
      return 'invalid';
    default:
      // A code a later zod adds (the rule above names each one zod 4 has).
      return 'invalid';
  }
}
