import { z } from '@hono/zod-openapi';
import { ACCEPTED_PLATFORM_NAMES } from '../shared/ad-platforms.js';
import { LABEL_NAME, LABEL_VALUE_MAX } from '../provisioning/labels.js';

/*
 * Query parameters as the document shows them. Most lists parse their query by hand (unknown and
 * repeated names are a 400), so these schemas are documentation: each states exactly what the
 * parser accepts, with the rules it cannot express in its description.
 */

/** The largest offset the paging parser reads (15 digits). */
const MAX_OFFSET = 999_999_999_999_999;

/** `limit` and `offset` (supplement 1). */
export function pagingQuery(maxLimit: number, notes: { limit?: string; offset?: string } = {}) {
  return {
    limit: z
      .string()
      .optional()
      .openapi({
        type: 'integer',
        minimum: 1,
        maximum: maxLimit,
        default: 100,
        description: `Page size, 1-${maxLimit} (default 100).${notes.limit ?? ''}`,
      }),
    offset: z
      .string()
      .optional()
      .openapi({
        type: 'integer',
        minimum: 0,
        maximum: MAX_OFFSET,
        default: 0,
        description: `Zero-based index of the first result; 0 or a multiple of \`limit\` (otherwise 400).${notes.offset ?? ''}`,
      }),
  };
}

/**
 * How a list parameter is sent, for its description: both forms of OpenAPI's `style: form` are
 * read, so a generated client works whichever `explode` it honours or defaults to.
 */
export const LIST_FORMS =
  'A comma list (`name=a,b`, as `explode: false` declares) or the parameter repeated (`name=a&name=b`, what clients that default to `explode: true` send), or both: one list in the order sent, its limits over the whole list.';

/**
 * A list: `name=a,b,c` (OpenAPI `style: form, explode: false`), also `name=a&name=b,c`; never
 * empty, no empty entries. The document declares the comma form, the one the README, the typed
 * client and the explorer use: a generator that honours `explode` then sends it, and one that
 * ignores it repeats the name, which the service reads as the same list.
 */
export function commaListParameter(
  items: Record<string, unknown>,
  options: { maxItems?: number; description: string; uniqueItems?: boolean },
) {
  return z
    .string()
    .optional()
    .openapi({
      type: 'array',
      items,
      minItems: 1,
      ...(options.maxItems === undefined ? {} : { maxItems: options.maxItems }),
      description: `${options.description} ${LIST_FORMS}`,
      param: { style: 'form', explode: false },
    });
}

/** An int64 id in a query: digits only, so no sign. */
export function queryId(description: string, maximum = MAX_OFFSET) {
  return z.string().optional().openapi({ type: 'integer', format: 'int64', minimum: 0, maximum, description });
}

/** `labels=name:value,...` of the account list. */
export function labelFilterQuery(maxFilters: number) {
  return commaListParameter(
    { type: 'string', pattern: `${LABEL_NAME.source.slice(0, -1)}:[^,]{0,${LABEL_VALUE_MAX}}$` },
    {
      maxItems: maxFilters,
      description: `Label filters \`name:value\`, all must match, at most ${maxFilters}; a value cannot hold a comma. Percent-encode the whole value (\`:\` is reserved).`,
    },
  );
}

/** A platform name, the pre-rebranding aliases included (supplement 2). */
export function platformTypeQuery(required: boolean, description: string) {
  const schema = z
    .string()
    .openapi({ type: 'string', enum: [...ACCEPTED_PLATFORM_NAMES], description, example: 'FACEBOOK' });
  return required ? schema : schema.optional();
}

/** A calendar day, `YYYY-MM-DD` (supplement 1); no example (null) where a fixed day would fall out of a retention. */
export function dateQuery(description: string, example: string | null = '2026-01-31') {
  return z
    .string()
    .optional()
    .openapi({
      type: 'string',
      format: 'date',
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
      description,
      ...(example === null ? {} : { example }),
    });
}
