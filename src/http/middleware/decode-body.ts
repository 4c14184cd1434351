import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import type { DeclaredOperations } from '../declared-operations.js';
import { decodeBody, requestCodings } from '../request-decoding.js';

/**
 * Undoes a request body's Content-Encoding (gzip, deflate, br) before anything reads it, on the
 * operations that take a body. Runs after the body limit, so the bytes as sent are at most
 * `maxBytes` too (413 before decoding, a wire body never buffers past it); the decoded body is
 * held to the same limit. Handlers then see the plain body without a Content-Encoding header.
 */
export function decodeRequestBody(operations: DeclaredOperations, maxBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('content-encoding');
    if (header === undefined || !operations.find(c)?.takesBody) return next();
    const codings = requestCodings(header);
    // The raw request, not c.req's body cache, which would keep the coded bytes for later readers.
    const wire = new Uint8Array(await c.req.raw.arrayBuffer());
    const body = codings.length === 0 || wire.length === 0 ? wire : await decodeBody(wire, codings, maxBytes);
    const headers = new Headers(c.req.raw.headers);
    headers.delete('content-encoding');
    c.req.raw = new Request(c.req.raw, { body, headers });
    await next();
  };
}
