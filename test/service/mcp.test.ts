import path from 'node:path';
import type { AuthProvider } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../src/auth/tokens.js';
import { STATISTICS } from '../../src/catalog/statistics.js';
import { FORM, basic } from '../helpers/http.js';
import { connectMcp, connectV1, type McpConnection } from '../helpers/mcp-client.js';
import { poll } from '../helpers/poll.js';
import {
  addDays,
  encodeQuery,
  startReportingFixture,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';
import { signingKeyOnDisk } from '../helpers/token-keys.js';
import { WORLD_FILE, yesterdayUtc } from '../helpers/worlds.js';

/**
 * The MCP server (issue 42) with the SDK's own clients against a real service on a generated
 * world of two organizations: the tools and their schemas, each tool's answer against the REST
 * answer for the same parameters, provenance, paging, bad arguments as tool errors, the token
 * rules (expired, scopes, discovery with client credentials) and a cross-tenant probe.
 */

let fx: ReportingFixture;
/** Organization 1's connection with every scope, in the 2026-07-28 revision. */
let mcp: McpConnection;
let reportingOnlyToken: string;

interface Structured {
  answer?: unknown;
  provenance?: {
    restUrl: string;
    method: string;
    requestId: string | null;
    dataVersion: string | null;
    completeThrough: string | null;
    mayChange: boolean | null;
    engine: string | null;
    range: { startDate: string; endDate: string } | null;
    comparedRange: { startDate: string; endDate: string } | null;
    warnings: unknown[];
    explorerUrl?: string;
  };
  page?: { offset: number; limit: number; returned: number; totalCount: number | null; nextOffset: number | null };
  fileUrl?: string;
  error?: { status: number; code: string; message: string; details: unknown[] };
  explanation?: Record<string, unknown>;
}

interface CallResult {
  isError: boolean;
  text: string;
  structured: Structured;
}

async function call(connection: McpConnection, name: string, args: Record<string, unknown>): Promise<CallResult> {
  const result = await connection.client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  // The text is the structured content as JSON (its last line), for clients that read text only.
  if (result.structuredContent !== undefined)
    expect(JSON.parse(content[0]!.text!.split('\n').at(-1)!)).toEqual(result.structuredContent);
  return {
    isError: result.isError === true,
    text: content.map((c) => c.text ?? '').join('\n'),
    structured: (result.structuredContent ?? {}) as Structured,
  };
}

async function token(org: number, scope?: string): Promise<string> {
  const credentials = fx.orgs[org]!;
  const res = await fx.http.request('POST', '/token', {
    headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
    body: `grant_type=client_credentials${scope === undefined ? '' : `&scope=${scope}`}`,
  });
  expect(res.status, res.text).toBe(200);
  return res.json.access_token as string;
}

const cert = () => fx.service.tls?.cert;
const connect = (bearer: string, era: 'legacy' | 'modern' = 'modern') =>
  connectMcp(fx.service.url, cert(), { token: bearer }, era);

/** The query of a URL as a sorted list of name=value pairs (order and encoding aside). */
function pairsOf(url: string): string[] {
  return [...new URL(url).searchParams.entries()].map(([k, v]) => `${k}=${v}`).sort();
}

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d' });
  mcp = await connect(fx.orgs[0]!.token);
  reportingOnlyToken = await token(0, 'reporting');
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await fx?.close();
});

const TOOLS = [
  'describe_reporting',
  'run_report',
  'compare_periods',
  'freshness',
  'changes_since',
  'explain_statistic',
  'start_export',
  'get_export',
  'cancel_export',
];

describe('tools/list', () => {
  it('lists every tool with a JSON Schema and read-only or destructive annotations; list_accounts only with the provisioning scope', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS, 'list_accounts'].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
      const a = tool.annotations!;
      expect(a, tool.name).toBeDefined();
      expect(a.openWorldHint, tool.name).toBe(false);
      if (a.readOnlyHint) expect(a.destructiveHint, tool.name).toBe(false);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('cancel_export')!.annotations!.destructiveHint).toBe(true);
    expect(byName.get('start_export')!.annotations!.readOnlyHint).toBe(false);
    for (const name of ['run_report', 'describe_reporting', 'freshness', 'get_export', 'list_accounts'])
      expect(byName.get(name)!.annotations!.readOnlyHint, name).toBe(true);
    const run = byName.get('run_report')!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    for (const parameter of [
      'endpoint',
      'dateRange',
      'startDate',
      'endDate',
      'statistics',
      'segments',
      'filter',
      'sort',
    ])
      expect(Object.keys(run.properties), parameter).toContain(parameter);
    for (const parameter of [
      'formulas',
      'embed',
      'currency',
      'totals',
      'compare',
      'limit',
      'offset',
      'attributionWindows',
    ])
      expect(Object.keys(run.properties), parameter).toContain(parameter);
    expect(run.required).toEqual(['endpoint']);

    const reportingOnly = await connect(reportingOnlyToken);
    try {
      expect((await reportingOnly.client.listTools()).tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
      await expect(reportingOnly.client.callTool({ name: 'list_accounts', arguments: {} })).rejects.toThrow(
        /list_accounts/,
      );
    } finally {
      await reportingOnly.close();
    }
  });

  it('serves the 2026-07-28 revision, the 2025-11-25 one (stateless) and the v1 SDK client the same tools', async () => {
    expect(mcp.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const legacy = await connect(fx.orgs[0]!.token, 'legacy');
    expect(legacy.client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const v1 = await connectV1(fx.service.url, cert(), fx.orgs[0]!.token);
    try {
      const names = async (list: Promise<{ tools: Array<{ name: string }> }>) =>
        (await list).tools.map((t) => t.name).sort();
      const expected = await names(mcp.client.listTools());
      expect(await names(legacy.client.listTools())).toEqual(expected);
      expect(await names(v1.client.listTools())).toEqual(expected);
      const args = { endpoint: 'accounts', dateRange: 'LAST_7_DAYS', limit: 5 };
      const modern = await call(mcp, 'run_report', args);
      const old = (await v1.client.callTool({ name: 'run_report', arguments: args })).structuredContent as Structured;
      expect(old.answer).toEqual(modern.structured.answer);
      expect(old.provenance!.dataVersion).toBe(modern.structured.provenance!.dataVersion);
    } finally {
      await legacy.close();
      await v1.close();
    }
  });

  it('keeps no session: no Mcp-Session-Id, GET and DELETE answer 405', async () => {
    const auth = { authorization: `Bearer ${fx.orgs[0]!.token}` };
    const init = await fx.http.request('POST', '/mcp', {
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(init.status, init.text).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    for (const method of ['GET', 'DELETE']) {
      const res = await fx.http.request(method, '/mcp', { headers: { ...auth, accept: 'text/event-stream' } });
      expect(res.status, `${method} ${res.text}`).toBe(405);
    }
    const put = await fx.http.request('PUT', '/mcp', { headers: auth });
    expect(put.status).toBe(405);
  });
});

describe('tokens', () => {
  it('answers 401 without a token, naming the resource metadata, which names this service as the authorization server', async () => {
    const res = await fx.http.request('POST', '/mcp', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    const challenge = String(res.headers['www-authenticate']);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${fx.service.url}/.well-known/oauth-protected-resource/mcp`);
    const metadata = await fx.http.get(new URL(metadataUrl!).pathname);
    expect(metadata.status).toBe(200);
    expect(metadata.json.resource).toBe(`${fx.service.url}/mcp`);
    expect(metadata.json.authorization_servers).toEqual([fx.service.url]);
    const server = await fx.http.get('/.well-known/oauth-authorization-server');
    expect(server.json.token_endpoint).toBe(`${fx.service.url}/token`);
  });

  it('an agent whose token expired gets a new one from POST /token on the 401 and goes on', async () => {
    const credentials = fx.orgs[1]!;
    const now = Math.floor(Date.now() / 1000);
    let current = signToken(
      {
        clientId: credentials.clientId,
        organizationId: credentials.id,
        scopes: ['provisioning', 'reporting'],
        issuedAt: now - 120,
        expiresAt: now - 60,
      },
      signingKeyOnDisk(path.join(fx.dir, WORLD_FILE)),
    );
    let renewals = 0;
    const provider: AuthProvider = {
      token: async () => current,
      onUnauthorized: async () => {
        renewals++;
        current = await token(1);
      },
    };
    const connection = await connectMcp(fx.service.url, cert(), { provider });
    try {
      const accounts = await call(connection, 'list_accounts', {});
      expect(accounts.isError, accounts.text).toBe(false);
      const rest = await fx.get('/provisioning/v0/accounts?limit=100', credentials.token);
      expect(accounts.structured.answer).toEqual(rest.json);
      expect(renewals).toBe(1);
    } finally {
      await connection.close();
    }
  });

  it('refuses a request from a page of another origin (DNS rebinding) before looking at its token', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const bearer = `Bearer ${fx.orgs[0]!.token}`;
    const other = await fx.http.request('POST', '/mcp', {
      headers: { ...headers, authorization: bearer, origin: 'https://evil.example' },
      body,
    });
    expect(other.status).toBe(403);
    expect(other.json.error.code).toBe('origin_not_allowed');
    const same = await fx.http.request('POST', '/mcp', {
      headers: { ...headers, authorization: bearer, origin: fx.service.url },
      body,
    });
    expect(same.status, same.text).toBe(200);
  });

  it('refuses an expired token (401 invalid_token) and a token without the reporting scope (403)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = signToken(
      {
        clientId: fx.orgs[0]!.clientId,
        organizationId: fx.orgs[0]!.id,
        scopes: ['provisioning', 'reporting'],
        issuedAt: now - 120,
        expiresAt: now - 60,
      },
      signingKeyOnDisk(path.join(fx.dir, WORLD_FILE)),
    );
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const res = await fx.http.request('POST', '/mcp', {
      headers: { ...headers, authorization: `Bearer ${expired}` },
      body,
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_token');
    expect(res.json.error.message).toMatch(/expired/);
    await expect(connect(expired)).rejects.toThrow();

    const provisioningOnly = await token(0, 'provisioning');
    const refused = await fx.http.request('POST', '/mcp', {
      headers: { ...headers, authorization: `Bearer ${provisioningOnly}` },
      body,
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('insufficient_scope');
  });
});

describe('each tool answers as the REST API does, with provenance', () => {
  it('run_report: the REST body, its ETag, complete-through, engine, range, warnings, the REST and explorer URLs', async () => {
    const query = {
      dateRange: 'LAST_14_DAYS',
      statistics: 'clicks,cost,ctr',
      segments: 'Day',
      sort: '-statistics.clicks',
      limit: 50,
    };
    const rest = await fx.report('campaigns', fx.orgs[0]!.token, query);
    expect(rest.status).toBe(200);
    const result = await call(mcp, 'run_report', {
      endpoint: 'campaigns',
      dateRange: 'LAST_14_DAYS',
      statistics: ['clicks', 'cost', 'ctr'],
      segments: ['Day'],
      sort: ['-statistics.clicks'],
      limit: 50,
    });
    expect(result.isError, result.text).toBe(false);
    const { answer, provenance, page } = result.structured;
    expect(answer).toEqual(rest.json);
    expect(provenance!.dataVersion).toBe(rest.headers.etag);
    expect(provenance!.completeThrough).toBe(rest.headers['x-data-complete-through'] ?? null);
    expect(provenance!.engine).toBe(rest.headers['x-report-engine']);
    expect(provenance!.range).toEqual({ startDate: rest.headers['x-start-date'], endDate: rest.headers['x-end-date'] });
    expect(provenance!.mayChange).toBe(
      provenance!.completeThrough === null || provenance!.range!.endDate > provenance!.completeThrough,
    );
    expect(provenance!.warnings).toEqual(rest.json.warnings ?? []);
    expect(pairsOf(provenance!.restUrl)).toEqual(
      pairsOf(`${fx.service.url}/reporting/v0/campaigns?${encodeQuery(query)}`),
    );
    expect(new URL(provenance!.restUrl).pathname).toBe('/reporting/v0/campaigns');
    const again = await fx.get(
      new URL(provenance!.restUrl).pathname + new URL(provenance!.restUrl).search,
      fx.orgs[0]!.token,
    );
    expect(again.json).toEqual(rest.json);
    const explorer = new URL(provenance!.explorerUrl!);
    expect(explorer.pathname).toBe('/explorer');
    const state = new URLSearchParams(explorer.hash.slice(1));
    expect(state.get('endpoint')).toBe('campaigns');
    expect(state.get('segments')).toBe('Day');
    expect(state.get('dateRange')).toBe('LAST_14_DAYS');
    expect(page).toEqual({
      offset: 0,
      limit: 50,
      returned: rest.json.campaigns.length,
      totalCount: Number(rest.headers['x-totalcount']),
      nextOffset: Number(rest.headers['x-totalcount']) > 50 ? 50 : null,
    });
  });

  it('pages a large result to its end, never cutting it silently', async () => {
    const args = { endpoint: 'keywords', dateRange: 'LAST_30_DAYS', statistics: ['clicks'], sort: ['id'], limit: 1000 };
    const first = await call(mcp, 'run_report', args);
    const total = first.structured.page!.totalCount!;
    expect(total).toBeGreaterThan(1000);
    expect(first.text).toMatch(/offset 1000/);
    const ids: number[] = [];
    let result = first;
    for (;;) {
      ids.push(...(result.structured.answer as { keywords: Array<{ id: number }> }).keywords.map((k) => k.id));
      const next = result.structured.page!.nextOffset;
      if (next === null) break;
      result = await call(mcp, 'run_report', { ...args, offset: next });
      expect(result.isError, result.text).toBe(false);
    }
    expect(ids.length).toBe(total);
    expect(new Set(ids).size).toBe(total);
    expect(result.text).toMatch(/the whole result/);
    const tooMany = await call(mcp, 'run_report', { ...args, limit: 5000 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toMatch(/limit/);
  });

  it('compare_periods: PREVIOUS_PERIOD by default, the compared range in provenance, no explorer link', async () => {
    const rest = await fx.report('accounts', fx.orgs[0]!.token, {
      dateRange: 'LAST_7_DAYS',
      compare: 'PREVIOUS_PERIOD',
      totals: 'true',
      limit: 100,
    });
    const result = await call(mcp, 'compare_periods', {
      endpoint: 'accounts',
      dateRange: 'LAST_7_DAYS',
      totals: 'true',
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured.answer).toEqual(rest.json);
    expect(result.structured.provenance!.comparedRange).toEqual({
      startDate: rest.headers['x-compare-start-date'],
      endDate: rest.headers['x-compare-end-date'],
    });
    expect(result.structured.provenance!.explorerUrl).toBeUndefined();
    expect(rest.json.accounts[0].change).toBeDefined();
  });

  it('freshness: meta.freshness of the platform accounts report, for some accounts or all', async () => {
    const all = await fx.report('adplatform-accounts', fx.orgs[0]!.token, { statistics: 'impressions', limit: 1 });
    const result = await call(mcp, 'freshness', {});
    expect(result.structured.answer).toEqual(all.json.meta.freshness);
    expect(result.structured.provenance!.warnings).toEqual(all.json.warnings ?? []);
    const accountId = (await fx.report('accounts', fx.orgs[0]!.token, { limit: 1 })).json.accounts[0].id as number;
    const some = await fx.report('adplatform-accounts', fx.orgs[0]!.token, {
      statistics: 'impressions',
      limit: 1,
      filter: `accountId in [${accountId}]`,
    });
    const scoped = await call(mcp, 'freshness', { accountIds: [accountId] });
    expect(scoped.structured.answer).toEqual(some.json.meta.freshness);
    const none = await call(mcp, 'freshness', { accountIds: [987654] });
    expect((none.structured.answer as { platformAccounts: unknown[] }).platformAccounts).toEqual([]);
    expect(scoped.structured.provenance!.mayChange).toBe(
      some.headers['x-data-complete-through'] === undefined ||
        some.headers['x-end-date']! > some.headers['x-data-complete-through'],
    );
  });

  it('changes_since: the change feed page by page, nextCursor as since', async () => {
    // A change on the first organization's data: an account renamed (ENTITIES_CHANGED).
    const account = (await fx.get('/provisioning/v0/accounts?limit=1', fx.orgs[0]!.token)).json.accounts[0];
    const renamed = await fx.json(
      'PATCH',
      `/provisioning/v0/accounts/id/${account.id}`,
      fx.orgs[0]!.token,
      { account: { name: `${account.name} (renamed)` } },
      'application/merge-patch+json',
    );
    expect(renamed.status, renamed.text).toBe(200);
    const rest = await fx.get('/reporting/v0/changes?limit=1', fx.orgs[0]!.token);
    const result = await call(mcp, 'changes_since', { limit: 1 });
    expect(rest.json.changes.length).toBe(1);
    // Cursors are sealed with a fresh nonce each time: equal answers differ in nextCursor only.
    const { nextCursor: restCursor, ...restRest } = rest.json;
    const { nextCursor: toolCursor, ...toolRest } = result.structured.answer as { nextCursor: string };
    expect(toolRest).toEqual(restRest);
    const after = async (cursor: string) => {
      const next = await fx.get(
        `/reporting/v0/changes?since=${encodeURIComponent(cursor)}&limit=1000`,
        fx.orgs[0]!.token,
      );
      const { nextCursor: _, ...page } = next.json;
      return page;
    };
    expect(await after(toolCursor)).toEqual(await after(restCursor as string));
    const following = await call(mcp, 'changes_since', { since: toolCursor, limit: 1000 });
    const { nextCursor: _ignored, ...followingPage } = following.structured.answer as { nextCursor: string };
    expect(followingPage).toEqual(await after(restCursor as string));
  });

  it('describe_reporting: the index of endpoints, and one endpoint as GET /reporting/v0/fields has it', async () => {
    const fields = await fx.get('/reporting/v0/fields', fx.orgs[0]!.token);
    const index = await call(mcp, 'describe_reporting', {});
    const endpoints = (index.structured.answer as { endpoints: Array<{ path: string; statistics?: string[] }> })
      .endpoints;
    expect(endpoints.map((e) => e.path)).toEqual(fields.json.endpoints.map((e: { path: string }) => e.path));
    for (const entry of fields.json.endpoints as Array<{ path: string; statistics?: Array<{ name: string }> }>) {
      const shown = endpoints.find((e) => e.path === entry.path)!;
      expect(shown.statistics, entry.path).toEqual(entry.statistics?.map((s) => s.name));
      const one = await call(mcp, 'describe_reporting', { endpoint: entry.path });
      expect(one.structured.answer, entry.path).toEqual(entry);
    }
    const short = await call(mcp, 'describe_reporting', { endpoint: 'campaigns/facebook' });
    expect((short.structured.answer as { path: string }).path).toBe('/reporting/v0/campaigns/facebook');
  });

  it('explain_statistic: every statistic of the catalogue, consistent with GET /reporting/v0/fields', async () => {
    const fields = await fx.get('/reporting/v0/fields', fx.orgs[0]!.token);
    type Entry = {
      path: string;
      statistics?: Array<{
        name: string;
        type: string;
        default: boolean;
        description: string;
        unit: string;
        label: string;
      }>;
    };
    for (const statistic of STATISTICS) {
      const result = await call(mcp, 'explain_statistic', { name: statistic.name });
      expect(result.isError, result.text).toBe(false);
      const explanation = result.structured.explanation as {
        unit: string;
        label: string;
        type: string;
        description: string;
        additive: boolean;
        endpoints: Array<{ path: string; default: boolean }>;
        computation: string;
      };
      const offered = (fields.json.endpoints as Entry[]).flatMap((e) =>
        (e.statistics ?? [])
          .filter((s) => s.name === statistic.name)
          .map((s) => ({ path: e.path, default: s.default, s })),
      );
      expect(explanation.endpoints, statistic.name).toEqual(
        offered.map(({ path: p, default: d }) => ({ path: p, default: d })),
      );
      for (const { s } of offered) {
        expect(explanation.type).toBe(s.type);
        expect(explanation.description).toBe(s.description);
        expect(explanation.unit).toBe(s.unit);
        expect(explanation.label).toBe(s.label);
      }
      if (!statistic.additive && statistic.formula.kind === 'ratio')
        expect(explanation.computation).toMatch(/never an average/);
      const resource = await mcp.client.readResource({ uri: `adreport://reporting/statistics/${statistic.name}` });
      expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(explanation);
    }
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toContain('adreport://reporting/fields');
    expect(resources.filter((r) => r.uri.startsWith('adreport://reporting/statistics/')).length).toBe(
      STATISTICS.length,
    );
    const catalogue = await mcp.client.readResource({ uri: 'adreport://reporting/fields' });
    expect(JSON.parse((catalogue.contents[0] as { text: string }).text)).toEqual(fields.json);
  });

  it('start_export and get_export: a report job whose file is the GET export of the same query; cancel_export deletes it', async () => {
    const started = await call(mcp, 'start_export', {
      endpoint: 'campaigns',
      format: 'csv',
      dateRange: 'LAST_7_DAYS',
      segments: ['Day'],
      statistics: ['clicks', 'cost'],
      sort: ['id'],
    });
    expect(started.isError, started.text).toBe(false);
    const job = (started.structured.answer as { reportJob: { id: number; status: string } }).reportJob;
    expect(['QUEUED', 'RUNNING', 'SUCCEEDED']).toContain(job.status);
    const done = await poll('report job SUCCEEDED', async () => {
      const got = await call(mcp, 'get_export', { id: job.id });
      expect(got.isError, got.text).toBe(false);
      const status = (got.structured.answer as { reportJob: { status: string } }).reportJob.status;
      expect(['QUEUED', 'RUNNING', 'SUCCEEDED']).toContain(status);
      return status === 'SUCCEEDED' ? got : undefined;
    });
    const rest = await fx.get(`/reporting/v0/report-jobs/id/${job.id}`, fx.orgs[0]!.token);
    expect(done.structured.answer).toEqual(rest.json);
    expect(done.structured.fileUrl).toBe(`${fx.service.url}/reporting/v0/report-jobs/id/${job.id}/file`);
    const file = await fx.get(new URL(done.structured.fileUrl!).pathname, fx.orgs[0]!.token);
    const direct = await fx.report('campaigns', fx.orgs[0]!.token, {
      format: 'csv',
      dateRange: 'LAST_7_DAYS',
      segments: 'Day',
      statistics: 'clicks,cost',
      sort: 'id',
    });
    expect(file.status).toBe(200);
    expect(file.text).toBe(direct.text);
    const cancelled = await call(mcp, 'cancel_export', { id: job.id });
    expect(cancelled.isError, cancelled.text).toBe(false);
    const gone = await call(mcp, 'get_export', { id: job.id });
    expect(gone.isError).toBe(true);
    expect(gone.structured.error!.code).toBe('not_found');
  });
});

describe('bad arguments are tool errors with the REST error, never a 500', () => {
  const cases: Array<[string, string, Record<string, unknown>, RegExp | string]> = [
    ['unknown endpoint', 'run_report', { endpoint: 'nope' }, /endpoint/],
    ['limit over 1000', 'run_report', { endpoint: 'campaigns', limit: 1001 }, /limit/],
    ['negative offset', 'run_report', { endpoint: 'campaigns', offset: -1 }, /offset/],
    [
      'a date that is not one',
      'run_report',
      { endpoint: 'campaigns', startDate: '2026-13-40', endDate: '2026-13-41' },
      'invalid_parameter',
    ],
    [
      'startDate with dateRange',
      'run_report',
      { endpoint: 'campaigns', dateRange: 'LAST_7_DAYS', startDate: '2026-01-01' },
      'invalid_parameter',
    ],
    [
      'a filter that does not parse',
      'run_report',
      { endpoint: 'campaigns', filter: 'statistics.clicks >' },
      'invalid_parameter',
    ],
    ['an unknown statistic', 'run_report', { endpoint: 'campaigns', statistics: ['bogus'] }, 'invalid_parameter'],
    [
      'segments that do not combine',
      'run_report',
      { endpoint: 'campaigns', segments: ['Age', 'Country'] },
      'invalid_parameter',
    ],
    [
      'offset not a multiple of limit',
      'run_report',
      { endpoint: 'campaigns', limit: 10, offset: 15 },
      'invalid_parameter',
    ],
    ['an unknown currency', 'run_report', { endpoint: 'campaigns', currency: 'XYZ' }, 'invalid_parameter'],
    [
      'campaignLabel on campaigns',
      'run_report',
      { endpoint: 'campaigns', campaignLabel: 'region' },
      'invalid_parameter',
    ],
    ['name on keywords', 'run_report', { endpoint: 'keywords', name: 'x' }, 'unknown_parameter'],
    [
      'a compare range that is no range',
      'compare_periods',
      { endpoint: 'accounts', compare: 'LAST_YEAR' },
      'invalid_parameter',
    ],
    ['an unknown statistic to explain', 'explain_statistic', { name: 'bogus' }, /name/],
    ['an endpoint the catalogue lacks', 'describe_reporting', { endpoint: 'nope' }, 'invalid_parameter'],
    ['a cursor this API never issued', 'changes_since', { since: 'garbage' }, 'invalid_cursor'],
    ['an export format there is not', 'start_export', { endpoint: 'campaigns', format: 'xlsx' }, /format/],
    [
      'an export with a bad filter',
      'start_export',
      { endpoint: 'campaigns', format: 'csv', filter: '(' },
      'invalid_parameter',
    ],
    ['a job id that is no id', 'get_export', { id: 0 }, /id/],
    ['a job that does not exist', 'get_export', { id: 987654 }, 'not_found'],
    ['cancel a job that does not exist', 'cancel_export', { id: 987654 }, 'not_found'],
    ['freshness of accounts given as text', 'freshness', { accountIds: ['1'] }, /accountIds/],
    ['list_accounts with a malformed label filter', 'list_accounts', { labels: ['nocolon'] }, 'invalid_parameter'],
  ];
  it.each(cases)('%s', async (_what, tool, args, expected) => {
    const jobsBefore = await fx.sql<{ n: bigint }>('SELECT count(*) AS n FROM report_jobs');
    const result = await call(mcp, tool, args);
    expect(result.isError, result.text).toBe(true);
    if (typeof expected === 'string') {
      expect(result.structured.error?.code, result.text).toBe(expected);
      expect(result.text.startsWith(`${expected}: `)).toBe(true);
    } else expect(result.text).toMatch(expected);
    expect(result.text).not.toMatch(/internal_error/);
    expect(await fx.sql('SELECT count(*) AS n FROM report_jobs')).toEqual(jobsBefore);
  });

  it('logged no error', () => {
    expect(fx.errors).toEqual([]);
  });
});

describe('tenant isolation', () => {
  it('no tool shows organization 2 anything of organization 1 (or the reverse): 0 leaks over every tool', async () => {
    const namesOf = async (org: number) => {
      const bearer = fx.orgs[org]!.token;
      const texts = new Set<string>();
      for (const endpoint of ['accounts', 'campaigns', 'adgroups']) {
        const rows = (await fx.report(endpoint, bearer, { limit: 10000, statistics: 'clicks' })).json[
          endpoint === 'adgroups' ? 'adGroups' : endpoint
        ] as Array<{ name: string }>;
        for (const row of rows) texts.add(row.name);
      }
      return texts;
    };
    const [first, second] = [await namesOf(0), await namesOf(1)];
    const secondOnly = [...second].filter((n) => !first.has(n) && n.length >= 6);
    expect(secondOnly.length).toBeGreaterThan(10);
    const secondAccountIds = (
      (await fx.report('accounts', fx.orgs[1]!.token, { limit: 100 })).json.accounts as Array<{ id: number }>
    ).map((a) => a.id);
    const secondCampaignId = (await fx.report('campaigns', fx.orgs[1]!.token, { limit: 1, sort: 'id' })).json
      .campaigns[0].id as number;
    const secondJob = await fx.json('POST', '/reporting/v0/report-jobs', fx.orgs[1]!.token, {
      reportJob: { endpoint: 'campaigns', format: 'csv', query: { dateRange: 'LAST_7_DAYS' } },
    });
    expect(secondJob.status, secondJob.text).toBe(202);
    const secondJobId = secondJob.json.reportJob.id as number;
    const secondCursor = (await fx.get('/reporting/v0/changes?limit=1', fx.orgs[1]!.token)).json.nextCursor as string;

    const probes: Array<[string, Record<string, unknown>]> = [
      ['run_report', { endpoint: 'campaigns', filter: `id == ${secondCampaignId}` }],
      ['run_report', { endpoint: 'accounts', filter: `id in [${secondAccountIds.join(', ')}]`, limit: 1000 }],
      ['run_report', { endpoint: 'campaigns', limit: 1000, totals: 'true' }],
      ['run_report', { endpoint: 'adgroups', limit: 1000 }],
      ['run_report', { endpoint: 'accounts', campaignLabel: 'campaignGroup' }],
      ['compare_periods', { endpoint: 'campaigns', limit: 1000 }],
      ['freshness', { accountIds: secondAccountIds }],
      ['freshness', {}],
      ['changes_since', { since: secondCursor }],
      ['changes_since', { limit: 1000 }],
      ['describe_reporting', { endpoint: 'campaigns' }],
      ['explain_statistic', { name: 'cost' }],
      ['get_export', { id: secondJobId }],
      ['cancel_export', { id: secondJobId }],
      ['start_export', { endpoint: 'campaigns', format: 'ndjson', filter: `id == ${secondCampaignId}` }],
      ['list_accounts', { ids: secondAccountIds }],
      ['list_accounts', {}],
    ];
    const leaks: string[] = [];
    for (const [tool, args] of probes) {
      const result = await call(mcp, tool, args);
      for (const name of secondOnly)
        if (result.text.includes(name)) leaks.push(`${tool} ${JSON.stringify(args)}: ${name}`);
    }
    expect(leaks).toEqual([]);
    for (const tool of ['get_export', 'cancel_export']) {
      const result = await call(mcp, tool, { id: secondJobId });
      expect(result.structured.error?.code, tool).toBe('not_found');
    }
    const stillThere = await fx.get(`/reporting/v0/report-jobs/id/${secondJobId}`, fx.orgs[1]!.token);
    expect(stillThere.status).toBe(200);
    const cursor = await call(mcp, 'changes_since', { since: secondCursor });
    expect(cursor.structured.error?.code).toBe('invalid_cursor');
    const accounts = await call(mcp, 'list_accounts', { ids: secondAccountIds });
    expect((accounts.structured.answer as { accounts: unknown[] }).accounts).toEqual([]);
  });
});

/**
 * Thirty questions an agent would ask, each as its tool call and the REST request a person
 * would make for the same numbers: the tool's answer must be the REST body, its data version
 * the REST ETag, its URL the same query.
 */
describe('30 scripted questions: the tool answers equal the REST answers', () => {
  type Question = [string, string, Record<string, unknown>, string, QueryInput, (body: any) => unknown];
  const body = (b: unknown) => b;
  // Days inside the generated 30 days (they end yesterday).
  const day = (back: number) => addDays(yesterdayUtc(), -back);
  const questions: Question[] = [
    [
      'Which campaigns spent most in the last 30 days?',
      'run_report',
      { endpoint: 'campaigns', statistics: ['cost', 'clicks'], sort: ['-statistics.cost'], limit: 10 },
      'campaigns',
      { statistics: 'cost,clicks', sort: '-statistics.cost', limit: 10 },
      body,
    ],
    [
      'Clicks per day last week',
      'run_report',
      { endpoint: 'accounts', dateRange: 'LAST_WEEK', segments: ['Day'], statistics: ['clicks'] },
      'accounts',
      { dateRange: 'LAST_WEEK', segments: 'Day', statistics: 'clicks', limit: 100 },
      body,
    ],
    [
      'Totals in EUR this month',
      'run_report',
      { endpoint: 'accounts', dateRange: 'THIS_MONTH', currency: 'EUR', totals: 'true' },
      'accounts',
      { dateRange: 'THIS_MONTH', currency: 'EUR', totals: 'true', limit: 100 },
      body,
    ],
    [
      'Device split of clicks',
      'run_report',
      { endpoint: 'campaigns', segments: ['DeviceType'], statistics: ['clicks', 'ctr'], limit: 200 },
      'campaigns',
      { segments: 'DeviceType', statistics: 'clicks,ctr', limit: 200 },
      body,
    ],
    [
      'Weekly cost of ad groups',
      'run_report',
      { endpoint: 'adgroups', segments: ['Week'], statistics: ['cost'], limit: 300 },
      'adgroups',
      { segments: 'Week', statistics: 'cost', limit: 300 },
      body,
    ],
    [
      'Keywords with more than 50 clicks',
      'run_report',
      { endpoint: 'keywords', filter: 'statistics.clicks > 50', sort: ['-statistics.clicks'], limit: 100 },
      'keywords',
      { filter: 'statistics.clicks > 50', sort: '-statistics.clicks', limit: 100 },
      body,
    ],
    [
      'Cost per conversion as a formula',
      'run_report',
      {
        endpoint: 'campaigns',
        formulas: ['cpa:statistics.cost / statistics.conversions:Money'],
        statistics: ['cost', 'conversions'],
      },
      'campaigns',
      { formulas: 'cpa:statistics.cost / statistics.conversions:Money', statistics: 'cost,conversions', limit: 100 },
      body,
    ],
    [
      'Ads on FACEBOOK with reach',
      'run_report',
      { endpoint: 'ads/facebook', limit: 50 },
      'ads/facebook',
      { limit: 50 },
      body,
    ],
    [
      'FACEBOOK campaigns by age',
      'run_report',
      { endpoint: 'campaigns/facebook', segments: ['Age'], limit: 100 },
      'campaigns/facebook',
      { segments: 'Age', limit: 100 },
      body,
    ],
    [
      'Impression share on Google Ads',
      'run_report',
      { endpoint: 'adplatform-accounts/google-ads' },
      'adplatform-accounts/google-ads',
      { limit: 100 },
      body,
    ],
    [
      'Monthly accounts with labels',
      'run_report',
      { endpoint: 'accounts', segments: ['Month'], embed: ['labels'], dateRange: 'LAST_90_DAYS' },
      'accounts',
      { segments: 'Month', embed: 'labels', dateRange: 'LAST_90_DAYS', limit: 100 },
      body,
    ],
    [
      'Hours of the day, last 7 days',
      'run_report',
      { endpoint: 'campaigns', segments: ['HourOfDay'], dateRange: 'LAST_7_DAYS', statistics: ['clicks'], limit: 500 },
      'campaigns',
      { segments: 'HourOfDay', dateRange: 'LAST_7_DAYS', statistics: 'clicks', limit: 500 },
      body,
    ],
    [
      'Countries',
      'run_report',
      { endpoint: 'accounts', segments: ['Country'], statistics: ['impressions', 'clicks'] },
      'accounts',
      { segments: 'Country', statistics: 'impressions,clicks', limit: 100 },
      body,
    ],
    [
      'Search terms of the last 7 days',
      'run_report',
      { endpoint: 'search-terms', dateRange: 'LAST_7_DAYS', limit: 50 },
      'search-terms',
      { dateRange: 'LAST_7_DAYS', limit: 50 },
      body,
    ],
    [
      'Accounts by campaign group label',
      'run_report',
      { endpoint: 'accounts', campaignLabel: 'campaignGroup' },
      'accounts/campaign-labels/name/campaignGroup',
      { limit: 100 },
      body,
    ],
    [
      'Segment totals by device',
      'run_report',
      { endpoint: 'accounts', segments: ['DeviceType'], totals: 'segments' },
      'accounts',
      { segments: 'DeviceType', totals: 'segments', limit: 100 },
      body,
    ],
    [
      'Explicit dates',
      'run_report',
      { endpoint: 'campaigns', startDate: day(20), endDate: day(11), statistics: ['clicks'] },
      'campaigns',
      { startDate: day(20), endDate: day(11), statistics: 'clicks', limit: 100 },
      body,
    ],
    [
      'The second page of ad groups',
      'run_report',
      { endpoint: 'adgroups', limit: 20, offset: 20, sort: ['id'] },
      'adgroups',
      { limit: 20, offset: 20, sort: 'id' },
      body,
    ],
    [
      'Network split',
      'run_report',
      { endpoint: 'adplatform-accounts', segments: ['NetworkType'] },
      'adplatform-accounts',
      { segments: 'NetworkType', limit: 100 },
      body,
    ],
    [
      'Campaign names containing "Brand"',
      'run_report',
      { endpoint: 'campaigns', name: 'Brand' },
      'campaigns',
      { name: 'Brand', limit: 100 },
      body,
    ],
    [
      'This week versus last week',
      'compare_periods',
      { endpoint: 'accounts', dateRange: 'LAST_7_DAYS' },
      'accounts',
      { dateRange: 'LAST_7_DAYS', compare: 'PREVIOUS_PERIOD', limit: 100 },
      body,
    ],
    [
      'Year over year by month',
      'compare_periods',
      { endpoint: 'accounts', dateRange: 'LAST_MONTH', compare: 'PREVIOUS_YEAR', statistics: ['cost'] },
      'accounts',
      { dateRange: 'LAST_MONTH', compare: 'PREVIOUS_YEAR', statistics: 'cost', limit: 100 },
      body,
    ],
    [
      'Campaigns that grew clicks',
      'compare_periods',
      { endpoint: 'campaigns', filter: 'change.statistics.clicks > 0', sort: ['-change.statistics.clicks'], limit: 20 },
      'campaigns',
      {
        compare: 'PREVIOUS_PERIOD',
        filter: 'change.statistics.clicks > 0',
        sort: '-change.statistics.clicks',
        limit: 20,
      },
      body,
    ],
    [
      'Against an explicit range',
      'compare_periods',
      {
        endpoint: 'campaigns',
        startDate: day(6),
        endDate: day(0),
        compare: `${day(20)}..${day(14)}`,
        statistics: ['clicks'],
      },
      'campaigns',
      { startDate: day(6), endDate: day(0), compare: `${day(20)}..${day(14)}`, statistics: 'clicks', limit: 100 },
      body,
    ],
    [
      'How fresh is the data?',
      'freshness',
      {},
      'adplatform-accounts',
      { statistics: 'impressions', limit: 1 },
      (b) => b.meta.freshness,
    ],
    [
      'Is last week final?',
      'freshness',
      { dateRange: 'LAST_WEEK' },
      'adplatform-accounts',
      { statistics: 'impressions', limit: 1, dateRange: 'LAST_WEEK' },
      (b) => b.meta.freshness,
    ],
    ['What changed?', 'changes_since', { limit: 5 }, 'changes', { limit: 5 }, ({ nextCursor: _, ...page }) => page],
    [
      'What can I ask of keywords?',
      'describe_reporting',
      { endpoint: 'keywords' },
      'fields',
      {},
      (b) => b.endpoints.find((e: { path: string }) => e.path === '/reporting/v0/keywords'),
    ],
    [
      'The whole catalogue',
      'describe_reporting',
      { endpoint: '/reporting/v0/search-terms' },
      'fields',
      {},
      (b) => b.endpoints.find((e: { path: string }) => e.path === '/reporting/v0/search-terms'),
    ],
    [
      'Ads with their images',
      'run_report',
      { endpoint: 'ads', embed: ['images'], limit: 30 },
      'ads',
      { embed: 'images', limit: 30 },
      body,
    ],
  ];
  it('has thirty', () => expect(questions.length).toBe(30));
  it.each(questions)('%s', async (_question, tool, args, restPath, query, pick) => {
    const rest = await fx.report(restPath, fx.orgs[0]!.token, query);
    const result = await call(mcp, tool, args);
    expect(result.isError, result.text).toBe(false);
    expect(rest.status, rest.text).toBe(200);
    // Change feed cursors are sealed with a fresh nonce each time (compared by use in the changes_since test).
    const { nextCursor: _, ...withoutCursor } = result.structured.answer as Record<string, unknown>;
    expect(tool === 'changes_since' ? withoutCursor : result.structured.answer).toEqual(pick(rest.json));
    const provenance = result.structured.provenance!;
    expect(provenance.dataVersion).toBe(rest.headers.etag ?? null);
    expect(provenance.engine).toBe(rest.headers['x-report-engine'] ?? null);
    expect(new URL(provenance.restUrl).pathname).toBe(`/reporting/v0/${restPath}`);
    if (tool !== 'describe_reporting')
      expect(pairsOf(provenance.restUrl)).toEqual(pairsOf(`https://x/?${encodeQuery(query)}`));
  });
});
