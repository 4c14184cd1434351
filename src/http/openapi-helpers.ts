import type { z } from '@hono/zod-openapi';
import type { Scope } from '../config/config.js';
import type { Headers } from './openapi-errors.js';

/** `content` of a JSON request or response in a route declaration. */
export const jsonContent = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

/** A JSON body for PATCH: plain JSON or JSON Merge Patch (RFC 7396), the same document. */
export const mergePatchContent = (schema: z.ZodType) => ({
  content: { 'application/json': { schema }, 'application/merge-patch+json': { schema } },
});

/** A bearer token with the scope the route's prefix requires (3.1 lets http schemes list roles). */
export const bearer = (scope: Scope) => ({ security: [{ bearerAuth: [scope] }] });

/** Headers of a page of a list. */
export const TOTAL_COUNT: Headers = {
  'X-TotalCount': { description: 'Results across all pages.', schema: { type: 'integer', minimum: 0 } },
};

/** Headers of a 201 / 202. */
export const LOCATION: Headers = {
  Location: { description: 'Path of the created resource (or of the job).', schema: { type: 'string' } },
};
