import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownPathParams, seedFixtures, type Send } from '../helpers/contract/fixtures.js';
import { operationsOf, type OpenApiDocument, type Operation } from '../helpers/contract/openapi-document.js';
import { basic, FORM } from '../helpers/http.js';
import { poll } from '../helpers/poll.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 36 item 4: every operation of the served document refuses a query parameter it does not
 * declare with the same 400 `unknown_parameter` naming it, before doing anything (a DELETE
 * deletes nothing), those without any query parameter included. POST /token ignores them, as
 * RFC 6749 3.2 requires; /openapi.json and the explorer are files, not operations.
 */

let server: TestServer;
let token: string;
let operations: Operation[];
let markupPath: string;
const P = '/provisioning/v0';

const bearer = () => ({ authorization: `Bearer ${token}` });
const send: Send = async (method, target, body) => {
  const res = await server.http.request(method, target, {
    headers: { ...bearer(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: res.json };
};

beforeAll(async () => {
  // Every operation twice and the fixtures run faster than the default bucket refills on a
  // quick machine; what is tested here is the 400, not the rate limit.
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
  operations = operationsOf((await server.http.get('/openapi.json')).json as OpenApiDocument);
  await seedFixtures(send);
  // A finished report job, so its DELETE has something to delete.
  const job = await send('POST', '/reporting/v0/report-jobs', {
    reportJob: { endpoint: 'campaigns', format: 'csv', query: {} },
  });
  expect(job.status).toBe(202);
  const jobId = (job.json as { reportJob: { id: number } }).reportJob.id;
  await poll('the report job ends', async () => {
    const status = (
      (await send('GET', `/reporting/v0/report-jobs/id/${jobId}`)).json as { reportJob: { status: string } }
    ).reportJob.status;
    return ['QUEUED', 'RUNNING'].includes(status) ? undefined : status;
  });
  const accountId = ((await send('GET', `${P}/accounts?limit=1`)).json as { accounts: Array<{ id: number }> })
    .accounts[0]!.id;
  const markups = (await send('GET', `${P}/accounts/id/${accountId}/markups`)).json as {
    markups: Array<{ id: number }>;
  };
  markupPath = `${P}/accounts/id/${accountId}/markups/id/${markups.markups[0]!.id}`;
}, 180_000);
afterAll(async () => {
  await server?.close();
});

/** Valid bodies where they are short, so a refused write is one that would otherwise have happened. */
const BODIES: Record<string, unknown> = {
  updateOrganization: { organization: { name: 'Renamed' } },
  createAccount: { account: { name: 'New', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } },
  replaceAccount: { account: { name: 'Replaced', languageCode: 'de', countryCode: 'DE', currency: 'EUR' } },
  updateAccount: { account: { name: 'Patched' } },
  replaceAccountLabels: { labels: { tier: 'silver' } },
  updateAccountLabels: { labels: { tier: null } },
  replaceCampaignLabels: { labels: { tier: 'silver' } },
  updateCampaignLabels: { labels: { tier: null } },
  createMarkup: { markup: { rate: 0.2, startDate: '2030-01-01', endDate: null } },
  createReportJob: { reportJob: { endpoint: 'accounts', format: 'csv', query: {} } },
  createReportView: { view: { name: 'Not saved', endpoint: 'accounts' } },
  updateLinkStatus: { adPlatformAccount: { status: 'READ_ONLY' } },
};

/** What a write of the API could change: the rows of every table the operations write. */
async function state(): Promise<string> {
  const tables = [
    'organizations',
    'accounts',
    'account_labels',
    'campaign_labels',
    'account_adplatform_links',
    'markups',
    'webhooks',
    'webhook_deliveries',
    'report_jobs',
    'report_views',
    'campaign_copies',
    'campaigns',
  ];
  const rows: Record<string, unknown> = {};
  for (const table of tables)
    rows[table] = await server.service.db.read((r) => r.all(`SELECT * FROM ${table} ORDER BY ALL`, []));
  // Job rows change status as they run; what a refused request could have done is add one.
  rows.jobs = await server.service.db.read((r) =>
    r.all("SELECT id, type FROM jobs WHERE type <> 'SYNC_STATISTICS' ORDER BY id", []),
  );
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
}

async function withUnknownParameter(operation: Operation, query: string) {
  const known = (await knownPathParams(operation, operations, send))[0] ?? {};
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => known[name] ?? '1');
  const body = operation.requestBody ? (BODIES[operation.operationId] ?? {}) : undefined;
  const contentType = Object.keys(operation.requestBody?.content ?? {})[0];
  const headers: Record<string, string> = {
    ...('bearerAuth' in operation.security ? bearer() : {}),
    ...(contentType ? { 'content-type': contentType } : {}),
  };
  if ('basicAuth' in operation.security) headers.authorization = basic(server.clientId, server.clientSecret);
  const wireBody =
    body === undefined ? undefined : contentType === FORM ? 'grant_type=client_credentials' : JSON.stringify(body);
  return server.http.request(operation.method, `${path}?${query}`, {
    headers,
    ...(wireBody === undefined ? {} : { body: wireBody }),
  });
}

describe('every operation refuses an undeclared query parameter', () => {
  it('answers 400 unknown_parameter naming it, and changes nothing', async () => {
    const before = await state();
    const refused: string[] = [];
    for (const operation of operations) {
      if (operation.operationId === 'requestToken') continue;
      const label = `${operation.method} ${operation.path}`;
      const res = await withUnknownParameter(operation, 'zz=1');
      expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(400);
      if (operation.method === 'DELETE') {
        // Spec 7: a DELETE's error is its status alone.
        expect(res.text, label).toBe('');
      } else {
        expect(res.json.error.code, label).toBe('unknown_parameter');
        expect(res.json.error.details[0].field, label).toBe('zz');
        expect(res.json.error.message, label).toContain('zz');
      }
      refused.push(label);
    }
    expect(await state()).toBe(before);
    // Every operation but the token endpoint was tried: reads and writes, with and without parameters.
    expect(refused.length).toBe(operations.length - 1);
    expect(refused.filter((label) => label.startsWith('DELETE')).length).toBeGreaterThanOrEqual(4);
  });

  it('next to the parameters an operation declares too', async () => {
    const res = await server.http.get(`${P}/accounts?limit=5&zz=1`, bearer());
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('unknown_parameter');
    expect(res.json.error.message).toContain('takes id, labels, limit, offset.');
    const none = await server.http.get(`${P}/organization?zz=1`, bearer());
    expect(none.json.error.message).toContain('takes no query parameters');
  });

  it('DELETE of a markup with ?zz=1 deletes nothing; without it, the markup goes', async () => {
    const refused = await server.http.request('DELETE', `${markupPath}?zz=1`, { headers: bearer() });
    expect(refused.status).toBe(400);
    expect(refused.text).toBe('');
    const listPath = markupPath.slice(0, markupPath.lastIndexOf('/id/'));
    const id = Number(markupPath.slice(markupPath.lastIndexOf('/') + 1));
    const ids = async () =>
      ((await server.http.get(listPath, bearer())).json.markups as Array<{ id: number }>).map((m) => m.id);
    expect(await ids()).toContain(id);
    const deleted = await server.http.request('DELETE', markupPath, { headers: bearer() });
    expect(deleted.status).toBe(204);
    expect(await ids()).not.toContain(id);
  });

  it('HEAD (answered by the GET route) with an unknown parameter is a 400 too', async () => {
    const res = await server.http.request('HEAD', `${P}/organization?zz=1`, { headers: bearer() });
    expect(res.status).toBe(400);
    expect((await server.http.request('HEAD', `${P}/organization`, { headers: bearer() })).status).toBe(200);
  });

  it('an unauthenticated request is still a 401 first', async () => {
    const res = await server.http.get(`${P}/accounts?zz=1`);
    expect(res.status).toBe(401);
  });
});

describe('what is left alone', () => {
  it('POST /token ignores unknown parameters (RFC 6749 3.2)', async () => {
    const token = operations.find((operation) => operation.operationId === 'requestToken')!;
    const res = await withUnknownParameter(token, 'zz=1');
    expect(res.status, res.text).toBe(200);
    expect(typeof res.json.access_token).toBe('string');
  });

  it('/openapi.json and the explorer page take a cache-busting query', async () => {
    expect((await server.http.get('/openapi.json?v=1')).status).toBe(200);
    const page = await server.http.get('/explorer?v=1');
    expect(page.status, page.text.slice(0, 200)).toBe(200);
  });
});
