import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_TYPES_PATH, renderClientTypes } from '../../scripts/client-types.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The committed client types are exactly what openapi-typescript makes of the document a running
 * service serves: a route whose schema changed without `npm run build` fails here, naming the
 * first line that differs.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('src/client/openapi-types.ts equals the types regenerated from GET /openapi.json', async () => {
  const res = await server.http.get('/openapi.json');
  expect(res.status).toBe(200);
  const regenerated = (await renderClientTypes(res.json)).split('\n');
  const committed = fs.readFileSync(CLIENT_TYPES_PATH, 'utf8').split('\n');
  const first = regenerated.findIndex((line, i) => line !== committed[i]);
  const where =
    first < 0 && regenerated.length === committed.length
      ? 'none'
      : `line ${first < 0 ? Math.min(regenerated.length, committed.length) + 1 : first + 1}: committed ${JSON.stringify(committed[first])}, served ${JSON.stringify(regenerated[first])}; run npm run build`;
  expect(where).toBe('none');
  // The document is the whole API: every path it lists is typed.
  for (const path of Object.keys(res.json.paths as object)) expect(committed.join('\n')).toContain(`'${path}': {`);
});
