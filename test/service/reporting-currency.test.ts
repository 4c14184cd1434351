import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFxRates } from '../../src/reference/fx-import.js';
import {
  addDays,
  approx,
  fetchAll,
  type QueryInput,
  startReportingFixture,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * Issue 19, items 2 and 3: `currency=<code>` converts every row's money per day into one
 * currency; totals over rows in several currencies have no money sums; money converted at rates
 * that are not published says so. Every expected number is plain SQL over the fact tables and
 * fx_rates here, and which rates are published comes from data/fx/series.csv read by this test.
 *
 * The world: the generator's organization 1 has an EUR account (one EUR GOOGLE_ADS platform
 * account) and a CHF account (a CHF GOOGLE_ADS and a FACEBOOK platform account); the FACEBOOK one
 * is switched to GBP here, so lower levels hold EUR, CHF and GBP rows and the CHF account
 * converts GBP days. Organization 2 is NOK only.
 */

let fx: ReportingFixture;
let Y: string;
const world = { facebookAccount: 0, chfAccount: 0 };

// Every answer the same with rollups on (the default) and off (ADREPORT_ROLLUPS=false): one generated file, a copy each.
describe.each([true, false])('ADREPORT_ROLLUPS=%s', (rollups) => {
  beforeAll(async () => {
    fx = await startReportingFixture({ world: 'scale2-45d', service: { rollups } });
    Y = fx.yesterday;
    const org = fx.orgs[0]!;
    const [facebook] = await fx.sql<{ id: number; account_id: number }>(
      `SELECT p.id, l.account_id FROM adplatform_accounts p JOIN account_adplatform_links l ON l.adplatform_account_id = p.id
      WHERE p.organization_id = $1 AND p.ad_platform_type = 'FACEBOOK' ORDER BY p.id LIMIT 1`,
      [org.id],
    );
    if (!facebook) throw new Error('the generated organization has no FACEBOOK platform account');
    world.facebookAccount = Number(facebook.id);
    world.chfAccount = Number(facebook.account_id);
    await fx.write("UPDATE adplatform_accounts SET currency = 'GBP' WHERE id = $1", [world.facebookAccount]);
    const markup = await fx.json('POST', `/provisioning/v0/accounts/id/${world.chfAccount}/markups`, org.token, {
      markup: { rate: 0.2, startDate: addDays(Y, -20), endDate: addDays(Y, -5) },
    });
    if (markup.status !== 201) throw new Error(`POST markup: ${markup.status} ${markup.text}`);
    const currencies = await fx.sql<{ currency: string }>(
      'SELECT DISTINCT currency FROM adplatform_accounts WHERE organization_id = $1 ORDER BY 1',
      [org.id],
    );
    if (currencies.map((c) => c.currency).join() !== 'CHF,EUR,GBP')
      throw new Error(`organization 1's platform accounts are in ${currencies.map((c) => c.currency).join()}`);
  });
  afterAll(async () => {
    await fx?.close();
  });

  // ---------------------------------------------------------------------------------------------
  // The oracle: per-day conversion sum(money * rate_target / rate_source) over the facts and fx_rates.

  interface Sums {
    impressions: number;
    clicks: number;
    conversions: number;
    cost: number;
    conversionValue: number;
    costWithMarkup: number;
    reach?: number;
  }
  type Grouping = 'campaign' | 'adGroupDay' | 'account' | 'accountLabel';

  const KEY_SQL: Record<Grouping, string> = {
    campaign: 'f.campaign_id::VARCHAR',
    adGroupDay: "f.ad_group_id::VARCHAR || ' ' || strftime(f.day, '%Y-%m-%d')",
    account: 'l.account_id::VARCHAR',
    accountLabel: "l.account_id::VARCHAR || ' ' || cl.value",
  };

  /**
   * Sums per key over [from, to] with money converted per day into `target`; for lower levels from
   * the platform account's currency, for accounts from each linked platform account's currency
   * (target: the account's own currency when not given). Markups: the account's, below accounts
   * the lowest-id linked account's.
   */
  async function oracle(
    grouping: Grouping,
    organizationId: number,
    from: string,
    to: string,
    target: string | undefined,
  ): Promise<Map<string, Sums>> {
    const accounts = grouping === 'account' || grouping === 'accountLabel';
    const factor = 'rt.units_per_eur::DOUBLE / rs.units_per_eur::DOUBLE';
    const rows = await fx.sql<Sums & { key: string }>(
      `SELECT ${KEY_SQL[grouping]} AS key,
            sum(f.impressions)::DOUBLE AS impressions, sum(f.clicks)::DOUBLE AS clicks, sum(f.conversions::DOUBLE) AS conversions,
            sum(f.cost::DOUBLE * ${factor}) AS cost, sum(f.conversion_value::DOUBLE * ${factor}) AS "conversionValue",
            sum(f.cost::DOUBLE * ${factor} * (1 + coalesce(mk.rate, 0)::DOUBLE)) AS "costWithMarkup"
       FROM fact_ad_daily f
       JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
       ${
         accounts
           ? 'JOIN account_adplatform_links l ON l.adplatform_account_id = f.adplatform_account_id JOIN accounts a ON a.id = l.account_id'
           : 'LEFT JOIN (SELECT adplatform_account_id, min(account_id) AS account_id FROM account_adplatform_links GROUP BY 1) l ON l.adplatform_account_id = f.adplatform_account_id'
       }
       ${grouping === 'accountLabel' ? "JOIN campaign_labels cl ON cl.campaign_id = f.campaign_id AND cl.name = 'team'" : ''}
       JOIN fx_rates rs ON rs.day = f.day AND rs.currency = p.currency
       JOIN fx_rates rt ON rt.day = f.day AND rt.currency = ${target === undefined ? 'a.currency' : '$4'}
       LEFT JOIN markups mk ON mk.account_id = l.account_id AND f.day BETWEEN mk.start_date AND coalesce(mk.end_date, DATE '9999-12-31')
      WHERE f.organization_id = $1 AND f.day BETWEEN $2::DATE AND $3::DATE
      GROUP BY 1`,
      target === undefined ? [organizationId, from, to] : [organizationId, from, to, target],
    );
    return new Map(rows.map((r) => [r.key, r]));
  }

  const ZERO: Sums = { impressions: 0, clicks: 0, conversions: 0, cost: 0, conversionValue: 0, costWithMarkup: 0 };
  const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
  function expectedStatistic(name: string, s: Sums): number | null {
    switch (name) {
      case 'averageCpc':
        return ratio(s.cost, s.clicks);
      case 'averageCpm':
        return ratio(1000 * s.cost, s.impressions);
      case 'costPerConversion':
        return ratio(s.cost, s.conversions);
      case 'valuePerConversion':
        return ratio(s.conversionValue, s.conversions);
      case 'roas':
        return ratio(s.conversionValue, s.cost);
      case 'ctr':
        return ratio(s.clicks, s.impressions);
      default:
        return s[name as keyof Sums] ?? null;
    }
  }

  const MONEY_STATISTICS = [
    'cost',
    'conversionValue',
    'costWithMarkup',
    'averageCpc',
    'averageCpm',
    'costPerConversion',
    'valuePerConversion',
    'roas',
  ];
  const STATISTICS = ['impressions', 'clicks', 'conversions', 'ctr', ...MONEY_STATISTICS];

  /** Differences between API rows and the oracle (first 20). */
  function differences(
    rows: any[],
    expected: Map<string, Sums>,
    keyOf: (row: any) => string,
    statistics: readonly string[],
    currency: string,
  ): string[] {
    const problems: string[] = [];
    for (const row of rows) {
      const key = keyOf(row);
      const sums = expected.get(key) ?? ZERO;
      if (row.currency !== currency) problems.push(`${key}: currency ${row.currency}, expected ${currency}`);
      for (const name of statistics) {
        const want = expectedStatistic(name, sums);
        const got = row.statistics[name];
        if (!approx(got, want, 1e-9, 2e-6)) problems.push(`${key}: statistics.${name} = ${got}, expected ${want}`);
      }
      if (problems.length > 20) break;
    }
    return problems;
  }

  const org = (i: number) => fx.orgs[i]!;
  const range = () => ({ from: addDays(Y, -29), to: Y });

  // ---------------------------------------------------------------------------------------------
  // Which rates are published: data/fx/series.csv, and what this file imports.

  const publishedThrough = new Map(
    fs
      .readFileSync('data/fx/series.csv', 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',') as [string, string, string])
      .map(([code, , through]) => [code, through]),
  );
  const imported = new Map<string, Set<string>>();
  const isPublished = (currency: string, day: string) =>
    day <= publishedThrough.get(currency)! || (imported.get(currency)?.has(day) ?? false);

  /**
   * The estimated_fx_rates warning a request must carry: over the (platform account currency, day)
   * pairs with activity in [from, to] (of the platform accounts given), the conversions into
   * `targetOf(platform account)` between two currencies at a rate that is not published.
   */
  async function expectedEstimates(
    organizationId: number,
    from: string,
    to: string,
    conversions: Array<{ platformAccount: number; target: string }>,
  ) {
    const active = await fx.sql<{ pa: number; day: string; currency: string }>(
      `SELECT DISTINCT f.adplatform_account_id AS pa, strftime(f.day, '%Y-%m-%d') AS day, p.currency FROM fact_ad_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
      WHERE f.organization_id = $1 AND f.day BETWEEN $2::DATE AND $3::DATE`,
      [organizationId, from, to],
    );
    let first: string | undefined;
    let last: string | undefined;
    const currencies = new Set<string>();
    for (const { pa, day, currency } of active) {
      for (const { target } of conversions.filter((c) => c.platformAccount === Number(pa))) {
        if (currency === target) continue;
        const unpublished = [currency, target].filter((c) => !isPublished(c, day));
        if (unpublished.length === 0) continue;
        unpublished.forEach((c) => currencies.add(c));
        if (first === undefined || day < first) first = day;
        if (last === undefined || day > last) last = day;
      }
    }
    return first === undefined
      ? undefined
      : { code: 'estimated_fx_rates', firstDay: first, lastDay: last, currencies: [...currencies].sort() };
  }

  /** Every platform account of the organization converted into `target`, or into the currency of each account it is linked to. */
  async function conversionsOf(
    organizationId: number,
    target: string | undefined,
    platformAccounts?: readonly number[],
  ) {
    const links = await fx.sql<{ pa: number; currency: string }>(
      `SELECT p.id AS pa, ${target === undefined ? 'a.currency' : '$2::VARCHAR'} AS currency FROM adplatform_accounts p
       ${target === undefined ? 'JOIN account_adplatform_links l ON l.adplatform_account_id = p.id JOIN accounts a ON a.id = l.account_id' : ''}
      WHERE p.organization_id = $1`,
      target === undefined ? [organizationId] : [organizationId, target],
    );
    return links
      .filter((l) => platformAccounts === undefined || platformAccounts.includes(Number(l.pa)))
      .map((l) => ({ platformAccount: Number(l.pa), target: l.currency }));
  }

  const estimatedWarning = (body: any) => (body.warnings ?? []).find((w: any) => w.code === 'estimated_fx_rates');
  const withoutMessage = (warning: any) =>
    warning === undefined
      ? undefined
      : { code: warning.code, firstDay: warning.firstDay, lastDay: warning.lastDay, currencies: warning.currencies };

  // ---------------------------------------------------------------------------------------------

  describe('currency=<code>: every money figure converted per day into it (plain SQL oracle)', () => {
    it('/campaigns?currency=USD: every row in USD, money and money ratios from the converted daily sums; counts unchanged', async () => {
      for (const [i, target] of [
        [0, 'USD'],
        [1, 'JPY'],
      ] as const) {
        const { from, to } = range();
        const { rows } = await fetchAll(
          fx,
          'campaigns',
          org(i).token,
          { currency: target, statistics: STATISTICS.join(',') },
          'campaigns',
        );
        expect(rows.length).toBeGreaterThan(5);
        const expected = await oracle('campaign', org(i).id, from, to, target);
        expect(differences(rows, expected, (r) => String(r.id), STATISTICS, target)).toEqual([]);
        // The conversion did something: converted cost differs from the platform currency's.
        const plain = await fetchAll(fx, 'campaigns', org(i).token, { statistics: 'cost' }, 'campaigns');
        const moved = rows.filter(
          (row) =>
            row.statistics.cost > 0 && row.statistics.cost !== plain.rows.find((p) => p.id === row.id).statistics.cost,
        );
        expect(moved.length).toBeGreaterThan(0);
      }
    });

    it("/accounts?currency=GBP: each linked platform account's days straight into GBP, with the account's markups", async () => {
      const { from, to } = range();
      const { rows } = await fetchAll(
        fx,
        'accounts',
        org(0).token,
        { currency: 'GBP', statistics: STATISTICS.join(',') },
        'accounts',
      );
      expect(rows.length).toBeGreaterThanOrEqual(2);
      expect(
        differences(rows, await oracle('account', org(0).id, from, to, 'GBP'), (r) => String(r.id), STATISTICS, 'GBP'),
      ).toEqual([]);
      // Without currency, each account stays in its own currency (the oracle converts into a.currency).
      const own = await fetchAll(fx, 'accounts', org(0).token, { statistics: STATISTICS.join(',') }, 'accounts');
      const expectedOwn = await oracle('account', org(0).id, from, to, undefined);
      for (const row of own.rows) {
        const [account] = await fx.sql<{ currency: string }>('SELECT currency FROM accounts WHERE id = $1', [row.id]);
        expect(differences([row], expectedOwn, (r) => String(r.id), STATISTICS, account!.currency)).toEqual([]);
      }
    });

    it("/adgroups with segments=Day and costWithMarkup in CHF: each bucket from that day's rates", async () => {
      const from = addDays(Y, -13);
      const statistics = ['impressions', 'clicks', 'cost', 'costWithMarkup', 'conversionValue', 'averageCpc', 'roas'];
      const { rows } = await fetchAll(
        fx,
        'adgroups',
        org(0).token,
        { currency: 'CHF', segments: 'Day', startDate: from, endDate: Y, statistics: statistics.join(',') },
        'adGroups',
      );
      expect(rows.length).toBeGreaterThan(100);
      const expected = await oracle('adGroupDay', org(0).id, from, Y, 'CHF');
      expect(rows.length).toBe(expected.size);
      expect(differences(rows, expected, (r) => `${r.id} ${r.segments.day}`, statistics, 'CHF')).toEqual([]);
      // The markup period (days -20..-5 of the CHF account) shows on the GBP (FACEBOOK) ad groups.
      expect(
        rows.some(
          (r) => r.adPlatformAccountId === world.facebookAccount && r.statistics.costWithMarkup > r.statistics.cost,
        ),
      ).toBe(true);
    });

    it('/campaigns/facebook?currency=EUR: money converted from GBP, reach and frequency as without currency', async () => {
      const { from, to } = range();
      const statistics = ['impressions', 'cost', 'conversionValue', 'averageCpm'];
      const converted = await fetchAll(
        fx,
        'campaigns/facebook',
        org(0).token,
        { currency: 'EUR', statistics: [...statistics, 'reach', 'frequency'].join(',') },
        'campaigns',
      );
      const plain = await fetchAll(
        fx,
        'campaigns/facebook',
        org(0).token,
        { statistics: 'reach,frequency,cost' },
        'campaigns',
      );
      expect(converted.rows.length).toBeGreaterThan(0);
      expect(converted.rows.map((r) => [r.id, r.statistics.reach, r.statistics.frequency])).toEqual(
        plain.rows.map((r) => [r.id, r.statistics.reach, r.statistics.frequency]),
      );
      expect(plain.rows.every((r) => r.currency === 'GBP')).toBe(true);
      expect(
        differences(
          converted.rows,
          await oracle('campaign', org(0).id, from, to, 'EUR'),
          (r) => String(r.id),
          statistics,
          'EUR',
        ),
      ).toEqual([]);
    });

    it('/accounts/campaign-labels/name/team?currency=JPY: per (account, label value), in JPY', async () => {
      const { from, to } = range();
      const statistics = ['clicks', 'cost', 'conversionValue', 'costPerConversion'];
      const res = await fx.get(
        `/reporting/v0/accounts/campaign-labels/name/team?currency=JPY&statistics=${statistics.join(',')}&limit=1000`,
        org(0).token,
      );
      expect(res.status, res.text).toBe(200);
      expect(res.json.accounts.length).toBeGreaterThan(1);
      expect(
        differences(
          res.json.accounts,
          await oracle('accountLabel', org(0).id, from, to, 'JPY'),
          (r) => `${r.id} ${r.campaignLabel.value}`,
          statistics,
          'JPY',
        ),
      ).toEqual([]);
    });

    it('formulas of type Money, filters and sorts read the converted money', async () => {
      const { from, to } = range();
      const expected = await oracle('campaign', org(0).id, from, to, 'USD');
      const costs = [...expected.values()].map((s) => s.cost).sort((a, b) => a - b);
      // A literal the filter can read (at most 15 significant digits) between two costs.
      const threshold =
        Math.round(((costs[Math.floor(costs.length / 2)]! + costs[Math.floor(costs.length / 2) - 1]!) / 2) * 1000) /
        1000;
      const query: QueryInput = {
        currency: 'USD',
        statistics: 'cost,clicks',
        formulas: [
          'spend:statistics.cost + statistics.conversionValue:Money',
          'cpc:statistics.cost / statistics.clicks:Money',
          'doubled:statistics.cost * 2:Decimal',
        ],
        filter: `statistics.cost > ${threshold}`,
        sort: '-formulas.spend',
      };
      const { rows } = await fetchAll(fx, 'campaigns', org(0).token, query, 'campaigns');
      const wanted = [...expected.entries()].filter(([, s]) => s.cost > threshold);
      expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(
        wanted.map(([id]) => Number(id)).sort((a, b) => a - b),
      );
      for (const row of rows) {
        const s = expected.get(String(row.id))!;
        expect(approx(row.formulas.spend, s.cost + s.conversionValue, 1e-9, 2e-6), `spend of ${row.id}`).toBe(true);
        expect(approx(row.formulas.cpc, ratio(s.cost, s.clicks), 1e-9, 2e-6), `cpc of ${row.id}`).toBe(true);
        expect(approx(row.formulas.doubled, 2 * s.cost, 1e-9, 2e-6), `doubled of ${row.id}`).toBe(true);
      }
      const spends = rows.map((r) => r.formulas.spend);
      expect(spends).toEqual([...spends].sort((a, b) => b - a));
    });

    it("a currency a row already has leaves its money as it was; filter on currency means the row's own currency", async () => {
      const plain = await fetchAll(
        fx,
        'campaigns',
        org(0).token,
        { statistics: 'cost,conversionValue', filter: "currency == 'EUR'" },
        'campaigns',
      );
      const same = await fetchAll(
        fx,
        'campaigns',
        org(0).token,
        { statistics: 'cost,conversionValue', filter: "currency == 'EUR'", currency: 'EUR', totals: true },
        'campaigns',
      );
      expect(plain.rows.length).toBeGreaterThan(0);
      expect(same.rows).toEqual(plain.rows);
      // Converting into the currency of every row converts nothing: no warning.
      const res = await fx.report('campaigns', org(0).token, {
        statistics: 'cost',
        filter: "currency == 'EUR'",
        currency: 'EUR',
        totals: true,
      });
      expect(res.json.warnings).toBeUndefined();
      // The same filter with another target keeps the EUR rows and shows them in that target.
      const gbp = await fetchAll(
        fx,
        'campaigns',
        org(0).token,
        { statistics: 'cost', filter: "currency == 'EUR'", currency: 'GBP' },
        'campaigns',
      );
      expect(gbp.rows.map((r) => r.id)).toEqual(plain.rows.map((r) => r.id));
      expect(gbp.rows.every((r) => r.currency === 'GBP')).toBe(true);
    });
  });

  describe('totals and currencies', () => {
    it('with currency: the sums of the converted money over the filtered result, totals.currency the asked one', async () => {
      for (const [path, grouping] of [
        ['campaigns', 'campaign'],
        ['accounts', 'account'],
      ] as const) {
        const { from, to } = range();
        const res = await fx.report(path, org(0).token, {
          currency: 'SEK',
          totals: true,
          statistics: STATISTICS.join(','),
          limit: 2,
        });
        expect(res.status, res.text).toBe(200);
        const sums = { ...ZERO };
        for (const s of (await oracle(grouping, org(0).id, from, to, 'SEK')).values())
          for (const k of Object.keys(ZERO) as Array<keyof Sums>) sums[k]! += s[k]!;
        expect(res.json.totals.currency).toBe('SEK');
        for (const name of STATISTICS)
          expect(
            approx(res.json.totals[name], expectedStatistic(name, sums), 1e-9, 2e-6),
            `${path} totals.${name} = ${res.json.totals[name]}, expected ${expectedStatistic(name, sums)}`,
          ).toBe(true);
      }
    });

    it('without currency over rows in several currencies: money totals and ratios over money null, currency null, a mixed_currencies warning; counts stay', async () => {
      const { from, to } = range();
      for (const [path, grouping, currencies] of [
        ['campaigns', 'campaign', ['CHF', 'EUR', 'GBP']],
        ['accounts', 'account', ['CHF', 'EUR']],
        ['adgroups', 'campaign', ['CHF', 'EUR', 'GBP']],
      ] as const) {
        const res = await fx.report(path, org(0).token, { totals: true, statistics: STATISTICS.join(',') });
        expect(res.status, res.text).toBe(200);
        // The currencies of the rows, from the entities' own tables.
        const found = await fx.sql<{ currency: string }>(
          path === 'accounts'
            ? 'SELECT DISTINCT currency FROM accounts WHERE organization_id = $1 ORDER BY 1'
            : 'SELECT DISTINCT p.currency FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE g.organization_id = $1 ORDER BY 1',
          [org(0).id],
        );
        expect(found.map((c) => c.currency)).toEqual(currencies);
        const sums = { ...ZERO };
        for (const s of (await oracle(grouping, org(0).id, from, to, path === 'accounts' ? undefined : 'EUR')).values())
          for (const k of Object.keys(ZERO) as Array<keyof Sums>) sums[k]! += s[k]!;
        expect(res.json.totals.currency, path).toBeNull();
        for (const name of MONEY_STATISTICS) expect(res.json.totals[name], `${path} totals.${name}`).toBeNull();
        for (const name of ['impressions', 'clicks', 'conversions', 'ctr'])
          expect(
            approx(res.json.totals[name], expectedStatistic(name, sums), 1e-9, 2e-6),
            `${path} totals.${name}`,
          ).toBe(true);
        const mixed = res.json.warnings.filter((w: any) => w.code === 'mixed_currencies');
        expect(mixed).toEqual([
          { code: 'mixed_currencies', message: expect.stringContaining(currencies.join(', ')), currencies },
        ]);
      }
    });

    it('without currency over rows in one currency (one organization, or a filter): totals.currency is it and money is summed; no warnings', async () => {
      const { from, to } = range();
      const nok = await fx.report('campaigns', org(1).token, { totals: true, statistics: 'clicks,cost,roas' });
      expect(nok.status).toBe(200);
      const sums = { ...ZERO };
      for (const s of (await oracle('campaign', org(1).id, from, to, 'NOK')).values())
        for (const k of Object.keys(ZERO) as Array<keyof Sums>) sums[k]! += s[k]!;
      expect(nok.json.totals).toEqual({
        currency: 'NOK',
        clicks: sums.clicks,
        cost: expect.any(Number),
        roas: expect.any(Number),
      });
      expect(approx(nok.json.totals.cost, sums.cost, 1e-9, 2e-6)).toBe(true);
      expect(approx(nok.json.totals.roas, ratio(sums.conversionValue, sums.cost), 1e-9, 1e-9)).toBe(true);
      expect(nok.json.warnings).toBeUndefined();
      const chf = await fx.report('campaigns', org(0).token, {
        totals: true,
        statistics: 'cost',
        filter: "currency == 'CHF'",
      });
      expect(chf.json.totals.currency).toBe('CHF');
      expect(chf.json.totals.cost).toBeGreaterThan(0);
      expect((chf.json.warnings ?? []).filter((w: any) => w.code === 'mixed_currencies')).toEqual([]);
      // No rows: no currency, zero sums, nothing mixed.
      const none = await fx.report('campaigns', org(0).token, {
        totals: true,
        statistics: 'cost,averageCpc',
        filter: 'id < 0',
      });
      expect(none.json.totals).toEqual({ currency: null, cost: 0, averageCpc: null });
      expect(none.json.warnings).toBeUndefined();
    });
  });

  describe('exports with currency', () => {
    it('CSV and NDJSON carry the converted rows of the JSON form, and the estimated-rate warning in Adreport-Warnings', async () => {
      const query = { currency: 'USD', statistics: 'clicks,cost,conversionValue,roas', segments: 'Week' };
      const json = await fetchAll(fx, 'campaigns', org(0).token, query, 'campaigns');
      const csv = await fx.report('campaigns', org(0).token, { ...query, format: 'csv' });
      expect(csv.status).toBe(200);
      const records = parse(csv.text, { columns: true }) as Array<Record<string, string>>;
      expect(records.length).toBe(json.rows.length);
      records.forEach((record, i) => {
        const row = json.rows[i];
        expect(record.currency).toBe('USD');
        expect([
          Number(record.id),
          record['segments.week'],
          Number(record['statistics.cost']),
          Number(record['statistics.conversionValue']),
        ]).toEqual([row.id, row.segments.week, row.statistics.cost, row.statistics.conversionValue]);
      });
      const ndjson = await fx.report('campaigns', org(0).token, { ...query, format: 'ndjson' });
      expect(
        ndjson.text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ).toEqual(json.rows);
      // The header says what the JSON form's warning says, for the same rows.
      const page = await fx.report('campaigns', org(0).token, { ...query, limit: 10_000 });
      const warning = estimatedWarning(page.json);
      expect(warning).toBeDefined();
      const header = `estimated_fx_rates;first="${warning.firstDay}";last="${warning.lastDay}";currencies="${warning.currencies.join(' ')}"`;
      expect(csv.headers['adreport-warnings']).toBe(header);
      expect(ndjson.headers['adreport-warnings']).toBe(header);
      // Nothing converted, nothing said.
      const plain = await fx.report('campaigns', org(0).token, { statistics: 'clicks,cost', format: 'csv' });
      expect(plain.headers['adreport-warnings']).toBeUndefined();
    });

    it('a sort on a formula with numbers in it, a filter, paging: the export and its warning header come from the same rows', async () => {
      const query: QueryInput = {
        currency: 'GBP',
        statistics: 'cost',
        formulas: 'x:statistics.cost * 2 + 1:Money',
        sort: '-formulas.x',
        filter: 'statistics.clicks >= 0 && formulas.x > 0.5',
      };
      for (const paging of [{}, { limit: 3, offset: 3 }]) {
        const csv = await fx.report('campaigns', org(0).token, { ...query, ...paging, format: 'csv' });
        expect(csv.status, csv.text).toBe(200);
        const json = await fx.report('campaigns', org(0).token, {
          ...query,
          limit: 'limit' in paging ? 3 : 10_000,
          offset: 'offset' in paging ? 3 : 0,
        });
        const records = parse(csv.text, { columns: true }) as Array<Record<string, string>>;
        expect(records.map((r) => Number(r.id))).toEqual(json.json.campaigns.map((r: any) => r.id));
        const warning = estimatedWarning(json.json);
        expect(warning).toBeDefined();
        expect(csv.headers['adreport-warnings']).toBe(
          `estimated_fx_rates;first="${warning.firstDay}";last="${warning.lastDay}";currencies="${warning.currencies.join(' ')}"`,
        );
      }
    });
  });

  describe('bad currency', () => {
    it('is a 400 invalid_parameter naming currency and the supported codes, on every statistics endpoint and export', async () => {
      const cases: Array<[string, string]> = [
        ['campaigns', 'XYZ'],
        ['campaigns', 'usd'],
        ['accounts', 'NGN'],
        ['adgroups', ''],
        ['campaigns/facebook', 'EURO'],
        ['adplatform-accounts/google-ads', 'US D'],
        ['accounts/campaign-labels/name/team', 'BTC'],
      ];
      for (const [path, code] of cases) {
        for (const format of [undefined, 'csv']) {
          const res = await fx.get(
            `/reporting/v0/${path}?currency=${encodeURIComponent(code)}${format ? `&format=${format}` : ''}`,
            org(0).token,
          );
          expect(res.status, `${path} ${code} ${format}`).toBe(400);
          expect(res.json.error.code).toBe('invalid_parameter');
          expect(res.json.error.details[0].field).toBe('currency');
          expect(res.json.error.message).toContain('supported: AED, ALL');
          expect(res.json.error.message).toContain('USD');
        }
      }
      const twice = await fx.get('/reporting/v0/campaigns?currency=USD&currency=EUR', org(0).token);
      expect(twice.status).toBe(400);
      expect(twice.json.error.details[0].field).toBe('currency');
    });
  });

  describe('estimated FX rates', () => {
    it("a response says which converted days used rates that are not published: exactly the active days, the rates' currencies", async () => {
      const org0 = org(0).id;
      const { from, to } = range();
      // Lower levels into USD: every platform account converted.
      const campaigns = await fx.report('campaigns', org(0).token, {
        currency: 'USD',
        statistics: 'cost',
        limit: 10_000,
      });
      const expected = await expectedEstimates(org0, from, to, await conversionsOf(org0, 'USD'));
      expect(expected).toBeDefined();
      expect(withoutMessage(estimatedWarning(campaigns.json))).toEqual(expected);
      expect(estimatedWarning(campaigns.json).message).toContain(expected!.firstDay);
      // Accounts in their own currency: only the GBP platform account of the CHF account converts.
      const accounts = await fx.report('accounts', org(0).token, { statistics: 'cost' });
      const accountsExpected = await expectedEstimates(org0, from, to, await conversionsOf(org0, undefined));
      expect(accountsExpected?.currencies).toEqual(['CHF', 'GBP']);
      expect(withoutMessage(estimatedWarning(accounts.json))).toEqual(accountsExpected);
      // A range before the first generated day: rates there are estimated too, but nothing was converted.
      const before = await fx.report('campaigns', org(0).token, {
        currency: 'USD',
        statistics: 'cost',
        startDate: addDays(Y, -120),
        endDate: addDays(Y, -60),
      });
      expect(before.status).toBe(200);
      expect(before.json.warnings).toBeUndefined();
      // No money asked for: nothing converted.
      const counts = await fx.report('campaigns', org(0).token, {
        currency: 'USD',
        statistics: 'impressions,clicks,ctr',
      });
      expect(counts.json.warnings).toBeUndefined();
      // Organization 2 is NOK only: its accounts convert nothing.
      expect((await fx.report('accounts', org(1).token, { statistics: 'cost' })).json.warnings).toBeUndefined();
    });

    it('after published rates are imported for some days, the warning covers the other converted days only, and none when all are published', async () => {
      const org0 = org(0).id;
      const importedTo = addDays(Y, -10);
      const lines = ['date,currency,unitsPerEur'];
      for (let day = addDays(Y, -60); day <= importedTo; day = addDays(day, 1)) {
        for (const [currency, rate] of [
          ['USD', '1.1021'],
          ['GBP', '0.8612'],
          ['CHF', '0.9433'],
        ] as const) {
          lines.push(`${day},${currency},${rate}`);
          if (!imported.has(currency)) imported.set(currency, new Set());
          imported.get(currency)!.add(day);
        }
      }
      // What the admin channel runs inside a serving server (adreport fx import through the bin: fx-import.test.ts).
      const result = await importFxRates(fx.service.db, `${lines.join('\n')}\n`);
      expect(result).toMatchObject({
        rates: 3 * 51,
        currencies: ['CHF', 'GBP', 'USD'],
        from: addDays(Y, -60),
        to: importedTo,
        carriedForward: 0,
      });

      const { from, to } = range();
      const after = await fx.report('campaigns', org(0).token, { currency: 'USD', statistics: 'cost', limit: 10_000 });
      const expected = await expectedEstimates(org0, from, to, await conversionsOf(org0, 'USD'));
      expect(expected!.firstDay > importedTo).toBe(true);
      expect(withoutMessage(estimatedWarning(after.json))).toEqual(expected);
      // Converted only on published days: no warning, and the money is converted at the imported rates.
      const published = await fx.report('campaigns', org(0).token, {
        currency: 'USD',
        statistics: 'cost',
        startDate: from,
        endDate: importedTo,
        totals: true,
      });
      expect(published.json.warnings).toBeUndefined();
      const sums = [...(await oracle('campaign', org0, from, importedTo, 'USD')).values()].reduce(
        (n, s) => n + s.cost,
        0,
      );
      expect(approx(published.json.totals.cost, sums, 1e-9, 2e-6)).toBe(true);
      // Exports alike: the header only where an unpublished rate was used.
      const publishedExport = await fx.report('campaigns', org(0).token, {
        currency: 'USD',
        statistics: 'cost',
        startDate: from,
        endDate: importedTo,
        format: 'csv',
      });
      expect(publishedExport.status).toBe(200);
      expect(publishedExport.headers['adreport-warnings']).toBeUndefined();
      const laterExport = await fx.report('campaigns', org(0).token, {
        currency: 'USD',
        statistics: 'cost',
        format: 'ndjson',
      });
      expect(laterExport.headers['adreport-warnings']).toBe(
        `estimated_fx_rates;first="${expected!.firstDay}";last="${expected!.lastDay}";currencies="${expected!.currencies.join(' ')}"`,
      );
      const [rate] = await fx.sql<{ rate: number; published: boolean }>(
        "SELECT units_per_eur::DOUBLE AS rate, published FROM fx_rates WHERE currency = 'USD' AND day = $1::DATE",
        [importedTo],
      );
      expect(rate).toEqual({ rate: 1.1021, published: true });
      // Accounts: the GBP days of the CHF account are published now up to the imported day.
      const accounts = await fx.report('accounts', org(0).token, {
        statistics: 'cost',
        startDate: from,
        endDate: importedTo,
      });
      expect(accounts.json.warnings).toBeUndefined();
      const later = await fx.report('accounts', org(0).token, { statistics: 'cost' });
      expect(withoutMessage(estimatedWarning(later.json))).toEqual(
        await expectedEstimates(org0, from, to, await conversionsOf(org0, undefined)),
      );
    });
  });
});
