import { afterAll, beforeAll } from 'vitest';
import { reportViewsSuite } from '../helpers/report-views-suite.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Saved report views (issue 43) on the DuckDB file; the scenarios are test/helpers/report-views-suite.ts. */
let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
});
afterAll(async () => {
  await server?.close();
});

reportViewsSuite(() => ({ server, token }), { reportsServed: true });
