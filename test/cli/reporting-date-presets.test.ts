import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/catalog/endpoints.js';
import { runCli } from '../helpers/cli.js';
import { addDays, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/**
 * dateRange through the real HTTP interface (issue 23 item 1): every preset on every statistics
 * endpoint and the campaign-label one, JSON and exports; the resolved range in X-Start-Date and
 * X-End-Date on every report answer (JSON from the query and from the page cache, exports, 304s),
 * presets or not; the 400s. The exact ranges at fixed clocks are test/unit/report-date-presets.test.ts;
 * here the service's own clock is the real one, so the expected ranges are worked out from today.
 */

const PRESETS = [
  'TODAY',
  'YESTERDAY',
  'LAST_7_DAYS',
  'LAST_14_DAYS',
  'LAST_30_DAYS',
  'LAST_90_DAYS',
  'THIS_WEEK',
  'LAST_WEEK',
  'THIS_MONTH',
  'LAST_MONTH',
  'THIS_QUARTER',
  'LAST_QUARTER',
  'THIS_YEAR',
  'LAST_YEAR',
] as const;

let fx: ReportingFixture;
let token: string;
let Y: string;
let today: string;

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'long-100d' });
  token = fx.orgs[0]!.token;
  Y = fx.yesterday;
  today = addDays(Y, 1);
}, 360_000);
afterAll(async () => {
  await fx?.close();
});

const range = (res: { headers: Record<string, string | string[] | undefined> }) => [
  res.headers['x-start-date'],
  res.headers['x-end-date'],
];

/** Ranges that need no calendar arithmetic beyond counting days back from today. */
function simpleRange(preset: string): [string, string] | undefined {
  switch (preset) {
    case 'TODAY':
      return [today, today];
    case 'YESTERDAY':
      return [Y, Y];
    case 'LAST_7_DAYS':
      return [addDays(Y, -6), Y];
    case 'LAST_14_DAYS':
      return [addDays(Y, -13), Y];
    case 'LAST_30_DAYS':
      return [addDays(Y, -29), Y];
    case 'LAST_90_DAYS':
      return [addDays(Y, -89), Y];
    case 'THIS_MONTH':
      return [`${today.slice(0, 7)}-01`, today];
    case 'THIS_YEAR':
      return [`${today.slice(0, 4)}-01-01`, today];
    case 'LAST_YEAR': {
      const last = Number(today.slice(0, 4)) - 1;
      return [`${last}-01-01`, `${last}-12-31`];
    }
    default:
      return undefined;
  }
}

describe('dateRange over HTTP', () => {
  it('every preset answers what its resolved dates answer, byte for byte, with the same ETag', async () => {
    for (const preset of PRESETS) {
      const query = { segments: 'Day', statistics: 'impressions,clicks,cost,ctr', limit: 10_000 };
      const res = await fx.report('campaigns', token, { ...query, dateRange: preset });
      expect(res.status, `${preset}: ${res.text}`).toBe(200);
      const [from, to] = range(res) as [string, string];
      expect(from, preset).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(to >= from, preset).toBe(true);
      const expected = simpleRange(preset);
      if (expected) expect([from, to], preset).toEqual(expected);
      // Weeks are ISO weeks: THIS_WEEK starts on a Monday and runs to today; LAST_WEEK is Monday..Sunday.
      if (preset === 'THIS_WEEK') {
        expect(new Date(`${from}T00:00:00Z`).getUTCDay()).toBe(1);
        expect(to).toBe(today);
        expect(from > addDays(today, -7)).toBe(true);
      }
      if (preset === 'LAST_WEEK') {
        expect(new Date(`${from}T00:00:00Z`).getUTCDay()).toBe(1);
        expect(to).toBe(addDays(from, 6));
        expect(to < today && to >= addDays(today, -7)).toBe(true);
      }
      const dated = await fx.report('campaigns', token, { ...query, startDate: from, endDate: to });
      expect(dated.status).toBe(200);
      expect(range(dated)).toEqual([from, to]);
      expect(res.text, preset).toBe(dated.text);
      expect(res.headers.etag, preset).toBe(dated.headers.etag);
    }
  });

  it('the ranges of the presets that lie in the generated days hold the rows of those days only', async () => {
    const res = await fx.report('campaigns', token, { dateRange: 'LAST_14_DAYS', segments: 'Day', limit: 10_000 });
    const days = new Set((res.json.campaigns as any[]).map((r) => r.segments.day));
    expect([...days].sort()).toEqual(Array.from({ length: 14 }, (_, i) => addDays(Y, i - 13)));
    // TODAY has no data yet: with a segment, no bucket is active.
    const todayRows = await fx.report('campaigns', token, { dateRange: 'TODAY', segments: 'Day' });
    expect(todayRows.json.campaigns).toEqual([]);
  });

  it('on every statistics endpoint and the campaign-label one, JSON and CSV', async () => {
    const paths = [...ENDPOINTS.map((e) => e.path), 'accounts/campaign-labels/name/campaignGroup'];
    const expected = [addDays(Y, -6), Y];
    for (const p of paths) {
      for (const format of ['json', 'csv'] as const) {
        const res = await fx.report(p, token, { dateRange: 'LAST_7_DAYS', format, limit: 5 });
        expect(res.status, `${p} ${format}: ${res.text.slice(0, 300)}`).toBe(200);
        expect(range(res), `${p} ${format}`).toEqual(expected);
      }
    }
  });

  it('X-Start-Date and X-End-Date without a preset: the defaults, the dates as given, a start after yesterday alone', async () => {
    const defaults = await fx.report('accounts', token, {});
    expect(range(defaults)).toEqual([addDays(Y, -29), Y]);
    const given = await fx.report('accounts', token, { startDate: addDays(Y, -40), endDate: addDays(Y, -3) });
    expect(range(given)).toEqual([addDays(Y, -40), addDays(Y, -3)]);
    const onlyEnd = await fx.report('adgroups', token, { endDate: addDays(Y, -10) });
    expect(range(onlyEnd)).toEqual([addDays(Y, -39), addDays(Y, -10)]);
    const future = await fx.report('campaigns', token, { startDate: addDays(Y, 5) });
    expect(range(future)).toEqual([addDays(Y, 5), addDays(Y, 5)]);
  });

  it('on a page from the cache, on a 304 and on every export format', async () => {
    const query = { dateRange: 'LAST_MONTH', statistics: 'clicks', limit: 3 };
    const first = await fx.report('adplatform-accounts', token, query);
    const second = await fx.report('adplatform-accounts', token, query);
    expect(first.headers['x-cache']).toBe('miss');
    expect(second.headers['x-cache']).toBe('hit');
    const month = range(first);
    expect(range(second)).toEqual(month);
    expect(month[0]).toMatch(/-01$/);
    const notModified = await fx.http.get(
      `/reporting/v0/adplatform-accounts?dateRange=LAST_MONTH&statistics=clicks&limit=3`,
      { authorization: `Bearer ${token}`, 'if-none-match': String(first.headers.etag) },
    );
    expect(notModified.status).toBe(304);
    expect(range(notModified)).toEqual(month);
    for (const format of ['csv', 'ndjson', 'parquet'] as const) {
      const res = await fx.report('campaigns', token, { dateRange: 'LAST_QUARTER', format });
      expect(res.status, format).toBe(200);
      const [from, to] = range(res) as [string, string];
      expect(res.headers['content-disposition']).toBe(`attachment; filename="campaigns_${from}_${to}.${format}"`);
      const again = await fx.http.get(`/reporting/v0/campaigns?dateRange=LAST_QUARTER&format=${format}`, {
        authorization: `Bearer ${token}`,
        'if-none-match': String(res.headers.etag),
      });
      expect(again.status, format).toBe(304);
      expect(range(again)).toEqual([from, to]);
    }
    const labelled = await fx.report('accounts/campaign-labels/name/campaignGroup', token, {
      dateRange: 'THIS_QUARTER',
      format: 'csv',
    });
    const [from, to] = range(labelled);
    expect(to).toBe(today);
    expect(labelled.headers['content-disposition']).toBe(
      `attachment; filename="accounts-campaign-labels-name-campaignGroup_${from}_${to}.csv"`,
    );
  });

  it('400 with startDate or endDate as well, and for an unknown preset (listing them), JSON and exports alike', async () => {
    const bad = [
      { dateRange: 'LAST_7_DAYS', startDate: addDays(Y, -3) },
      { dateRange: 'LAST_7_DAYS', endDate: Y },
      { dateRange: 'YESTERDAY', startDate: Y, endDate: Y, format: 'csv' },
      { dateRange: 'LAST_8_DAYS' },
      { dateRange: 'last_week' },
      { dateRange: '', format: 'ndjson' },
    ];
    for (const query of bad) {
      for (const p of ['campaigns', 'accounts/campaign-labels/name/campaignGroup']) {
        const res = await fx.report(p, token, query);
        expect(res.status, `${p} ${JSON.stringify(query)}`).toBe(400);
        expect(res.json.error.code).toBe('invalid_parameter');
        expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual(['dateRange']);
        if (query.startDate === undefined && query.endDate === undefined)
          for (const preset of PRESETS) expect(res.json.error.message).toContain(preset);
        else expect(res.json.error.message).toMatch(/startDate|endDate/);
      }
    }
  });

  it('/reporting/v0/fields lists the presets and the new segments per endpoint; OpenAPI types dateRange, the segments and both headers', async () => {
    const fields = await fx.get('/reporting/v0/fields', token);
    const reports = (fields.json.endpoints as any[]).filter((e) => Array.isArray(e.statistics));
    expect(reports.length).toBe(ENDPOINTS.length);
    for (const endpoint of reports) {
      expect(
        endpoint.dateRanges.map((d: { name: string }) => d.name),
        endpoint.path,
      ).toEqual([...PRESETS]);
      for (const d of endpoint.dateRanges) expect(d.description, d.name).toMatch(/\w/);
      // The segments of issue 23, and filters on requested segment keys (segments.quarter).
      expect(endpoint.segments).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'Quarter', key: 'segments.quarter' }),
          expect.objectContaining({ name: 'NetworkType', key: 'segments.networkType' }),
        ]),
      );
      expect(endpoint.filterable).toContain('segments.<key of a requested segment>');
    }
    const doc = (await fx.http.get('/openapi.json')).json;
    for (const p of [
      ...ENDPOINTS.map((e) => `/reporting/v0/${e.path}`),
      '/reporting/v0/accounts/campaign-labels/name/{name}',
    ]) {
      const op = doc.paths[p].get;
      const param = op.parameters.find((x: { name: string }) => x.name === 'dateRange');
      expect(param?.schema?.enum, p).toEqual([...PRESETS]);
      expect(param.in).toBe('query');
      const segments = op.parameters.find((x: { name: string }) => x.name === 'segments');
      expect(segments.schema.items.enum, p).toEqual(expect.arrayContaining(['Quarter', 'NetworkType']));
      expect(segments.description, p).toContain('YYYY-Qn');
      for (const status of ['200', '304']) {
        expect(op.responses[status].headers['X-Start-Date'], `${p} ${status}`).toBeDefined();
        expect(op.responses[status].headers['X-End-Date'], `${p} ${status}`).toBeDefined();
      }
    }
  });
});

describe('adreport export --query with dateRange', () => {
  it("writes the preset's range into the default file name and the summary; with startDate too it is a usage error", async () => {
    // The CLI opens the database file itself: give it its own copy (the fixture's service holds the other).
    const dir = fs.mkdtempSync(path.join(fx.dir, 'cli-'));
    const db = path.join(dir, 'copy.duckdb');
    await fx.sql(`CHECKPOINT`);
    fs.copyFileSync(path.join(fx.dir, 'adreport.duckdb'), db);
    const org = String(fx.orgs[0]!.id);
    const ok = await runCli(
      ['export', '--org', org, '--endpoint', 'campaigns', '--query', 'dateRange=LAST_7_DAYS', '--db', db, '--json'],
      {},
      { cwd: dir },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const summary = JSON.parse(ok.stdout);
    expect([summary.from, summary.to]).toEqual([addDays(Y, -6), Y]);
    expect(path.basename(summary.file)).toBe(`campaigns_${addDays(Y, -6)}_${Y}.csv`);
    expect(fs.existsSync(path.join(dir, path.basename(summary.file)))).toBe(true);
    const bad = await runCli(
      ['export', '--org', org, '--endpoint', 'campaigns', '--query', `dateRange=TODAY&startDate=${Y}`, '--db', db],
      {},
      { cwd: dir },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('dateRange');
  }, 300_000);
});
