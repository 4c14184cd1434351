import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('GET /openapi.json', () => {
  it('serves an OpenAPI 3.1 document with both security schemes', async () => {
    const res = await server.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
    expect(res.json.info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(res.json.components.securitySchemes).sort()).toEqual(['basicAuth', 'bearerAuth']);
  });

  it('documents every route the service serves', async () => {
    const doc = (await server.http.get('/openapi.json')).json;
    const served = server.service.routes.filter((r) => r.path !== '/openapi.json');
    expect(served.length).toBeGreaterThan(2);
    for (const route of served) {
      const openapiPath = route.path.replace(/:(\w+)/g, '{$1}');
      expect(doc.paths[openapiPath]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
  });

  it('describes the token request body as a form with grant_type', async () => {
    const doc = (await server.http.get('/openapi.json')).json;
    const form = doc.paths['/token'].post.requestBody.content['application/x-www-form-urlencoded'];
    expect(form.schema.properties.grant_type).toBeDefined();
  });
});
