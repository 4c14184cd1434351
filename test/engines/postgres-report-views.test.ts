import { afterAll, beforeAll } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { reportViewsSuite } from '../helpers/report-views-suite.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Saved report views (issue 43) on the PostgreSQL store: the scenarios of
 * test/service/report-views.test.ts, the store a parameter. Views are tenant state, so they are
 * served here although reports are not (a view's path answers 503 reports_unavailable); names
 * sort by code point as on DuckDB, whatever the database's collation.
 */
let pg: TestPostgres;
let server: TestServer;
let token: string;
beforeAll(async () => {
  pg = await startTestPostgres('adreport-pg-views-');
  server = await startTestServer({
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    storeUrl: await pg.createDatabase(),
  });
  token = await server.token();
});
afterAll(async () => {
  await server?.close();
  await pg?.close();
});

reportViewsSuite(() => ({ server, token }), { reportsServed: false });
