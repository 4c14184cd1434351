import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/catalog/endpoints.js';
import { SEGMENTS } from '../../src/catalog/segments.js';
import { EXPLORER_PATH } from '../../src/http/routes/explorer.js';
import { MCP_PATH } from '../../src/http/routes/mcp.js';
import { operationsOf, type OpenApiDocument } from '../helpers/contract/openapi-document.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let doc: OpenApiDocument & {
  servers?: Array<{ url: string; variables?: Record<string, { default: string }> }>;
  tags?: Array<{ name: string; description?: string }>;
};
beforeAll(async () => {
  server = await startTestServer();
  doc = (await server.http.get('/openapi.json')).json;
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
    // The document itself, the explorer's page and files and the MCP endpoint (a protocol of its own,
    // JSON-RPC: README "MCP server for AI agents") are served beside the API, not operations of it.
    const served = server.service.routes.filter(
      (r) =>
        r.path !== '/openapi.json' &&
        r.path !== MCP_PATH &&
        r.path !== EXPLORER_PATH &&
        !r.path.startsWith(`${EXPLORER_PATH}/`),
    );
    expect(server.service.routes.some((r) => r.path === MCP_PATH)).toBe(true);
    expect(server.service.routes.some((r) => r.path === EXPLORER_PATH)).toBe(true);
    expect(served.length).toBeGreaterThan(2);
    for (const route of served) {
      const openapiPath = route.path.replace(/:(\w+)/g, '{$1}');
      expect(doc.paths[openapiPath]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
  });

  it('describes the token request body as a form with grant_type', async () => {
    const form = (
      doc.paths['/token']!.post as {
        requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      }
    ).requestBody.content['application/x-www-form-urlencoded']!;
    expect(form.schema.properties.grant_type).toBeDefined();
  });

  it('names a server whose default is the local service', () => {
    const [first] = doc.servers ?? [];
    expect(first?.url).toBe('https://{host}:{port}');
    expect(first?.variables?.host?.default).toBe('localhost');
    expect(first?.variables?.port?.default).toBe('8443');
  });

  it('gives every operation a unique camelCase operationId and a tag the document defines', () => {
    const operations = operationsOf(doc);
    const tags = new Set((doc.tags ?? []).map((t) => t.name));
    expect(operations.length).toBeGreaterThanOrEqual(50);
    // README's count of them (issue 36 item 17: it said 50 while 64 were served).
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(Number(/\*\*Operations\*\*: (\d+),/.exec(readme)?.[1])).toBe(operations.length);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    for (const op of operations) {
      expect(op.operationId, `${op.method} ${op.path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.tags.length, op.operationId).toBeGreaterThan(0);
      for (const tag of op.tags) expect(tags.has(tag), `${op.operationId}: tag ${tag}`).toBe(true);
    }
    expect((doc.tags ?? []).every((t) => (t.description ?? '') !== '')).toBe(true);
  });

  it('documents 401, 403, 429, 500 and 503 with the Error envelope on every bearer operation, DELETE errors without a body', () => {
    for (const op of operationsOf(doc).filter((o) => o.security.bearerAuth)) {
      for (const status of ['401', '403', '429', '500', '503']) {
        const response = op.responses[status];
        expect(response, `${op.operationId} ${status}`).toBeDefined();
        if (op.method === 'DELETE') expect(response!.content, `${op.operationId} ${status}`).toBeUndefined();
        else
          expect(
            Object.keys(response!.content?.['application/json']?.schema?.properties ?? {}),
            `${op.operationId} ${status}`,
          ).toEqual(['error']);
      }
      expect(op.security.bearerAuth).toEqual([op.path.startsWith('/reporting/') ? 'reporting' : 'provisioning']);
    }
  });

  it('documents the errors of POST /token in the RFC 6749 shape', () => {
    const token = operationsOf(doc).find((op) => op.path === '/token')!;
    for (const status of ['400', '401', '413', '429', '500', '503']) {
      expect(
        Object.keys(token.responses[status]?.content?.['application/json']?.schema?.properties ?? {}).sort(),
        status,
      ).toEqual(['error', 'error_description']);
    }
  });

  it('lets a request ask only for the link statuses a client may set; responses keep NO_ACCESS', () => {
    const operations = operationsOf(doc);
    for (const id of ['linkPlatformAccount', 'updateLinkStatus']) {
      const op = operations.find((o) => o.operationId === id)!;
      for (const media of Object.values(op.requestBody!.content)) {
        expect(media.schema!.properties!.adPlatformAccount!.properties!.status!.enum, id).toEqual([
          'READ_WRITE',
          'READ_ONLY',
        ]);
      }
      const answer = Object.values(op.responses).find((r) => r.content)!.content!['application/json']!.schema!;
      expect(answer.properties!.adPlatformAccount!.properties!.status!.enum, id).toEqual([
        'READ_WRITE',
        'READ_ONLY',
        'NO_ACCESS',
      ]);
    }
  });

  it('says that campaign ids of a copy or sync must be distinct, as the service requires', () => {
    const schemas = (
      doc.components as {
        schemas: Record<
          string,
          {
            properties: Record<
              string,
              { properties?: Record<string, { uniqueItems?: boolean }>; uniqueItems?: boolean }
            >;
          }
        >;
      }
    ).schemas;
    expect(schemas.CampaignCopySync!.properties.campaignIds!.uniqueItems).toBe(true);
    expect(schemas.CampaignCopyCreate!.properties.campaignCopy!.properties!.campaignIds!.uniqueItems).toBe(true);
  });

  it('types every parameter: a bare string only for expressions, which carry examples instead', () => {
    let parameters = 0;
    for (const op of operationsOf(doc)) {
      for (const p of op.parameters) {
        parameters++;
        const s = p.schema;
        const bare = s.type === 'string' && !s.enum && !s.pattern && !s.format && s.maxLength === undefined;
        if (bare) expect(Object.keys(p.examples ?? {}).length, `${op.operationId} ${p.name}`).toBeGreaterThan(0);
      }
    }
    expect(parameters).toBeGreaterThan(190);
  });

  it('lists per statistics endpoint exactly the statistics, segments and embeds of the catalogue', () => {
    for (const endpoint of ENDPOINTS) {
      const op = operationsOf(doc).find((o) => o.path === `/reporting/v0/${endpoint.path}`)!;
      const itemsOf = (name: string) => op.parameters.find((p) => p.name === name)?.schema.items?.enum;
      const names = endpoint.statistics.map((s) => s.name);
      expect(itemsOf('statistics'), endpoint.path).toEqual([...names, ...names.map((n) => `statistics.${n}`)]);
      // Issue 40: the segments the endpoint's sources offer (the breakdowns stop at campaigns).
      expect(itemsOf('segments'), endpoint.path).toEqual(endpoint.segments.map((s) => s.name));
      expect(itemsOf('segments')!.length, endpoint.path).toBeLessThanOrEqual(SEGMENTS.length);
      expect(itemsOf('embed'), endpoint.path).toEqual(
        endpoint.level.embeds.length === 0 ? undefined : [...endpoint.level.embeds],
      );
      const rowName = Object.keys(op.responses['200']!.content!['application/json']!.schema!.properties!)[0];
      expect(rowName).toBe(endpoint.level.plural);
    }
  });
});
