import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../helpers/http.js';
import {
  startReportingFixture,
  type GeneratedOrg,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/*
 * Issue 36 item 14: sorting by money over rows in several currencies ranked MXN, PLN and EUR
 * amounts as plain numbers, silently. Without currency=, such a sort now carries
 * `mixed_currency_sort` naming the sort keys and the currencies. Expected currencies come from
 * the rows the service returns (every page) or from SQL over the organization's entities.
 */
let fx: ReportingFixture;
/** An organization whose campaigns are in several currencies, and one whose are in one. */
let mixed: GeneratedOrg;
let single: GeneratedOrg;

const sortWarningOf = (res: HttpResponse) =>
  ((res.json.warnings ?? []) as Array<Record<string, unknown>>).find((w) => w.code === 'mixed_currency_sort');

/** The distinct currencies of every row of a report (all pages: limit 10000 holds them in this world). */
async function rowCurrencies(path: string, token: string, query: QueryInput): Promise<string[]> {
  const res = await fx.report(path, token, { ...query, limit: 10_000 });
  expect(res.status).toBe(200);
  expect(Number(res.headers['x-totalcount'])).toBeLessThanOrEqual(10_000);
  const rows = res.json[path === 'accounts' ? 'accounts' : 'campaigns'] as Array<{ currency: string }>;
  return [...new Set(rows.map((r) => r.currency))].sort();
}

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'scale2-45d' });
  const perOrg = await fx.sql<{ id: number; n: number }>(
    `SELECT c.organization_id::INTEGER AS id, count(DISTINCT p.currency)::INTEGER AS n
       FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id GROUP BY ALL ORDER BY 1`,
  );
  mixed = fx.orgs.find((o) => perOrg.some((p) => p.id === o.id && p.n > 1))!;
  single = fx.orgs.find((o) => perOrg.some((p) => p.id === o.id && p.n === 1))!;
  expect(mixed).toBeDefined();
  expect(single).toBeDefined();
}, 300_000);
afterAll(() => fx.close());

describe('mixed_currency_sort', () => {
  it('a money sort over rows in several currencies says so, naming the keys and the currencies', async () => {
    const query = { statistics: 'clicks,cost', sort: '-statistics.cost' };
    const res = await fx.report('campaigns', mixed.token, query);
    expect(res.status).toBe(200);
    const expected = await rowCurrencies('campaigns', mixed.token, query);
    expect(expected.length).toBeGreaterThan(1);
    expect(sortWarningOf(res)).toMatchObject({ sortKeys: ['statistics.cost'], currencies: expected });
    expect(sortWarningOf(res)!.message).toContain(expected.join(', '));
    expect(sortWarningOf(res)!.message).toContain('currency=');
  });

  it('with totals (the explorer asks them) the currencies are those the totals summed', async () => {
    const query = { statistics: 'clicks,cost', sort: '-statistics.averageCpc', totals: 'true', segments: 'Week' };
    const res = await fx.report('campaigns', mixed.token, { ...query, totals: 'segments' });
    expect(res.status).toBe(200);
    const expected = await rowCurrencies('campaigns', mixed.token, query);
    expect(sortWarningOf(res)).toMatchObject({ sortKeys: ['statistics.averageCpc'], currencies: expected });
    // The totals' own warning still says why their money is null.
    expect(res.json.warnings.map((w: { code: string }) => w.code)).toContain('mixed_currencies');
  });

  it('accounts in several currencies too', async () => {
    const query = { statistics: 'cost', sort: 'statistics.cost' };
    const expected = await rowCurrencies('accounts', mixed.token, query);
    const res = await fx.report('accounts', mixed.token, query);
    expect(expected.length).toBeGreaterThan(1);
    expect(sortWarningOf(res)).toMatchObject({ sortKeys: ['statistics.cost'], currencies: expected });
  });

  it('nothing to say: currency=, a sort not in a currency, one currency in scope', async () => {
    const converted = await fx.report('campaigns', mixed.token, { sort: '-statistics.cost', currency: 'EUR' });
    expect(converted.status).toBe(200);
    expect(sortWarningOf(converted)).toBeUndefined();
    for (const sort of ['-statistics.clicks', '-statistics.roas', '-statistics.ctr', 'name'])
      expect(sortWarningOf(await fx.report('campaigns', mixed.token, { sort })), sort).toBeUndefined();
    const [one] = await rowCurrencies('campaigns', mixed.token, {});
    const filter = `currency == '${one}'`;
    expect(await rowCurrencies('campaigns', mixed.token, { filter })).toEqual([one]);
    const narrowed = await fx.report('campaigns', mixed.token, { filter, sort: '-statistics.cost' });
    expect(sortWarningOf(narrowed)).toBeUndefined();
    const res = await fx.report('campaigns', single.token, { sort: '-statistics.cost' });
    expect(res.status).toBe(200);
    expect(sortWarningOf(res)).toBeUndefined();
  });

  it('a formula in a currency and a compared amount count; a change does not', async () => {
    const formula = await fx.report('campaigns', mixed.token, {
      formulas: 'cpa:statistics.cost / statistics.conversions:Money',
      sort: '-formulas.cpa',
    });
    expect(sortWarningOf(formula)).toMatchObject({ sortKeys: ['formulas.cpa'] });
    const change = await fx.report('campaigns', mixed.token, {
      compare: 'PREVIOUS_PERIOD',
      sort: '-change.statistics.cost',
    });
    expect(change.status).toBe(200);
    expect(sortWarningOf(change)).toBeUndefined();
  });

  it('a write that adds a currency is seen at once (the scope currencies are kept per data version)', async () => {
    const query = { statistics: 'cost', sort: '-statistics.cost', offset: '0', limit: '10' };
    const before = await rowCurrencies('accounts', single.token, { statistics: 'cost' });
    expect(before.length).toBe(1);
    const added = before[0] === 'PLN' ? 'EUR' : 'PLN';
    // Two pages of one report: the second reads the kept currencies.
    expect(sortWarningOf(await fx.report('accounts', single.token, query))).toBeUndefined();
    expect(sortWarningOf(await fx.report('accounts', single.token, { ...query, limit: '20' }))).toBeUndefined();
    const created = await fx.json('POST', '/provisioning/v0/accounts', single.token, {
      account: { name: 'Another currency', languageCode: 'de', countryCode: 'DE', currency: added },
    });
    expect(created.status, created.text).toBe(201);
    const after = await fx.report('accounts', single.token, query);
    const expected = await rowCurrencies('accounts', single.token, { statistics: 'cost' });
    expect(expected).toEqual([...before, added].sort());
    expect(sortWarningOf(after)).toMatchObject({ sortKeys: ['statistics.cost'], currencies: expected });
  });

  it('exports say it in Adreport-Warnings', async () => {
    const expected = await rowCurrencies('campaigns', mixed.token, {});
    const res = await fx.report('campaigns', mixed.token, { sort: '-statistics.cost', format: 'csv' });
    expect(res.status).toBe(200);
    expect(String(res.headers['adreport-warnings']).split(', ')).toContain(
      `mixed_currency_sort;currencies="${expected.join(' ')}"`,
    );
  });
});
