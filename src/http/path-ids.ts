import { z } from '@hono/zod-openapi';
import { badRequest, notFound } from '../shared/errors.js';

const INT64_MAX = 2n ** 63n - 1n;

/** Path ids are int64 (spec 4.2): anything else is 400, before any lookup. */
export const idParam = (name = 'id') =>
  z
    .string()
    .regex(/^-?\d{1,19}$/, 'must be an integer')
    .openapi({
      param: { name, in: 'path' },
      type: 'integer',
      format: 'int64',
      example: 1,
      description: "An int64 id; malformed or outside int64: 400, unknown (or another organization's): 404.",
    });

/** Any int64 is a well-formed id; one this service never issues is simply not found. */
export function pathId(text: string, what: string, field = 'id'): number {
  const value = BigInt(text);
  if (value > INT64_MAX || value < -INT64_MAX - 1n)
    throw badRequest('invalid_parameter', `The path ${field} is outside the int64 range.`, [
      { field, code: 'out_of_range', message: 'must be an int64' },
    ]);
  if (value < 1n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw notFound(`No ${what} with id ${text}.`);
  return Number(value);
}
