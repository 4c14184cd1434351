import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from './context.js';

/** What the route declarations (the OpenAPI registry) say one operation takes. */
export interface DeclaredOperation {
  /** `POST /provisioning/v0/accounts`, as the document names it. */
  readonly name: string;
  /** The query parameters it documents (none: an empty list). */
  readonly queryParameters: readonly string[];
  /** Whether it documents a request body (only then is a body read, and decoded). */
  readonly takesBody: boolean;
}

type Registry = OpenAPIHono<AppEnv>['openAPIRegistry'];

/**
 * Each operation of the document, found by the route Hono matched. Built from the registry once
 * every route is registered, so middleware learns a new route's parameters from its declaration:
 * a route cannot be added without them.
 */
export class DeclaredOperations {
  private readonly byRoute = new Map<string, DeclaredOperation>();

  /** Reads every route of the registry (call after the last route is registered). */
  load(registry: Registry): void {
    for (const definition of registry.definitions) {
      if (definition.type !== 'route') continue;
      const { method, path, request } = definition.route;
      const upper = method.toUpperCase();
      // Hono's form of the path: `/accounts/id/:id` for the document's `/accounts/id/{id}`.
      this.byRoute.set(`${upper} ${path.replace(/\{(\w+)\}/g, ':$1')}`, {
        name: `${upper} ${path}`,
        queryParameters: queryNames(request?.query, `${upper} ${path}`),
        takesBody: request?.body !== undefined,
      });
    }
  }

  /** The operation that serves this request, if it is one of the document (not /openapi.json, /explorer). */
  find(c: Context<AppEnv>): DeclaredOperation | undefined {
    // Hono answers HEAD with the GET route.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    for (const route of matchedRoutes(c)) {
      if (route.method !== method) continue; // middleware and the 405 handlers are ALL
      const found = this.byRoute.get(`${method} ${route.path}`);
      if (found) return found;
    }
    return undefined;
  }
}

function queryNames(query: unknown, operation: string): string[] {
  if (query === undefined) return [];
  if (query instanceof z.ZodObject) return Object.keys(query.shape);
  throw new Error(`${operation} declares its query as something other than z.object(...): its names are unknown`);
}
