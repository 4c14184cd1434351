import { describe, expect, it } from 'vitest';
import { insertClient, newClientCredentials } from '../../src/auth/clients.js';
import { insertReportView } from '../../src/report-views/report-view-store.js';
import { jsonRequest, otherTenantToken } from './accounts.js';
import { basic, FORM } from './http.js';
import type { TestServer } from './server.js';

/**
 * Saved report views (issue 43) over a real server: the same scenarios on the DuckDB file
 * (test/service/report-views.test.ts) and on the PostgreSQL store
 * (test/engines/postgres-report-views.test.ts). `reportsServed`: whether the view's `path` can be
 * opened on this store (PostgreSQL without facts answers reports 503).
 */
const V = '/reporting/v0/views';

export interface ReportViewsContext {
  server: TestServer;
  token: string;
}

/** A second client of the organization of the demo client, with its own token. */
async function sameOrganizationToken(server: TestServer): Promise<{ clientId: string; token: string }> {
  const demo = server.service.demo;
  if (!demo?.created) throw new Error('no demo organization');
  const credentials = await newClientCredentials();
  await server.service.db.write('all-organizations', (tx) =>
    insertClient(tx, credentials, { organizationId: demo.organization.id, scopes: ['reporting'] }),
  );
  const res = await server.http.request('POST', '/token', {
    headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  expect(res.status, res.text).toBe(200);
  return { clientId: credentials.clientId, token: res.json.access_token as string };
}

async function storedRows(server: TestServer): Promise<number> {
  return server.service.db.read(
    async (r) => (await r.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM report_views'))!.n,
  );
}

export function reportViewsSuite(ctx: () => ReportViewsContext, options: { reportsServed: boolean }): void {
  const post = (view: unknown, token = ctx().token) => jsonRequest(ctx().server, token, 'POST', V, view);
  const get = (path: string, token = ctx().token) => ctx().server.http.get(path, { authorization: `Bearer ${token}` });
  const del = (path: string, token = ctx().token) =>
    ctx().server.http.request('DELETE', path, { headers: { authorization: `Bearer ${token}` } });

  describe('POST, GET, list and DELETE /reporting/v0/views', () => {
    it('saves a view, answers 201 with Location, and reads it back by id and in the list', async () => {
      const { server } = ctx();
      // createdAt falls between the request and its answer (the clock read around it, not a tolerance).
      const sent = Date.now();
      const res = await post({
        view: {
          name: 'Campaigns by device',
          endpoint: 'campaigns',
          query: {
            dateRange: 'LAST_30_DAYS',
            segments: 'DeviceType',
            statistics: 'clicks,cost,ctr',
            filter: "name == 'a b'",
            formulas: [
              'cpc:statistics.cost / statistics.clicks:Money',
              'cr:statistics.conversions / statistics.clicks:Percentage',
            ],
            limit: 50,
            totals: true,
          },
          chart: 'formulas.cpc',
        },
      });
      const answered = Date.now();
      expect(res.status, res.text).toBe(201);
      const view = res.json.view;
      expect(res.headers.location).toBe(`${V}/id/${view.id}`);
      expect(view).toEqual({
        id: expect.any(Number),
        name: 'Campaigns by device',
        endpoint: 'campaigns',
        // Values as text, as in the URL; the repeated parameter a list.
        query: {
          dateRange: 'LAST_30_DAYS',
          segments: 'DeviceType',
          statistics: 'clicks,cost,ctr',
          filter: "name == 'a b'",
          formulas: [
            'cpc:statistics.cost / statistics.clicks:Money',
            'cr:statistics.conversions / statistics.clicks:Percentage',
          ],
          limit: '50',
          totals: 'true',
        },
        chart: 'formulas.cpc',
        path:
          '/reporting/v0/campaigns?dateRange=LAST_30_DAYS&segments=DeviceType&statistics=clicks%2Ccost%2Cctr' +
          `&filter=name%20%3D%3D%20'a%20b'&formulas=cpc%3Astatistics.cost%20%2F%20statistics.clicks%3AMoney` +
          '&formulas=cr%3Astatistics.conversions%20%2F%20statistics.clicks%3APercentage&limit=50&totals=true',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        createdBy: server.clientId,
      });
      expect(Date.parse(view.createdAt)).toBeGreaterThanOrEqual(Math.floor(sent / 1000) * 1000);
      expect(Date.parse(view.createdAt)).toBeLessThanOrEqual(answered);

      const one = await get(`${V}/id/${view.id}`);
      expect(one.status).toBe(200);
      expect(one.json.view).toEqual(view);
      const list = await get(`${V}?limit=100`);
      expect(list.status).toBe(200);
      expect(list.json.views).toContainEqual(view);
      expect(Number(list.headers['x-totalcount'])).toBe(list.json.views.length);

      // The path is the GET the view stands for.
      const opened = await get(view.path);
      if (options.reportsServed) {
        expect(opened.status, opened.text).toBe(200);
        expect(Array.isArray(opened.json.campaigns)).toBe(true);
        expect(opened.json.totals.formulas).toHaveProperty('cpc');
      } else expect(opened.status).toBe(503);

      // A view without query or chart: the endpoint's defaults, chart null.
      const bare = await post({ view: { name: 'Accounts', endpoint: 'adplatform-accounts/google-ads' } });
      expect(bare.status, bare.text).toBe(201);
      expect(bare.json.view).toMatchObject({
        query: {},
        chart: null,
        path: '/reporting/v0/adplatform-accounts/google-ads',
      });
      for (const id of [view.id, bare.json.view.id]) expect((await del(`${V}/id/${id}`)).status).toBe(204);
    });

    it('refuses a query the GET refuses, with the same 400, and stores nothing', async () => {
      const { server } = ctx();
      const before = await storedRows(server);
      const cases: Array<[query: Record<string, unknown>, field: string, code: string]> = [
        [{ colour: 'red' }, 'colour', 'unknown_parameter'],
        [{ statistics: 'clicks,clicsk' }, 'statistics', 'invalid_parameter'],
        [{ statistics: 'reach' }, 'statistics', 'invalid_parameter'],
        [{ filter: 'statistics.clicks >' }, 'filter', 'invalid_parameter'],
        [{ sort: '-statistics.nothing' }, 'sort', 'invalid_parameter'],
        [{ formulas: 'x:statistics.clicks:Float' }, 'formulas', 'invalid_parameter'],
        [{ startDate: '2026-02-30' }, 'startDate', 'invalid_parameter'],
        [{ dateRange: 'LAST_7_DAYS', startDate: '2026-01-01' }, 'dateRange', 'invalid_parameter'],
        [{ limit: 0 }, 'limit', 'invalid_parameter'],
        [{ compare: 'LAST_DECADE' }, 'compare', 'invalid_parameter'],
        [{ currency: 'eur' }, 'currency', 'invalid_parameter'],
        [{ format: 'csv' }, 'format', 'invalid_parameter'],
      ];
      for (const [query, field, code] of cases) {
        const res = await post({ view: { name: `bad ${field}`, endpoint: 'campaigns', query } });
        expect(res.status, `${JSON.stringify(query)}: ${res.text}`).toBe(400);
        expect(res.json.error.code, JSON.stringify(query)).toBe(code);
        expect(
          res.json.error.details.map((d: { field: string }) => d.field),
          JSON.stringify(query),
        ).toContain(field);
        // The same query on the GET: the same answer.
        const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
        const direct = await get(`/reporting/v0/campaigns?${params.toString()}`);
        if (field !== 'format' && (options.reportsServed || direct.status !== 503)) {
          expect(direct.status, JSON.stringify(query)).toBe(400);
          expect(direct.json.error.code).toBe(code);
        }
      }
      // Two breakdowns no source holds together.
      const segments = await post({
        view: { name: 'bad segments', endpoint: 'campaigns', query: { segments: 'Age,Country' } },
      });
      expect(segments.status, segments.text).toBe(400);
      expect(segments.json.error.details[0].field).toBe('segments');
      expect(await storedRows(server)).toBe(before);
    });

    it('refuses a bad name, endpoint, chart or body (422, 400, 415) and stores nothing', async () => {
      const { server } = ctx();
      const before = await storedRows(server);
      const unprocessable: Array<[view: Record<string, unknown>, field: string, code?: string]> = [
        [{ endpoint: 'campaigns' }, 'view.name', 'required'],
        [{ name: '', endpoint: 'campaigns' }, 'view.name'],
        [{ name: '   ', endpoint: 'campaigns' }, 'view.name', 'blank'],
        [{ name: 'x'.repeat(101), endpoint: 'campaigns' }, 'view.name', 'too_long'],
        [{ name: 'tab\there', endpoint: 'campaigns' }, 'view.name', 'control_character'],
        [{ name: 42, endpoint: 'campaigns' }, 'view.name', 'wrong_type'],
        [{ name: 'no endpoint' }, 'view.endpoint'],
        [{ name: 'bad endpoint', endpoint: 'markups' }, 'view.endpoint'],
        [{ name: 'bad endpoint', endpoint: '/reporting/v0/campaigns' }, 'view.endpoint'],
        [{ name: 'bad chart', endpoint: 'campaigns', chart: 'clicsk' }, 'view.chart', 'unknown_statistic'],
        [{ name: 'bad chart', endpoint: 'campaigns', chart: 'reach' }, 'view.chart', 'unknown_statistic'],
        [{ name: 'bad chart', endpoint: 'campaigns', chart: 'formulas.cpc' }, 'view.chart', 'unknown_formula'],
        [{ name: 'bad chart', endpoint: 'campaigns', chart: 7 }, 'view.chart', 'wrong_type'],
        [{ name: 'extra', endpoint: 'campaigns', colour: 'red' }, 'view.colour', 'unknown_field'],
        [{ name: 'bad query', endpoint: 'campaigns', query: { segments: { a: 1 } } }, 'view.query.segments'],
      ];
      for (const [view, field, code] of unprocessable) {
        const res = await post({ view });
        expect(res.status, `${JSON.stringify(view)}: ${res.text}`).toBe(422);
        expect(res.json.error.code).toBe('validation_failed');
        const detail = res.json.error.details.find((d: { field: string }) => d.field === field);
        expect(detail, `${JSON.stringify(view)}: ${res.text}`).toBeDefined();
        if (code) expect(detail.code, JSON.stringify(view)).toBe(code);
      }
      // 100 characters is the limit, not over it; a chart on a statistic of the endpoint, prefixed or not.
      for (const [name, chart] of [
        ['y'.repeat(100), 'statistics.clicks'],
        ['reach chart', 'reach'],
      ] as const) {
        const endpoint = chart === 'reach' ? 'campaigns/facebook' : 'campaigns';
        const res = await post({ view: { name, endpoint, chart } });
        expect(res.status, res.text).toBe(201);
        expect((await del(`${V}/id/${res.json.view.id}`)).status).toBe(204);
      }
      const unreadable: Array<[body: unknown, status: number, contentType?: string]> = [
        ['{"view":', 400],
        [{ name: 'no wrapper', endpoint: 'campaigns' }, 400],
        [[{ view: { name: 'array', endpoint: 'campaigns' } }], 400],
        [{ view: { name: 'text', endpoint: 'campaigns' } }, 415, 'text/plain'],
      ];
      for (const [body, status, contentType] of unreadable) {
        const res = await jsonRequest(server, ctx().token, 'POST', V, body, contentType);
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
      }
      expect(await storedRows(server)).toBe(before);
    });

    it('keeps names unique per organization: a second view of the same name is 409 view_name_taken', async () => {
      const { server } = ctx();
      const first = await post({ view: { name: 'Weekly', endpoint: 'accounts', query: { segments: 'Week' } } });
      expect(first.status, first.text).toBe(201);
      const before = await storedRows(server);
      const again = await post({ view: { name: 'Weekly', endpoint: 'keywords' } });
      expect(again.status).toBe(409);
      expect(again.json.error.code).toBe('view_name_taken');
      expect(again.json.error.message).toContain('"Weekly"');
      expect(again.json.error.details).toEqual([{ field: 'view.name', code: 'taken', message: expect.any(String) }]);
      expect(await storedRows(server)).toBe(before);
      // Names are compared exactly: another case is another name.
      const other = await post({ view: { name: 'weekly', endpoint: 'keywords' } });
      expect(other.status, other.text).toBe(201);
      // Deleted, the name is free again.
      expect((await del(`${V}/id/${first.json.view.id}`)).status).toBe(204);
      const reused = await post({ view: { name: 'Weekly', endpoint: 'ads' } });
      expect(reused.status, reused.text).toBe(201);
      for (const id of [other.json.view.id, reused.json.view.id]) expect((await del(`${V}/id/${id}`)).status).toBe(204);
    });

    it('lists by name (code point order), then id, with limit, offset and X-TotalCount', async () => {
      const names = ['b view', 'a view', 'C view', 'ä view', 'a view 2'];
      const ids: number[] = [];
      for (const name of names) {
        const res = await post({ view: { name, endpoint: 'campaigns' } });
        expect(res.status, res.text).toBe(201);
        ids.push(res.json.view.id);
      }
      const all = await get(`${V}?limit=100`);
      expect(all.status).toBe(200);
      const listed = all.json.views.map((v: { name: string }) => v.name).filter((n: string) => names.includes(n));
      expect(listed).toEqual(['C view', 'a view', 'a view 2', 'b view', 'ä view']);
      const total = Number(all.headers['x-totalcount']);
      expect(total).toBe(all.json.views.length);
      const page = await get(`${V}?limit=2&offset=2`);
      expect(page.status).toBe(200);
      expect(page.json.views).toEqual(all.json.views.slice(2, 4));
      expect(Number(page.headers['x-totalcount'])).toBe(total);
      for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'offset=3&limit=2', 'sort=name', 'limit=1&limit=2']) {
        const res = await get(`${V}?${bad}`);
        expect(res.status, bad).toBe(400);
      }
      for (const id of ids) expect((await del(`${V}/id/${id}`)).status).toBe(204);
    });

    it('deletes: 204, then 404 on GET and DELETE; DELETE errors carry no body', async () => {
      const res = await post({ view: { name: 'short-lived', endpoint: 'ads' } });
      const id = res.json.view.id as number;
      const gone = await del(`${V}/id/${id}`);
      expect(gone.status).toBe(204);
      expect(gone.text).toBe('');
      const after = await get(`${V}/id/${id}`);
      expect(after.status).toBe(404);
      expect(after.json.error.code).toBe('not_found');
      const again = await del(`${V}/id/${id}`);
      expect(again.status).toBe(404);
      expect(again.text).toBe('');
      // Malformed or outside int64: 400; a well-formed id never issued (0, negative): 404.
      for (const bad of ['abc', '1.5', '99999999999999999999']) {
        expect((await get(`${V}/id/${bad}`)).status, bad).toBe(400);
        const d = await del(`${V}/id/${bad}`);
        expect(d.status, bad).toBe(400);
        expect(d.text).toBe('');
      }
      for (const unknown of ['987654321', '0', '-3']) expect((await get(`${V}/id/${unknown}`)).status).toBe(404);
    });

    it('is shared by the clients of an organization and invisible to other organizations', async () => {
      const { server, token } = ctx();
      const mine = await post({ view: { name: 'Shared one', endpoint: 'campaigns', chart: 'cost' } });
      expect(mine.status).toBe(201);
      const view = mine.json.view;

      // Another client of the same organization lists and opens it, and may delete it.
      const colleague = await sameOrganizationToken(server);
      const listed = await get(`${V}?limit=100`, colleague.token);
      expect(listed.json.views).toContainEqual(view);
      expect((await get(`${V}/id/${view.id}`, colleague.token)).json.view).toEqual(view);
      const theirs = await post({ view: { name: 'From a colleague', endpoint: 'ads' } }, colleague.token);
      expect(theirs.status).toBe(201);
      expect(theirs.json.view.createdBy).toBe(colleague.clientId);
      expect((await get(`${V}/id/${theirs.json.view.id}`, token)).json.view.createdBy).toBe(colleague.clientId);
      // The name is the organization's, whoever saved it.
      expect((await post({ view: { name: 'From a colleague', endpoint: 'ads' } }, token)).status).toBe(409);

      // Another organization sees none of them, cannot read or delete them, and may use the same names.
      const stranger = await otherTenantToken(server);
      const theirList = await get(`${V}?limit=100`, stranger);
      expect(theirList.status).toBe(200);
      expect(theirList.json.views).toEqual([]);
      expect(theirList.headers['x-totalcount']).toBe('0');
      const read = await get(`${V}/id/${view.id}`, stranger);
      expect(read.status).toBe(404);
      expect(read.json.error.message).not.toContain('Shared one');
      const removed = await del(`${V}/id/${view.id}`, stranger);
      expect(removed.status).toBe(404);
      expect(removed.text).toBe('');
      expect((await get(`${V}/id/${view.id}`)).status).toBe(200);
      const same = await post({ view: { name: 'Shared one', endpoint: 'accounts' } }, stranger);
      expect(same.status, same.text).toBe(201);
      expect((await get(`${V}/id/${same.json.view.id}`)).status).toBe(404);

      expect((await del(`${V}/id/${theirs.json.view.id}`, token)).status).toBe(204);
      expect((await del(`${V}/id/${view.id}`, colleague.token)).status).toBe(204);
    });

    it('needs a reporting token: none 401, provisioning only 403', async () => {
      const { server } = ctx();
      expect((await server.http.get(V)).status).toBe(401);
      const provisioning = await server.token('provisioning');
      expect((await get(V, provisioning)).status).toBe(403);
      const refused = await post({ view: { name: 'no scope', endpoint: 'campaigns' } }, provisioning);
      expect(refused.status).toBe(403);
      expect((await del(`${V}/id/1`, provisioning)).status).toBe(403);
    });

    it('keeps at most 500 views per organization: the next is 409 too_many_views', async () => {
      const { server } = ctx();
      // An organization of its own, filled to one short of the limit in one transaction.
      const stranger = await otherTenantToken(server);
      const created = await post({ view: { name: 'first', endpoint: 'campaigns' } }, stranger);
      expect(created.status).toBe(201);
      const organizationId = await server.service.db.read(
        async (r) =>
          (await r.one<{ o: number }>('SELECT organization_id AS o FROM report_views WHERE id = $1', [
            created.json.view.id,
          ]))!.o,
      );
      await server.service.db.write('no-report-data', async (tx) => {
        for (let i = 0; i < 498; i++)
          await insertReportView(tx, {
            organizationId: Number(organizationId),
            name: `filler ${i}`,
            endpoint: 'campaigns',
            query: {},
            chart: null,
            createdBy: 'test',
            now: new Date(),
          });
      });
      const last = await post({ view: { name: 'five hundredth', endpoint: 'campaigns' } }, stranger);
      expect(last.status, last.text).toBe(201);
      const before = await storedRows(server);
      const over = await post({ view: { name: 'one too many', endpoint: 'campaigns' } }, stranger);
      expect(over.status).toBe(409);
      expect(over.json.error.code).toBe('too_many_views');
      expect(await storedRows(server)).toBe(before);
      const listed = await get(`${V}?limit=100&offset=400`, stranger);
      expect(listed.headers['x-totalcount']).toBe('500');
      expect(listed.json.views).toHaveLength(100);
      // A duplicate name is named as such even at the limit.
      expect((await post({ view: { name: 'first', endpoint: 'ads' } }, stranger)).json.error.code).toBe(
        'view_name_taken',
      );
      // One deleted, one fits again.
      expect((await del(`${V}/id/${created.json.view.id}`, stranger)).status).toBe(204);
      expect((await post({ view: { name: 'one too many', endpoint: 'campaigns' } }, stranger)).status).toBe(201);
    });
  });
}
