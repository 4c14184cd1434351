import type { Context } from 'hono';
import { ApiError } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';
import { decodeUtf8, firstLoneSurrogateEscape, type TextProblem } from '../json-text.js';

/**
 * Reads a JSON body once, as bytes (the app's body limit has run: at most 1 MiB), decodes it
 * strictly, parses it, and refuses lone surrogate escapes. The validators then get this value
 * from `c.req.json()`: Hono 4.13 caches only the body's text and would parse it again for every
 * call (twice on routes that declare two JSON media types), decoding bad bytes as U+FFFD.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<void> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const decoded = decodeUtf8(bytes);
  if (!('text' in decoded)) throw notUnicode(decoded);
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoded.text);
  } catch {
    throw new ApiError(400, 'malformed_json', 'The request body is not valid JSON.');
  }
  const lone = firstLoneSurrogateEscape(bytes);
  if (lone) throw notUnicode(lone);
  const body = Promise.resolve(parsed);
  c.req.json = <T>() => body as Promise<T>;
}

function notUnicode(problem: TextProblem): ApiError {
  const where = `byte ${problem.offset}`;
  if (problem.kind === 'invalid_utf8') {
    return new ApiError(
      400,
      'invalid_body',
      `The request body is not UTF-8: the bytes at ${where} do not form a character.`,
      [
        {
          field: '(body)',
          code: 'invalid_utf8',
          message: `the sequence starting at ${where} is not well-formed UTF-8`,
        },
      ],
    );
  }
  return new ApiError(
    400,
    'invalid_body',
    `The request body escapes a lone surrogate (${problem.escape}) at ${where}; JSON strings must be Unicode text.`,
    [
      {
        field: '(body)',
        code: 'lone_surrogate',
        message: `${problem.escape} at ${where} is half of a surrogate pair without its other half`,
      },
    ],
  );
}
