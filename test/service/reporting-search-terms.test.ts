import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_TERM_RETENTION_DAYS } from '../../src/catalog/fact-sources.js';
import { SEARCH_TERM_SLOTS, SEARCH_TERM_TEMPLATES } from '../../src/catalog/search-terms.js';
import { hoursFrom } from '../../src/statistics/breakdowns.js';
import { rewriteRollups } from '../../src/statistics/rollups.js';
import { poll } from '../helpers/poll.js';
import {
  addDays,
  approx,
  fetchAll,
  startReportingFixture,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * GET /reporting/v0/search-terms (issue 40 item 5) through HTTP on generated data: the terms of
 * each keyword (derived from its text, ../../src/catalog/search-terms.ts) and their figures
 * (fact_search_term_daily, an exact split of the keyword facts). Checked against plain SQL and
 * against /reporting/v0/keywords: a keyword's terms sum exactly to its row (every additive
 * statistic, money to the micro), over the search platforms only; filter, sort and the
 * `searchTerm` parameter; daily segments; the 400s for a breakdown the source lacks and for a
 * range before the retention; CSV and a report job; a rewrite of a scope never doubles.
 */

let fx: ReportingFixture;
let Y: string;
let TODAY: string;
let token: string;
let orgId: number;

/** The additive statistics of the keyword facts, as micros (money and decimals) or counts. */
const ADDITIVE = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversionValue',
  'calls',
  'callConversions',
  'callConversionsFractional',
  'totalConversions',
] as const;
const INTEGERS = new Set(['impressions', 'clicks', 'calls', 'callConversions']);
const STATISTICS = [...ADDITIVE, 'ctr', 'averageCpc', 'conversionRate', 'roas'].join(',');
const SEARCH_PLATFORMS = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'];
/** The fact columns of the measures, as fact_keyword_daily and fact_search_term_daily name them. */
const MEASURE_COLUMNS = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversion_value',
  'calls',
  'call_conversions',
  'call_conversions_fractional',
];

/** A statistic as an exact integer: counts as they are, money and decimals in micros. */
const exact = (name: string, value: number) => (INTEGERS.has(name) ? value : Math.round(value * 1e6));
const termText = (keywordText: string, slot: number) =>
  `${SEARCH_TERM_TEMPLATES[slot]!.prefix}${keywordText}${SEARCH_TERM_TEMPLATES[slot]!.suffix}`;
/** Byte order of UTF-8, as DuckDB sorts VARCHAR. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

async function all(path: string, plural: string, query: QueryInput, as = token): Promise<any[]> {
  return (await fetchAll(fx, path, as, query, plural)).rows;
}

async function expect400(query: QueryInput, field: string, code: string): Promise<string> {
  const res = await fx.report('search-terms', token, query);
  expect(res.status, `${JSON.stringify(query)}: ${res.text.slice(0, 400)}`).toBe(400);
  expect(res.json.error.details, res.text.slice(0, 400)).toContainEqual(expect.objectContaining({ field, code }));
  return res.json.error.message as string;
}

/** Row count and exact sums of fact_search_term_daily: equal means unchanged. */
async function fingerprint(): Promise<unknown> {
  return fx.sql(
    `SELECT organization_id, count(*)::INTEGER AS n, min(day)::VARCHAR AS first, max(day)::VARCHAR AS last,
            ${MEASURE_COLUMNS.map((m) => `sum(${m})::VARCHAR AS ${m}`).join(', ')}
       FROM fact_search_term_daily GROUP BY organization_id ORDER BY organization_id`,
  );
}

/** Keyword cells (day, keyword, device, network) whose terms do not sum exactly to the keyword's facts, both ways. */
async function splitMismatches(from: string): Promise<{ missing: number; extra: number; cells: number }> {
  const cell = 'organization_id, day, adplatform_account_id, campaign_id, ad_group_id, keyword_id, device, network';
  const sums = MEASURE_COLUMNS.map((m) => `sum(${m})::DECIMAL(38,6) AS ${m}`).join(', ');
  const keywords = `SELECT ${cell}, ${sums} FROM fact_keyword_daily WHERE day >= $1::DATE GROUP BY ALL
                    HAVING ${MEASURE_COLUMNS.map((m) => `sum(${m}) <> 0`).join(' OR ')}`;
  const terms = `SELECT ${cell}, ${sums} FROM fact_search_term_daily GROUP BY ALL`;
  const [row] = await fx.sql<{ missing: number; extra: number; cells: number }>(
    `SELECT (SELECT count(*) FROM ((${keywords}) EXCEPT ALL (${terms})))::INTEGER AS missing,
            (SELECT count(*) FROM ((${terms}) EXCEPT ALL (${keywords})))::INTEGER AS extra,
            (SELECT count(*) FROM (${terms}))::INTEGER AS cells`,
    [from],
  );
  return row!;
}

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'scale2-45d' });
  Y = fx.yesterday;
  TODAY = addDays(Y, 1);
  token = fx.orgs[0]!.token;
  orgId = fx.orgs[0]!.id;
}, 300_000);
afterAll(async () => {
  await fx?.close();
});

describe('/reporting/v0/search-terms', () => {
  it("fact_search_term_daily is an exact split of the keyword facts: every keyword cell's terms sum to it, ids from the keyword", async () => {
    const counts = await fx.sql<{ terms: number; keywords: number; zero: number; ids: number; facebook: number }>(
      `SELECT (SELECT count(*) FROM fact_search_term_daily)::INTEGER AS terms,
              (SELECT count(*) FROM fact_keyword_daily)::INTEGER AS keywords,
              (SELECT count(*) FROM fact_search_term_daily WHERE ${MEASURE_COLUMNS.map((m) => `${m} = 0`).join(' AND ')})::INTEGER AS zero,
              (SELECT count(*) FROM fact_search_term_daily
                WHERE search_term_id // ${SEARCH_TERM_SLOTS} <> keyword_id
                   OR search_term_id % ${SEARCH_TERM_SLOTS} > keyword_id % ${SEARCH_TERM_SLOTS})::INTEGER AS ids,
              (SELECT count(*) FROM fact_search_term_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
                WHERE p.ad_platform_type NOT IN ('GOOGLE_ADS', 'MICROSOFT_ADVERTISING'))::INTEGER AS facebook`,
    );
    const c = counts[0]!;
    console.log(`search term rows ${c.terms} from ${c.keywords} keyword rows (${(c.terms / c.keywords).toFixed(2)}x)`);
    expect(c.terms).toBeGreaterThan(c.keywords);
    expect({ zero: c.zero, ids: c.ids, facebook: c.facebook }).toEqual({ zero: 0, ids: 0, facebook: 0 });
    // The world's 30 days are all within the retention: every keyword cell is split.
    const mismatches = await splitMismatches(addDays(TODAY, -SEARCH_TERM_RETENTION_DAYS));
    expect(mismatches.cells).toBeGreaterThan(1000);
    expect({ missing: mismatches.missing, extra: mismatches.extra }).toEqual({ missing: 0, extra: 0 });
  });

  it("without parameters: every term of every search-platform keyword, and each keyword's terms sum exactly to its /keywords row", async () => {
    let facebookAccounts = 0;
    const platforms = new Set<string>();
    for (const [index, org] of fx.orgs.entries()) {
      const query = { statistics: STATISTICS };
      const [terms, keywords] = await Promise.all([
        all('search-terms', 'searchTerms', query, org.token),
        all('keywords', 'keywords', query, org.token),
      ]);
      const expectedTerms = await fx.sql<{ n: number; facebookAccounts: number }>(
        `SELECT (SELECT sum(1 + k.id % ${SEARCH_TERM_SLOTS}) FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id
                   JOIN campaigns c ON c.id = g.campaign_id
                  WHERE k.organization_id = $1 AND c.ad_platform_type IN ('GOOGLE_ADS', 'MICROSOFT_ADVERTISING'))::INTEGER AS n,
                (SELECT count(*) FROM adplatform_accounts WHERE organization_id = $1 AND ad_platform_type = 'FACEBOOK')::INTEGER AS "facebookAccounts"`,
        [org.id],
      );
      expect(terms.length, `org ${index}`).toBe(expectedTerms[0]!.n);
      facebookAccounts += expectedTerms[0]!.facebookAccounts;
      for (const term of terms) platforms.add(term.adPlatformAccountType);

      const keywordById = new Map(keywords.map((k) => [k.id as number, k]));
      const sums = new Map<number, Record<string, number>>();
      const ids = new Set<number>();
      for (const term of terms) {
        expect(ids.has(term.id), `duplicate id ${term.id}`).toBe(false);
        ids.add(term.id);
        const keyword = keywordById.get(term.keywordId);
        expect(keyword, `keyword ${term.keywordId}`).toBeDefined();
        const slot = term.id % SEARCH_TERM_SLOTS;
        expect(Math.floor(term.id / SEARCH_TERM_SLOTS)).toBe(term.keywordId);
        expect(slot).toBeLessThanOrEqual(term.keywordId % SEARCH_TERM_SLOTS);
        expect(term).toMatchObject({
          searchTerm: termText(keyword.text, slot),
          keywordText: keyword.text,
          matchType: keyword.matchType,
          adGroupId: keyword.adGroupId,
          campaignId: keyword.campaignId,
          adPlatformAccountId: keyword.adPlatformAccountId,
          adPlatformAccountType: keyword.adPlatformAccountType,
          currency: keyword.currency,
        });
        const ctr = term.statistics.impressions === 0 ? null : term.statistics.clicks / term.statistics.impressions;
        expect(approx(term.statistics.ctr, ctr, 1e-9, 1e-12), `ctr of ${term.id}`).toBe(true);
        const s = sums.get(term.keywordId) ?? Object.fromEntries(ADDITIVE.map((a) => [a, 0]));
        for (const name of ADDITIVE) s[name]! += exact(name, term.statistics[name]);
        sums.set(term.keywordId, s);
      }
      // Every keyword has its terms (keywords exist on the search platforms only).
      expect([...sums.keys()].sort((a, b) => a - b)).toEqual(keywords.map((k) => k.id).sort((a, b) => a - b));
      const problems: string[] = [];
      let active = 0;
      for (const keyword of keywords) {
        if (keyword.statistics.impressions > 0) active++;
        for (const name of ADDITIVE) {
          const want = exact(name, keyword.statistics[name]);
          const got = sums.get(keyword.id)![name];
          if (got !== want) problems.push(`keyword ${keyword.id} ${name}: terms ${got}, keyword ${want}`);
        }
      }
      expect(problems.slice(0, 20)).toEqual([]);
      expect(active).toBeGreaterThan(50);
    }
    // The organizations have FACEBOOK accounts, yet no row is one of theirs; both search platforms have rows.
    expect(facebookAccounts).toBeGreaterThan(0);
    expect([...platforms].sort()).toEqual(SEARCH_PLATFORMS);
  });

  it('costWithMarkup and a currency conversion: the terms sum to the keyword within the rounding of each row', async () => {
    // A markup on every account of the organization from 5 days ago (the world has none).
    const accounts = await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1', [orgId]);
    for (const { id } of accounts) {
      const res = await fx.json('POST', `/provisioning/v0/accounts/id/${id}/markups`, token, {
        markup: { rate: 0.15, startDate: addDays(Y, -5), endDate: null },
      });
      expect(res.status, res.text).toBe(201);
    }
    const query = { statistics: 'cost,costWithMarkup', currency: 'EUR', startDate: addDays(Y, -13), endDate: Y };
    const [terms, keywords] = await Promise.all([
      all('search-terms', 'searchTerms', query),
      all('keywords', 'keywords', query),
    ]);
    const sums = new Map<number, { cost: number; costWithMarkup: number; n: number }>();
    for (const term of terms) {
      expect(term.currency).toBe('EUR');
      const s = sums.get(term.keywordId) ?? { cost: 0, costWithMarkup: 0, n: 0 };
      s.cost += term.statistics.cost;
      s.costWithMarkup += term.statistics.costWithMarkup;
      s.n++;
      sums.set(term.keywordId, s);
    }
    const problems: string[] = [];
    for (const keyword of keywords) {
      const s = sums.get(keyword.id)!;
      for (const name of ['cost', 'costWithMarkup'] as const)
        if (!approx(s[name], keyword.statistics[name], 1e-9, s.n * 14 * 1e-6))
          problems.push(`keyword ${keyword.id} ${name}: terms ${s[name]}, keyword ${keyword.statistics[name]}`);
    }
    expect(problems.slice(0, 20)).toEqual([]);
    expect(keywords.some((k) => k.statistics.costWithMarkup > k.statistics.cost)).toBe(true);
  });

  it('no FACEBOOK rows, whatever is asked; adPlatformType filters take the aliases', async () => {
    const [withFacebook, withMicrosoft] = fx.orgs;
    const facebook = await fx.report('search-terms', withFacebook!.token, { filter: "adPlatformType == 'FACEBOOK'" });
    expect(facebook.status, facebook.text.slice(0, 300)).toBe(200);
    expect(facebook.json.searchTerms).toEqual([]);
    expect(facebook.headers['x-totalcount']).toBe('0');
    const bing = await all(
      'search-terms',
      'searchTerms',
      { filter: "adPlatformType == 'BING_ADS'", statistics: 'clicks' },
      withMicrosoft!.token,
    );
    const microsoft = await all(
      'search-terms',
      'searchTerms',
      { filter: "adPlatformAccountType == 'MICROSOFT_ADVERTISING'", statistics: 'clicks' },
      withMicrosoft!.token,
    );
    expect(bing.length).toBeGreaterThan(0);
    expect(bing).toEqual(microsoft);
  });

  it('filter and sort on searchTerm, the searchTerm parameter, filters on the keyword', async () => {
    const query = { statistics: 'impressions,clicks', startDate: addDays(Y, -6), endDate: Y };
    const every = await all('search-terms', 'searchTerms', query);
    const inStock = await all('search-terms', 'searchTerms', {
      ...query,
      filter: "endsWith(searchTerm, ' in stock') && statistics.clicks > 0",
      sort: '-searchTerm,id',
    });
    const expected = every
      .filter((t) => t.searchTerm.endsWith(' in stock') && t.statistics.clicks > 0)
      .sort((a, b) => byBytes(b.searchTerm, a.searchTerm) || a.id - b.id);
    expect(expected.length).toBeGreaterThan(10);
    expect(inStock).toEqual(expected);

    // sort=searchTerm pages: byte order of the text, ties by id.
    const page1 = await fx.report('search-terms', token, { ...query, sort: 'searchTerm', limit: 50 });
    const page2 = await fx.report('search-terms', token, { ...query, sort: 'searchTerm', limit: 50, offset: 50 });
    const sorted = [...every].sort((a, b) => byBytes(a.searchTerm, b.searchTerm) || a.id - b.id);
    expect([...page1.json.searchTerms, ...page2.json.searchTerms]).toEqual(sorted.slice(0, 100));
    expect(Number(page1.headers['x-totalcount'])).toBe(every.length);

    // searchTerm= (exact, * any run): the prefix template, and one term exactly.
    const topRated = await all('search-terms', 'searchTerms', { ...query, searchTerm: 'top rated *' });
    expect(topRated).toEqual(every.filter((t) => t.searchTerm.startsWith('top rated ')));
    expect(topRated.length).toBeGreaterThan(0);
    const one = every.find((t) => t.id % SEARCH_TERM_SLOTS === 3)!;
    const exactly = await all('search-terms', 'searchTerms', { ...query, searchTerm: one.searchTerm });
    expect(exactly.map((t) => t.id)).toContain(one.id);
    expect(exactly.every((t) => t.searchTerm === one.searchTerm)).toBe(true);

    // The keyword's fields: its id, text and match type.
    const ofKeyword = await all('search-terms', 'searchTerms', {
      ...query,
      filter: `keywordId == ${one.keywordId}`,
    });
    expect(ofKeyword.map((t) => t.id)).toEqual(
      Array.from({ length: (one.keywordId % SEARCH_TERM_SLOTS) + 1 }, (_, slot) => one.keywordId * 4 + slot),
    );
    const exact = await all('search-terms', 'searchTerms', {
      ...query,
      filter: "matchType == 'EXACT' && contains(keywordText, 'a')",
    });
    expect(exact).toEqual(every.filter((t) => t.matchType === 'EXACT' && t.keywordText.includes('a')));
  });

  it('segments=Day,DeviceType,NetworkType against plain SQL over fact_search_term_daily', async () => {
    const from = addDays(Y, -4);
    const rows = await all('search-terms', 'searchTerms', {
      startDate: from,
      endDate: Y,
      segments: 'Day,DeviceType,NetworkType',
      statistics: 'impressions,clicks,cost,conversions',
    });
    const oracle = await fx.sql<Record<string, any>>(
      `SELECT search_term_id AS id, strftime(day, '%Y-%m-%d') AS day, device::VARCHAR AS device, network::VARCHAR AS network,
              sum(impressions)::BIGINT AS impressions, sum(clicks)::BIGINT AS clicks,
              sum(cost)::VARCHAR AS cost, sum(conversions)::VARCHAR AS conversions
         FROM fact_search_term_daily WHERE organization_id = $1 AND day BETWEEN $2::DATE AND $3::DATE
        GROUP BY ALL HAVING sum(impressions) <> 0 OR sum(clicks) <> 0 OR sum(cost) <> 0 OR sum(conversions) <> 0
        ORDER BY id, day, device, network`,
      [orgId, from, Y],
    );
    const key = (r: { id: number; day: string; device: string; network: string }) =>
      `${Number(r.id)} ${r.day} ${r.device} ${r.network}`;
    const api = rows.map((r) => [
      key({ id: r.id, ...r.segments, device: r.segments.deviceType, network: r.segments.networkType }),
      r.statistics.impressions,
      r.statistics.clicks,
      Math.round(r.statistics.cost * 1e6),
      Math.round(r.statistics.conversions * 1e6),
    ]);
    const sql = oracle.map((r) => [
      key(r as any),
      Number(r.impressions),
      Number(r.clicks),
      Math.round(Number(r.cost) * 1e6),
      Math.round(Number(r.conversions) * 1e6),
    ]);
    expect(sql.length).toBeGreaterThan(1000);
    expect(api.sort()).toEqual(sql.sort());
  });

  it('a breakdown the search terms do not have: 400 segment_not_available naming what the endpoint offers', async () => {
    for (const segments of ['Hour', 'HourOfDay', 'Age', 'Country', 'ConversionAction', 'Day,Region']) {
      const message = await expect400({ segments }, 'segments', 'segment_not_available');
      expect(message).toContain('/reporting/v0/search-terms offers the segments Day, Week, Month, Year');
      expect(message).toContain('DeviceType');
    }
    await expect400({ filter: "segments.country == 'US'" }, 'filter', 'segment_not_available');
    const fields = await fx.get('/reporting/v0/fields', token);
    const endpoint = (fields.json.endpoints as any[]).find((e) => e.path === '/reporting/v0/search-terms');
    expect(endpoint.segments.map((s: { name: string }) => s.name)).toEqual([
      'Day',
      'Week',
      'Month',
      'Year',
      'DayOfWeek',
      'DeviceType',
      'Quarter',
      'NetworkType',
      'WeekSunday',
    ]);
    expect(endpoint.statistics.map((s: { name: string }) => s.name)).not.toContain('reach');
    expect(endpoint.statistics.map((s: { name: string }) => s.name)).not.toContain('searchImpressionShare');
  });

  it(`a range before the ${SEARCH_TERM_RETENTION_DAYS}-day retention: 400 outside_retention; the first kept day is answered`, async () => {
    const first = addDays(TODAY, -SEARCH_TERM_RETENTION_DAYS);
    const message = await expect400({ startDate: addDays(first, -1), endDate: Y }, 'startDate', 'outside_retention');
    expect(message).toContain(first);
    await expect400({ dateRange: 'LAST_YEAR' }, 'startDate', 'outside_retention');
    // LAST_90_DAYS starts on the first kept day.
    const last90 = await fx.report('search-terms', token, { dateRange: 'LAST_90_DAYS', limit: 5 });
    expect(last90.status, last90.text.slice(0, 300)).toBe(200);
    expect(last90.headers['x-start-date']).toBe(first);
    await expect400(
      { startDate: addDays(Y, -29), endDate: Y, compare: 'PREVIOUS_YEAR' },
      'compare',
      'outside_retention',
    );
    const ok = await fx.report('search-terms', token, { startDate: first, endDate: Y, limit: 5 });
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    expect(ok.headers['x-start-date']).toBe(first);
  });

  it('CSV: the rows of the JSON report, keyword fields and statistics as columns', async () => {
    const query = { startDate: addDays(Y, -6), endDate: Y, statistics: 'impressions,clicks,cost', sort: 'id' };
    const rows = await all('search-terms', 'searchTerms', query);
    const res = await fx.report('search-terms', token, { ...query, format: 'csv' });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain('search-terms');
    const records = parse(res.text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual([
      'id',
      'searchTerm',
      'adPlatformAccountId',
      'campaignId',
      'adGroupId',
      'keywordId',
      'keywordText',
      'adPlatformAccountType',
      'matchType',
      'currency',
      'statistics.impressions',
      'statistics.clicks',
      'statistics.cost',
    ]);
    expect(records.length).toBe(rows.length);
    for (const [i, record] of records.entries()) {
      const row = rows[i]!;
      expect(record.id).toBe(String(row.id));
      expect(record.searchTerm).toBe(row.searchTerm);
      expect(record.keywordText).toBe(row.keywordText);
      expect(Number(record['statistics.clicks'])).toBe(row.statistics.clicks);
      expect(Math.round(Number(record['statistics.cost']) * 1e6)).toBe(Math.round(row.statistics.cost * 1e6));
    }
  });

  it('a report job of search terms writes the rows of the GET (ndjson)', async () => {
    const query = { startDate: addDays(Y, -2), endDate: Y, segments: 'DeviceType', statistics: 'clicks,cost' };
    const created = await fx.json('POST', '/reporting/v0/report-jobs', token, {
      reportJob: { endpoint: 'search-terms', query, format: 'ndjson' },
    });
    expect(created.status, created.text.slice(0, 300)).toBe(202);
    const id = created.json.reportJob.id as number;
    const job = await poll(`report job ${id}`, async () => {
      const res = await fx.get(`/reporting/v0/report-jobs/id/${id}`, token);
      return ['QUEUED', 'RUNNING'].includes(res.json.reportJob.status) ? undefined : res.json.reportJob;
    });
    expect(job.status).toBe('SUCCEEDED');
    const file = await fx.get(`/reporting/v0/report-jobs/id/${id}/file`, token);
    expect(file.status).toBe(200);
    const lines = file.text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    const rows = await all('search-terms', 'searchTerms', query);
    expect(rows.length).toBeGreaterThan(0);
    expect(lines).toEqual(rows);
  });

  it('a rewrite of a scope (as a statistics sync does) leaves the same rows, twice; a later retention deletes the days before it', async () => {
    const before = await fingerprint();
    const [scope] = await fx.sql<{ pa: number; campaigns: string }>(
      `SELECT adplatform_account_id AS pa, string_agg(DISTINCT campaign_id::VARCHAR, ',') AS campaigns
         FROM fact_keyword_daily WHERE organization_id = $1 GROUP BY ALL ORDER BY count(*) DESC LIMIT 1`,
      [orgId],
    );
    const campaignIds = scope!.campaigns.split(',').map(Number).slice(0, 3);
    const now = new Date(`${TODAY}T12:00:00Z`);
    for (let i = 0; i < 2; i++)
      await fx.service.db.write('all-organizations', (tx) =>
        rewriteRollups(tx, {
          organizationId: orgId,
          adPlatformAccountId: Number(scope!.pa),
          campaignIds,
          from: addDays(Y, -9),
          to: Y,
          hoursFrom: hoursFrom(now),
        }),
      );
    expect(await fingerprint()).toEqual(before);
    expect(await splitMismatches(addDays(TODAY, -SEARCH_TERM_RETENTION_DAYS))).toMatchObject({ missing: 0, extra: 0 });

    // A write 80 days later keeps only the last 90 days before it: this organization's first 20 days go.
    const later = new Date(now.getTime() + 80 * 86_400_000);
    await fx.service.db.write('all-organizations', (tx) =>
      rewriteRollups(tx, { organizationId: orgId, from: Y, to: Y, hoursFrom: hoursFrom(later) }),
    );
    const kept = addDays(TODAY, 80 - SEARCH_TERM_RETENTION_DAYS);
    const [days] = await fx.sql<{ first: string; old: number; others: number }>(
      `SELECT min(day)::VARCHAR AS first, count(*) FILTER (WHERE day < $2::DATE)::INTEGER AS old,
              (SELECT count(*) FROM fact_search_term_daily WHERE organization_id <> $1 AND day < $2::DATE)::INTEGER AS others
         FROM fact_search_term_daily WHERE organization_id = $1`,
      [orgId, kept],
    );
    expect(days).toEqual({ first: kept, old: 0, others: expect.any(Number) });
    expect(days!.others).toBeGreaterThan(0);
    // Back as it was: the whole generated range rewritten with today's retention.
    const [generated] = await fx.sql<{ first: string }>('SELECT min(day)::VARCHAR AS first FROM fact_keyword_daily');
    await fx.service.db.write('all-organizations', (tx) =>
      rewriteRollups(tx, { organizationId: orgId, from: generated!.first, to: Y, hoursFrom: hoursFrom(now) }),
    );
    expect(await fingerprint()).toEqual(before);
  });
});
