import type { z } from '@hono/zod-openapi';

/** `content` of a JSON request or response in a route declaration. */
export const jsonContent = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
