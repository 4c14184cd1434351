import type { MiddlewareHandler } from 'hono';
import { refuseUnknownParameters } from '../../shared/query-params.js';
import type { AppEnv } from '../context.js';
import type { DeclaredOperations } from '../declared-operations.js';

/**
 * RFC 6749 3.2: the token endpoint "MUST ignore unrecognized request parameters"; its URI may
 * even carry a query of the server's own. Every other operation refuses what it does not declare.
 */
const IGNORES_UNKNOWN_PARAMETERS = new Set(['POST /token']);

/**
 * 400 `unknown_parameter` for a query parameter the operation does not declare, on every
 * operation of the document and before its handler (or the body) is read, so nothing happens: a
 * `DELETE ...?zz=1` deletes nothing. Handlers that parse a query still check it (and repeats)
 * themselves; this is what guarantees the operations without a query refuse one too. Paths that
 * are not operations of the document (`/openapi.json`, the explorer's files) are left alone.
 */
export function strictQuery(operations: DeclaredOperations): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The raw target, as query-encoding.ts reads it: no URL is built for the many requests without a query.
    const target = c.env?.incoming?.url ?? c.req.url;
    if (target.includes('?')) {
      const operation = operations.find(c);
      if (operation && !IGNORES_UNKNOWN_PARAMETERS.has(operation.name))
        refuseUnknownParameters(target, operation.queryParameters);
    }
    await next();
  };
}
