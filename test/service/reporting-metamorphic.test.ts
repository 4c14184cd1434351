import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addDays,
  approx,
  fetchAll,
  startReportingFixture,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * Metamorphic relations of the reporting endpoints, which hold whatever the exact numbers are:
 * segments split a row without changing its sums, a level is the sum of the level below,
 * an account is the FX-converted sum of its platform accounts, p / !(p) / the null case
 * partition any result, and sorted paging returns every row once.
 */

let fx: ReportingFixture;
let Y: string;
const world = { usdAccount: 0, unlabelledAccount: 0 };

// Every answer the same with rollups on (the default) and off (ADREPORT_ROLLUPS=false): one generated file, a copy each.
describe.each([true, false])('ADREPORT_ROLLUPS=%s', (rollups) => {
  beforeAll(async () => {
    fx = await startReportingFixture({ world: 'scale2-45d', service: { rollups } });
    Y = fx.yesterday;
    const org = fx.orgs[0]!;
    // One account whose currency differs from its platform accounts', so the FX relation has work to do.
    const accounts = await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id', [
      org.id,
    ]);
    world.usdAccount = accounts[0]!.id;
    const patched = await fx.json(
      'PATCH',
      `/provisioning/v0/accounts/id/${world.usdAccount}`,
      org.token,
      { account: { currency: 'USD' } },
      'application/merge-patch+json',
    );
    if (patched.status !== 200) throw new Error(`PATCH currency: ${patched.status} ${patched.text}`);
    // A gold account (through the provisioning API) and one without any label: the null case of labels.tier.
    const gold = await fx.json(
      'PUT',
      `/provisioning/v0/accounts/id/${accounts[accounts.length - 1]!.id}/labels`,
      org.token,
      { labels: { tier: 'gold', region: 'EMEA' } },
    );
    if (gold.status !== 200) throw new Error(`PUT labels: ${gold.status} ${gold.text}`);
    const created = await fx.json('POST', '/provisioning/v0/accounts', org.token, {
      account: { name: 'No Labels Ltd', languageCode: 'en', countryCode: 'GB', currency: 'GBP' },
    });
    if (created.status !== 201) throw new Error(`POST account: ${created.status} ${created.text}`);
    world.unlabelledAccount = created.json.account.id;
  });
  afterAll(async () => {
    await fx?.close();
  });

  const ADDITIVE = [
    'impressions',
    'clicks',
    'cost',
    'costWithMarkup',
    'conversions',
    'conversionValue',
    'calls',
    'callConversions',
    'callConversionsFractional',
    'totalConversions',
  ];
  const RATIOS: Record<string, (s: Record<string, number>) => number | null> = {
    ctr: (s) => div(s.clicks!, s.impressions!),
    averageCpc: (s) => div(s.cost!, s.clicks!),
    averageCpm: (s) => div(1000 * s.cost!, s.impressions!),
    conversionRate: (s) => div(s.conversions!, s.clicks!),
    costPerConversion: (s) => div(s.cost!, s.conversions!),
    valuePerConversion: (s) => div(s.conversionValue!, s.conversions!),
    roas: (s) => div(s.conversionValue!, s.cost!),
  };
  const ALL = [...ADDITIVE, ...Object.keys(RATIOS)];
  const INTEGERS = new Set(['impressions', 'clicks', 'calls', 'callConversions']);
  function div(a: number, b: number): number | null {
    return b === 0 ? null : a / b;
  }

  /** Sums of the additive statistics of rows, per group key. */
  function sumBy(
    rows: any[],
    key: (row: any) => string | number,
  ): Map<string, { sums: Record<string, number>; n: number }> {
    const out = new Map<string, { sums: Record<string, number>; n: number }>();
    for (const row of rows) {
      const k = String(key(row));
      let group = out.get(k);
      if (!group) out.set(k, (group = { sums: Object.fromEntries(ADDITIVE.map((s) => [s, 0])), n: 0 }));
      group.n++;
      for (const s of ADDITIVE) group.sums[s]! += row.statistics[s];
    }
    return out;
  }

  /** Differences between whole rows and the sums of their parts (additive: sums; ratios: ratios of the sums). */
  function differences(
    whole: any[],
    parts: Map<string, { sums: Record<string, number>; n: number }>,
    label: string,
    key: (row: any) => string | number = (r) => r.id,
  ): string[] {
    const problems: string[] = [];
    for (const row of whole) {
      const part = parts.get(String(key(row)));
      const n = part?.n ?? 0;
      const sums = part?.sums ?? Object.fromEntries(ADDITIVE.map((s) => [s, 0]));
      for (const s of ADDITIVE) {
        if (!(s in row.statistics)) continue;
        // Each part is rounded to micros: n parts may drift by n half-micros.
        const ok = INTEGERS.has(s)
          ? row.statistics[s] === sums[s]
          : approx(row.statistics[s], sums[s]!, 1e-6, (n + 1) * 1e-6);
        if (!ok) problems.push(`${label} ${key(row)}: ${s} = ${row.statistics[s]}, sum of ${n} parts ${sums[s]}`);
      }
      for (const [s, f] of Object.entries(RATIOS)) {
        if (!(s in row.statistics)) continue;
        const expected = f(sums);
        if (!approx(row.statistics[s], expected, 1e-6, 1e-9))
          problems.push(`${label} ${key(row)}: ${s} = ${row.statistics[s]}, ratio of the parts' sums ${expected}`);
      }
      if (problems.length > 20) break;
    }
    return problems;
  }

  const rowKey = (r: any) => `${r.id}${r.segments ? ` ${JSON.stringify(r.segments)}` : ''}`;

  describe('segments split rows without changing their sums', () => {
    for (const [level, plural, days] of [
      ['accounts', 'accounts', 45],
      ['campaigns', 'campaigns', 45],
      ['adgroups', 'adGroups', 12],
    ] as const) {
      it(`/${level}: Day, Week, Month, Year, DayOfWeek and DeviceType rows add up to the unsegmented row of each entity`, async () => {
        for (const org of fx.orgs) {
          const query: QueryInput = { statistics: ALL.join(','), startDate: addDays(Y, -(days - 1)), endDate: Y };
          const whole = (await fetchAll(fx, level, org.token, query, plural)).rows;
          expect(whole.length).toBeGreaterThan(0);
          for (const segment of ['Day', 'Week', 'Month', 'Year', 'DayOfWeek', 'DeviceType']) {
            const parts = (await fetchAll(fx, level, org.token, { ...query, segments: segment }, plural)).rows;
            expect(parts.length, segment).toBeGreaterThan(0);
            for (const part of parts) expect(Object.keys(part.segments ?? {}), segment).toHaveLength(1);
            expect(
              differences(
                whole,
                sumBy(parts, (r) => r.id),
                `${segment} of ${level}`,
              ),
            ).toEqual([]);
          }
        }
      });
    }

    it('Week, Month, Year and DayOfWeek values are those of their days: Day rows regrouped by the value equal the segment rows', async () => {
      const org = fx.orgs[0]!;
      const query: QueryInput = { statistics: ALL.join(','), startDate: addDays(Y, -24), endDate: Y };
      const days = (await fetchAll(fx, 'campaigns', org.token, { ...query, segments: 'Day' }, 'campaigns')).rows;
      const NAMES = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];
      const derive: Record<string, (day: string) => string | number> = {
        week: (day) => addDays(day, -((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7)),
        month: (day) => day.slice(0, 7),
        year: (day) => Number(day.slice(0, 4)),
        dayOfWeek: (day) => NAMES[new Date(`${day}T00:00:00Z`).getUTCDay()]!,
      };
      for (const [segment, key] of [
        ['Week', 'week'],
        ['Month', 'month'],
        ['Year', 'year'],
        ['DayOfWeek', 'dayOfWeek'],
      ] as const) {
        const rows = (await fetchAll(fx, 'campaigns', org.token, { ...query, segments: segment }, 'campaigns')).rows;
        const keyOf = (r: any) => `${r.id}|${JSON.stringify(r.segments[key])}`;
        const parts = sumBy(days, (r) => `${r.id}|${JSON.stringify(derive[key]!(r.segments.day))}`);
        expect(rows.map(keyOf).sort(), `${segment} buckets`).toEqual([...parts.keys()].sort());
        expect(differences(rows, parts, segment, keyOf)).toEqual([]);
      }
    });

    it('segments.deviceType as a filter equals that DeviceType bucket; networkType == x and != x split every figure', async () => {
      const org = fx.orgs[0]!;
      const query: QueryInput = { statistics: ALL.join(','), startDate: addDays(Y, -13), endDate: Y };
      const byDevice = (await fetchAll(fx, 'campaigns', org.token, { ...query, segments: 'DeviceType' }, 'campaigns'))
        .rows;
      const mobile = (
        await fetchAll(fx, 'campaigns', org.token, { ...query, filter: "segments.deviceType == 'MOBILE'" }, 'campaigns')
      ).rows;
      expect(mobile.length).toBeGreaterThan(0);
      expect(
        differences(
          mobile,
          sumBy(
            byDevice.filter((r) => r.segments.deviceType === 'MOBILE'),
            (r) => r.id,
          ),
          'deviceType filter',
        ),
      ).toEqual([]);
      const whole = (await fetchAll(fx, 'campaigns', org.token, query, 'campaigns')).rows;
      const search = (
        await fetchAll(
          fx,
          'campaigns',
          org.token,
          { ...query, filter: "segments.networkType == 'SEARCH'" },
          'campaigns',
        )
      ).rows;
      const other = (
        await fetchAll(
          fx,
          'campaigns',
          org.token,
          { ...query, filter: "segments.networkType != 'SEARCH'" },
          'campaigns',
        )
      ).rows;
      expect(search.some((r) => r.statistics.impressions > 0) && other.some((r) => r.statistics.impressions > 0)).toBe(
        true,
      );
      expect(
        differences(
          whole,
          sumBy([...search, ...other], (r) => r.id),
          'networkType split',
        ),
      ).toEqual([]);
    });

    it('two segments at once (Week,DeviceType) add up to the Week rows', async () => {
      const org = fx.orgs[1]!;
      const query: QueryInput = { statistics: ALL.join(','), startDate: addDays(Y, -20), endDate: Y };
      const weeks = (await fetchAll(fx, 'campaigns', org.token, { ...query, segments: 'Week' }, 'campaigns')).rows;
      const both = (await fetchAll(fx, 'campaigns', org.token, { ...query, segments: 'Week,DeviceType' }, 'campaigns'))
        .rows;
      for (const row of both) expect(Object.keys(row.segments).sort()).toEqual(['deviceType', 'week']);
      expect(
        differences(
          weeks,
          sumBy(both, (r) => `${r.id}|${r.segments.week}`),
          'Week+DeviceType',
          (r) => `${r.id}|${r.segments.week}`,
        ),
      ).toEqual([]);
    });
  });

  describe('levels add up', () => {
    it('a campaign is the sum of its ads and of its ad groups; an ad group the sum of its ads; a platform account the sum of its campaigns', async () => {
      for (const org of fx.orgs) {
        const query: QueryInput = { statistics: ALL.join(',') };
        const campaigns = (await fetchAll(fx, 'campaigns', org.token, query, 'campaigns')).rows;
        const adGroups = (await fetchAll(fx, 'adgroups', org.token, query, 'adGroups')).rows;
        const ads = (await fetchAll(fx, 'ads', org.token, query, 'ads')).rows;
        const platformAccounts = (await fetchAll(fx, 'adplatform-accounts', org.token, query, 'adPlatformAccounts'))
          .rows;
        expect(campaigns.length).toBeGreaterThan(0);
        expect(
          differences(
            campaigns,
            sumBy(ads, (r) => r.campaignId),
            'campaign vs its ads',
          ),
        ).toEqual([]);
        expect(
          differences(
            campaigns,
            sumBy(adGroups, (r) => r.campaignId),
            'campaign vs its ad groups',
          ),
        ).toEqual([]);
        expect(
          differences(
            adGroups,
            sumBy(ads, (r) => r.adGroupId),
            'ad group vs its ads',
          ),
        ).toEqual([]);
        expect(
          differences(
            platformAccounts,
            sumBy(campaigns, (r) => r.adPlatformAccountId),
            'platform account vs its campaigns',
          ),
        ).toEqual([]);
        // Parents are in the same currency as their children below the account level.
        const currencyOf = new Map(campaigns.map((c) => [c.id, c.currency]));
        for (const ad of ads) expect(ad.currency).toBe(currencyOf.get(ad.campaignId));
      }
    });

    it('the same holds per Day bucket: a campaign-day is the sum of its ad-days', async () => {
      const org = fx.orgs[0]!;
      const query: QueryInput = { statistics: ALL.join(','), segments: 'Day', startDate: addDays(Y, -4), endDate: Y };
      const campaigns = (await fetchAll(fx, 'campaigns', org.token, query, 'campaigns')).rows;
      const ads = (await fetchAll(fx, 'ads', org.token, query, 'ads')).rows;
      expect(
        differences(
          campaigns,
          sumBy(ads, (r) => `${r.campaignId}|${r.segments.day}`),
          'campaign-day vs ad-days',
          (r) => `${r.id}|${r.segments.day}`,
        ),
      ).toEqual([]);
    });

    it('an account is the sum of its linked platform accounts, money converted per day into the account currency', async () => {
      for (const org of fx.orgs) {
        const statistics = 'impressions,clicks,cost,conversionValue,costWithMarkup,conversions,calls';
        const range = { startDate: addDays(Y, -29), endDate: Y };
        const accounts = (await fetchAll(fx, 'accounts', org.token, { ...range, statistics }, 'accounts')).rows;
        const paDays = (
          await fetchAll(
            fx,
            'adplatform-accounts',
            org.token,
            { ...range, statistics, segments: 'Day' },
            'adPlatformAccounts',
          )
        ).rows;
        const links = await fx.sql<{ account_id: number; adplatform_account_id: number }>(
          'SELECT l.account_id, l.adplatform_account_id FROM account_adplatform_links l JOIN accounts a ON a.id = l.account_id WHERE a.organization_id = $1',
          [org.id],
        );
        const rates = await fx.sql<{ day: string; currency: string; rate: number }>(
          "SELECT strftime(day, '%Y-%m-%d') AS day, currency, units_per_eur::DOUBLE AS rate FROM fx_rates WHERE day BETWEEN $1::DATE AND $2::DATE",
          [range.startDate, range.endDate],
        );
        const rate = new Map(rates.map((r) => [`${r.day}|${r.currency}`, r.rate]));
        const problems: string[] = [];
        let converted = 0;
        for (const account of accounts) {
          const mine = new Set(links.filter((l) => l.account_id === account.id).map((l) => l.adplatform_account_id));
          const sums: Record<string, number> = {
            impressions: 0,
            clicks: 0,
            cost: 0,
            conversionValue: 0,
            costWithMarkup: 0,
            conversions: 0,
            calls: 0,
          };
          let n = 0;
          for (const row of paDays.filter((r) => mine.has(r.id))) {
            const factor =
              rate.get(`${row.segments.day}|${account.currency}`)! / rate.get(`${row.segments.day}|${row.currency}`)!;
            if (row.currency !== account.currency) converted++;
            n++;
            for (const s of Object.keys(sums))
              sums[s]! += ['cost', 'conversionValue', 'costWithMarkup'].includes(s)
                ? row.statistics[s] * factor
                : row.statistics[s];
          }
          for (const s of Object.keys(sums)) {
            const ok = INTEGERS.has(s)
              ? account.statistics[s] === sums[s]
              : approx(account.statistics[s], sums[s]!, 1e-6, (n + 1) * 1e-6);
            if (!ok)
              problems.push(
                `account ${account.id} (${account.currency}): ${s} = ${account.statistics[s]}, converted sum of its platform accounts ${sums[s]}`,
              );
          }
        }
        expect(problems).toEqual([]);
        if (org === fx.orgs[0]) expect(converted, 'rows converted between currencies').toBeGreaterThan(0);
      }
    });
  });

  /** Keys of the rows of a filtered report. */
  async function keysOf(level: string, plural: string, token: string, query: QueryInput): Promise<string[]> {
    const { rows, total } = await fetchAll(fx, level, token, query, plural);
    expect(total).toBe(rows.length);
    return rows.map(rowKey);
  }

  async function expectPartition(
    level: string,
    plural: string,
    token: string,
    base: QueryInput,
    p: string,
    nullCase: string,
    expectNonEmpty: { p: boolean; notP: boolean; nullCase: boolean },
  ) {
    const all = await keysOf(level, plural, token, base);
    const yes = await keysOf(level, plural, token, { ...base, filter: p });
    const no = await keysOf(level, plural, token, { ...base, filter: `!(${p})` });
    const none = await keysOf(level, plural, token, { ...base, filter: nullCase });
    const seen = new Map<string, string[]>();
    for (const [name, keys] of [
      ['p', yes],
      ['!(p)', no],
      ['null', none],
    ] as const) {
      for (const k of keys) seen.set(k, [...(seen.get(k) ?? []), name]);
    }
    const twice = [...seen]
      .filter(([, names]) => names.length > 1)
      .map(([k, names]) => `${k} in ${names.join(' and ')}`);
    const missing = all.filter((k) => !seen.has(k));
    const foreign = [...seen.keys()].filter((k) => !all.includes(k));
    expect(
      { twice: twice.slice(0, 5), missing: missing.slice(0, 5), foreign: foreign.slice(0, 5) },
      `partition of ${level} by ${p}`,
    ).toEqual({ twice: [], missing: [], foreign: [] });
    if (expectNonEmpty.p) expect(yes.length, `rows with ${p}`).toBeGreaterThan(0);
    if (expectNonEmpty.notP) expect(no.length, `rows with !(${p})`).toBeGreaterThan(0);
    if (expectNonEmpty.nullCase) expect(none.length, `rows with ${nullCase}`).toBeGreaterThan(0);
    return { all, yes, no, none };
  }

  describe('a filter, its negation and the null case partition the rows', () => {
    it('statistics.ctr > 0.02 on campaigns, ad groups by DeviceType and keywords', async () => {
      await expectPartition(
        'campaigns',
        'campaigns',
        fx.orgs[0]!.token,
        {},
        'statistics.ctr > 0.02',
        'statistics.ctr == null',
        { p: true, notP: true, nullCase: true },
      );
      await expectPartition(
        'adgroups',
        'adGroups',
        fx.orgs[0]!.token,
        { segments: 'DeviceType', startDate: addDays(Y, -6), endDate: Y },
        'statistics.ctr > 0.02',
        'statistics.ctr == null',
        {
          p: true,
          notP: true,
          nullCase: false,
        },
      );
      await expectPartition(
        'keywords',
        'keywords',
        fx.orgs[0]!.token,
        {},
        'statistics.ctr > 0.02',
        'statistics.ctr == null',
        { p: true, notP: true, nullCase: true },
      );
    });

    it('the rows of p really satisfy it, and filtering does not change a row', async () => {
      const token = fx.orgs[1]!.token;
      const all = (await fetchAll(fx, 'campaigns', token, {}, 'campaigns')).rows;
      const byId = new Map(all.map((r) => [r.id, r]));
      const yes = (await fetchAll(fx, 'campaigns', token, { filter: 'statistics.ctr > 0.02' }, 'campaigns')).rows;
      for (const row of yes) {
        expect(row.statistics.ctr).toBeGreaterThan(0.02);
        expect(row).toEqual(byId.get(row.id));
      }
      expect(yes.map((r) => r.id)).toEqual(
        all.filter((r) => r.statistics.ctr !== null && r.statistics.ctr > 0.02).map((r) => r.id),
      );
    });

    it("labels.tier == 'gold' on accounts (null case: accounts without the label)", async () => {
      const token = fx.orgs[0]!.token;
      const { none, yes } = await expectPartition(
        'accounts',
        'accounts',
        token,
        { embed: 'labels' },
        "labels.tier == 'gold'",
        'labels.tier == null',
        { p: true, notP: true, nullCase: true },
      );
      expect(none).toContain(String(world.unlabelledAccount));
      const tiers = await fx.sql<{ account_id: number }>(
        "SELECT account_id FROM account_labels WHERE name = 'tier' AND value = 'gold' ORDER BY 1",
      );
      const orgAccounts = new Set(
        (await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1', [fx.orgs[0]!.id])).map(
          (r) => r.id,
        ),
      );
      expect(yes).toEqual(tiers.filter((t) => orgAccounts.has(t.account_id)).map((t) => String(t.account_id)));
    });

    it("a mixed p: name == '<a campaign>' || statistics.clicks > 100, unsegmented and by Day", async () => {
      const token = fx.orgs[0]!.token;
      const all = (await fetchAll(fx, 'campaigns', token, {}, 'campaigns')).rows;
      const quiet = all.find((r) => r.statistics.clicks <= 100 && !r.name.includes("'") && !r.name.includes('\\'));
      expect(quiet, 'a campaign with at most 100 clicks').toBeDefined();
      const p = `name == '${quiet.name}' || statistics.clicks > 100`;
      const { yes } = await expectPartition(
        'campaigns',
        'campaigns',
        token,
        {},
        p,
        'statistics.clicks == null || name == null',
        { p: true, notP: true, nullCase: false },
      );
      expect(yes).toContain(String(quiet.id));
      const expected = all.filter((r) => r.name === quiet.name || r.statistics.clicks > 100).map((r) => String(r.id));
      expect(yes).toEqual(expected);
      const pDay = `name == '${quiet.name}' || statistics.clicks > 10`;
      await expectPartition(
        'campaigns',
        'campaigns',
        token,
        { segments: 'Day', startDate: addDays(Y, -6), endDate: Y },
        pDay,
        'statistics.clicks == null',
        { p: true, notP: true, nullCase: false },
      );
    });
  });

  describe('sorted paging', () => {
    async function pageThrough(level: string, plural: string, token: string, query: QueryInput, limit: number) {
      const rows: any[] = [];
      const totals = new Set<number>();
      for (let offset = 0; offset < 100_000; offset += limit) {
        const res = await fx.report(level, token, { ...query, limit, offset });
        expect(res.status, res.text.slice(0, 300)).toBe(200);
        totals.add(Number(res.headers['x-totalcount']));
        const page = res.json[plural] as any[];
        expect(page.length).toBeLessThanOrEqual(limit);
        rows.push(...page);
        if (page.length < limit) break;
      }
      return { rows, totals };
    }

    it('-statistics.cost with limit 7: every row exactly once, X-TotalCount = rows, cost non-increasing, ties by id', async () => {
      for (const org of fx.orgs) {
        const { rows, totals } = await pageThrough(
          'campaigns',
          'campaigns',
          org.token,
          { sort: '-statistics.cost' },
          7,
        );
        const everything = (await fetchAll(fx, 'campaigns', org.token, {}, 'campaigns')).rows;
        expect([...totals]).toEqual([everything.length]);
        expect(rows.length).toBe(everything.length);
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
        expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(everything.map((r) => r.id).sort((a, b) => a - b));
        const out: string[] = [];
        for (let i = 1; i < rows.length; i++) {
          const [a, b] = [rows[i - 1], rows[i]];
          if (a.statistics.cost < b.statistics.cost)
            out.push(`${a.id} (${a.statistics.cost}) before ${b.id} (${b.statistics.cost})`);
          if (a.statistics.cost === b.statistics.cost && a.id > b.id)
            out.push(`tie ${a.statistics.cost}: ${a.id} before ${b.id}`);
        }
        expect(out.slice(0, 5)).toEqual([]);
        if (org === fx.orgs[0])
          expect(rows.filter((r) => r.statistics.cost === 0).length, 'zero-cost ties to order').toBeGreaterThan(1);
      }
    });

    it('with segments: ties break by id, then the segments; paging by 7 still returns each bucket once', async () => {
      const org = fx.orgs[0]!;
      const query: QueryInput = { sort: '-statistics.calls', segments: 'Week', statistics: 'calls,cost' };
      const { rows, totals } = await pageThrough('campaigns', 'campaigns', org.token, query, 7);
      const everything = (await fetchAll(fx, 'campaigns', org.token, query, 'campaigns')).rows;
      expect([...totals]).toEqual([everything.length]);
      expect(new Set(rows.map(rowKey)).size).toBe(rows.length);
      expect(rows.map(rowKey).sort()).toEqual(everything.map(rowKey).sort());
      const out: string[] = [];
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1], rows[i]];
        if (a.statistics.calls < b.statistics.calls)
          out.push(`${rowKey(a)} before ${rowKey(b)}: calls ${a.statistics.calls} < ${b.statistics.calls}`);
        // Supplement 5: ties break by id ascending (and an entity's buckets then in segment order, as without a sort).
        if (
          a.statistics.calls === b.statistics.calls &&
          (a.id > b.id || (a.id === b.id && a.segments.week > b.segments.week))
        ) {
          out.push(`tie at calls ${a.statistics.calls}: ${rowKey(a)} before ${rowKey(b)}`);
        }
      }
      expect(out.slice(0, 5)).toEqual([]);
    });

    it('several keys: adPlatformAccountId ascending, then -statistics.clicks, then id', async () => {
      const org = fx.orgs[0]!;
      const { rows } = await fetchAll(
        fx,
        'adgroups',
        org.token,
        { sort: 'adPlatformAccountId,-statistics.clicks' },
        'adGroups',
      );
      const sorted = [...rows].sort(
        (a, b) =>
          a.adPlatformAccountId - b.adPlatformAccountId || b.statistics.clicks - a.statistics.clicks || a.id - b.id,
      );
      expect(rows.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
    });

    it('an offset that is not a multiple of limit is a 400 naming offset; a page past the end is empty with the total', async () => {
      const token = fx.orgs[0]!.token;
      for (const query of [
        { limit: 7, offset: 3 },
        { offset: 7 },
        { limit: 7, offset: 15 },
        { limit: 10, offset: -10 },
        { limit: 7, offset: 'x' },
      ]) {
        const res = await fx.report('campaigns', token, query as QueryInput);
        expect(res.status, JSON.stringify(query)).toBe(400);
        expect(res.json.error.details[0].field, JSON.stringify(query)).toBe('offset');
      }
      const total = Number((await fx.report('campaigns', token, { limit: 1 })).headers['x-totalcount']);
      const past = await fx.report('campaigns', token, { limit: 7, offset: 7 * 1000 });
      expect(past.status).toBe(200);
      expect(past.json.campaigns).toEqual([]);
      expect(Number(past.headers['x-totalcount'])).toBe(total);
    });
  });
});
