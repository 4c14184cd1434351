import { badRequest } from './errors.js';

/**
 * Strict query parameters: a name the endpoint does not know, or a name given twice, is a 400
 * naming it, so a typo like `limt=10` fails loudly instead of being ignored. Values come
 * percent-decoded (and `+` as space, as in HTML forms).
 *
 * A list parameter may be sent as a comma list (`segments=Week,DeviceType`, OpenAPI `explode:
 * false`), repeated (`segments=Week&segments=DeviceType`, what generators that default to
 * `explode: true` send) or both mixed: they are one list, in the order sent, and its rules
 * (length, empty entries) apply to the whole of it.
 */
export class QueryParams {
  private constructor(
    private readonly params: URLSearchParams,
    private readonly lists: readonly string[],
  ) {}

  /** `lists` names may be given more than once: `get` joins their values with commas, `getAll` keeps them apart. */
  static parse(url: string, allowed: readonly string[], lists: readonly string[] = []): QueryParams {
    const params = new URLSearchParams(queryOf(url));
    refuseUnknownParameters(params, allowed);
    for (const name of new Set(params.keys())) {
      if (params.getAll(name).length > 1 && !lists.includes(name)) {
        throw badRequest('invalid_parameter', `The query parameter ${name} is given more than once.`, [
          { field: name, code: 'repeated', message: 'given more than once' },
        ]);
      }
    }
    return new QueryParams(params, lists);
  }

  /** The value; for a list given several times, its values joined with commas (one list). */
  get(name: string): string | undefined {
    if (this.lists.includes(name)) {
      const values = this.params.getAll(name);
      return values.length === 0 ? undefined : values.join(',');
    }
    return this.params.get(name) ?? undefined;
  }

  getAll(name: string): string[] {
    return this.params.getAll(name);
  }
}

/** The query of a URL (or of just `?a=b`), without the `?`. */
function queryOf(url: string): string {
  return url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
}

/**
 * 400 `unknown_parameter` for the first name not in `allowed`: the one answer every operation
 * gives, whether its handler parses a query or the app refuses it before the handler runs.
 */
export function refuseUnknownParameters(query: URLSearchParams | string, allowed: readonly string[]): void {
  const params = typeof query === 'string' ? new URLSearchParams(queryOf(query)) : query;
  for (const name of params.keys()) {
    if (allowed.includes(name)) continue;
    // Sorted: the handler's list and the document's (the central check) then read alike.
    const takes = allowed.length === 0 ? 'takes no query parameters' : `takes ${[...allowed].sort().join(', ')}`;
    throw badRequest('unknown_parameter', `Unknown query parameter ${name}; this endpoint ${takes}.`, [
      { field: name, code: 'unknown_parameter', message: `${name} is not a parameter of this endpoint` },
    ]);
  }
}

export function invalidParameter(name: string, message: string): never {
  throw badRequest('invalid_parameter', `Invalid query parameter ${name}: ${message}.`, [
    { field: name, code: 'invalid', message },
  ]);
}

/** The largest offset: 15 digits, exact as a JavaScript number and far past any result. */
const MAX_OFFSET = 999_999_999_999_999;

/** limit (1..max, default) and offset (0 or a multiple of limit), as supplement 1 defines paging. */
export function parsePaging(
  query: QueryParams,
  maxLimit: number,
  defaultLimit: number,
): { limit: number; offset: number } {
  const limitText = query.get('limit');
  const offsetText = query.get('offset');
  const limit = limitText === undefined ? defaultLimit : Number(limitText);
  if (limitText !== undefined && (!/^\d{1,10}$/.test(limitText) || limit < 1 || limit > maxLimit)) {
    invalidParameter('limit', `must be an integer from 1 to ${maxLimit}`);
  }
  const offset = offsetText === undefined ? 0 : Number(offsetText);
  // Each reason of its own: a number too big to page to is not "no multiple of limit".
  if (offsetText !== undefined && !/^\d{1,15}$/.test(offsetText)) {
    invalidParameter('offset', `must be an integer from 0 to ${MAX_OFFSET}`);
  }
  if (offset % limit !== 0) invalidParameter('offset', `must be 0 or a multiple of limit (${limit})`);
  return { limit, offset };
}
