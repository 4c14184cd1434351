import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addDays,
  approx,
  fetchAll,
  LEVELS,
  mondayOf,
  startReportingFixture,
  type Level,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * An independent oracle for the reporting endpoints: the expected rows are computed here with
 * plain SQL over the fact tables (daily sums per entity, day and device; FX per day for
 * accounts; markups per day) and grouped into buckets in JS, then compared with what the API
 * answers. The database comes from the real generator; the first organization is changed
 * through the API so that FX and markups do something: its first account is switched to USD
 * (its platform accounts are not), gets two markup periods and a second link to a platform
 * account of another account; a new account without links must show up with zero figures.
 */

let fx: ReportingFixture;
let Y: string;
/** Set up in beforeAll (ids of the changed organization). */
const world = { usdAccount: 0, sharedPlatformAccount: 0, otherAccount: 0, emptyAccount: 0 };

// Every answer the same with rollups on (the default) and off (ADREPORT_ROLLUPS=false): one generated file, a copy each.
describe.each([true, false])('ADREPORT_ROLLUPS=%s', (rollups) => {
  beforeAll(async () => {
    fx = await startReportingFixture({ world: 'scale2-45d', service: { rollups } });
    Y = fx.yesterday;
    const org = fx.orgs[0]!;
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
    for (const markup of [
      { rate: 0.25, startDate: addDays(Y, -20), endDate: addDays(Y, -10) },
      { rate: 0.1, startDate: addDays(Y, -5), endDate: null },
    ]) {
      const res = await fx.json('POST', `/provisioning/v0/accounts/id/${world.usdAccount}/markups`, org.token, {
        markup,
      });
      if (res.status !== 201) throw new Error(`POST markup: ${res.status} ${res.text}`);
    }
    // A platform account of another account of the organization, linked to the USD account too:
    // it then counts in both accounts, and its lower levels take the markups of the lowest-id account.
    const shared = await fx.sql<{ account_id: number; adplatform_account_id: number }>(
      `SELECT l.account_id, l.adplatform_account_id FROM account_adplatform_links l JOIN accounts a ON a.id = l.account_id
      WHERE a.organization_id = $1 AND l.account_id <> $2 ORDER BY l.account_id, l.adplatform_account_id LIMIT 1`,
      [org.id, world.usdAccount],
    );
    world.otherAccount = shared[0]!.account_id;
    world.sharedPlatformAccount = shared[0]!.adplatform_account_id;
    await fx.write(
      `INSERT INTO account_adplatform_links (account_id, adplatform_account_id, status) VALUES ($1, $2, 'READ_WRITE')`,
      [world.usdAccount, world.sharedPlatformAccount],
    );
    // The other organization gets a markup too, on its first account.
    const second = fx.orgs[1]!;
    const secondAccount = (
      await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id LIMIT 1', [
        second.id,
      ])
    )[0]!.id;
    const markup = await fx.json('POST', `/provisioning/v0/accounts/id/${secondAccount}/markups`, second.token, {
      markup: { rate: 0.05, startDate: addDays(Y, -15), endDate: null },
    });
    if (markup.status !== 201) throw new Error(`POST markup: ${markup.status} ${markup.text}`);
    const created = await fx.json('POST', '/provisioning/v0/accounts', org.token, {
      account: { name: 'Oracle Empty AG', languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
    });
    if (created.status !== 201) throw new Error(`POST account: ${created.status} ${created.text}`);
    world.emptyAccount = created.json.account.id;
  });
  afterAll(async () => {
    await fx?.close();
  });

  // ---------------------------------------------------------------------------------------------
  // The oracle

  const SUMS = [
    'impressions',
    'clicks',
    'cost',
    'conversions',
    'conversionValue',
    'calls',
    'callConversions',
    'callConversionsFractional',
    'costWithMarkup',
  ] as const;
  type Sums = Record<(typeof SUMS)[number], number>;
  interface Daily extends Sums {
    id: number;
    day: string;
    device: string;
  }

  const INTEGER_STATS = new Set(['impressions', 'clicks', 'calls', 'callConversions']);
  const DEFAULT_NINE = [
    'impressions',
    'clicks',
    'cost',
    'conversions',
    'conversionValue',
    'ctr',
    'averageCpc',
    'conversionRate',
    'costPerConversion',
  ];

  const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
  function statistic(name: string, s: Sums): number | null {
    switch (name) {
      case 'totalConversions':
        return s.conversions + s.callConversionsFractional;
      case 'ctr':
        return ratio(s.clicks, s.impressions);
      case 'averageCpc':
        return ratio(s.cost, s.clicks);
      case 'averageCpm':
        return ratio(1000 * s.cost, s.impressions);
      case 'conversionRate':
        return ratio(s.conversions, s.clicks);
      case 'costPerConversion':
        return ratio(s.cost, s.conversions);
      case 'valuePerConversion':
        return ratio(s.conversionValue, s.conversions);
      case 'roas':
        return ratio(s.conversionValue, s.cost);
      default:
        return s[name as keyof Sums];
    }
  }

  const zero = (): Sums => Object.fromEntries(SUMS.map((k) => [k, 0])) as Sums;
  function add(into: Sums, row: Sums): void {
    for (const k of SUMS) into[k] += Number(row[k]);
  }

  const SUM_SELECT = (money: string, markup: string) => `
  sum(f.impressions)::DOUBLE AS impressions, sum(f.clicks)::DOUBLE AS clicks,
  sum(f.cost::DOUBLE * ${money}) AS cost, sum(f.conversions::DOUBLE) AS conversions,
  sum(f.conversion_value::DOUBLE * ${money}) AS "conversionValue", sum(f.calls)::DOUBLE AS calls,
  sum(f.call_conversions)::DOUBLE AS "callConversions", sum(f.call_conversions_fractional::DOUBLE) AS "callConversionsFractional",
  sum(f.cost::DOUBLE * ${money} * (1 + coalesce(${markup}, 0)::DOUBLE)) AS "costWithMarkup"`;

  /**
   * Sums per entity and grain ('id': whole range; 'day'; 'device') of one level, organization and
   * range, straight from the fact tables. Weeks and months are made from days here in JS.
   */
  type Grain = 'id' | 'day' | 'device';
  const dailyCache = new Map<string, Promise<Daily[]>>();
  function daily(level: Level, organizationId: number, from: string, to: string, grain: Grain): Promise<Daily[]> {
    const cacheKey = `${level.path}|${organizationId}|${from}|${to}|${grain}`;
    let found = dailyCache.get(cacheKey);
    if (!found) {
      found =
        level.key === null
          ? accountDaily(organizationId, from, to, grain)
          : lowerDaily(level, organizationId, from, to, grain);
      dailyCache.set(cacheKey, found);
    }
    return found;
  }

  const grainSelect = (grain: Grain) =>
    `${grain === 'day' ? "strftime(f.day, '%Y-%m-%d')" : "''"} AS day, ${grain === 'device' ? 'f.device::VARCHAR' : "''"} AS device`;

  function accountDaily(organizationId: number, from: string, to: string, grain: Grain): Promise<Daily[]> {
    // Every linked platform account's figures, money at the day's rates: account currency per EUR / platform currency per EUR.
    return fx.sql<Daily>(
      `SELECT l.account_id AS id, ${grainSelect(grain)},
            ${SUM_SELECT('(ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)', 'mk.rate')}
       FROM fact_ad_daily f
       JOIN account_adplatform_links l ON l.adplatform_account_id = f.adplatform_account_id
       JOIN accounts a ON a.id = l.account_id AND a.organization_id = $1
       JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
       JOIN fx_rates ra ON ra.day = f.day AND ra.currency = a.currency
       JOIN fx_rates rp ON rp.day = f.day AND rp.currency = p.currency
       LEFT JOIN markups mk ON mk.account_id = a.id AND f.day >= mk.start_date AND (mk.end_date IS NULL OR f.day <= mk.end_date)
      WHERE f.organization_id = $1 AND f.day >= $2::DATE AND f.day <= $3::DATE
      GROUP BY 1, 2, 3`,
      [organizationId, from, to],
    );
  }

  function lowerDaily(level: Level, organizationId: number, from: string, to: string, grain: Grain): Promise<Daily[]> {
    // No conversion; the markup of the lowest-id account the platform account is linked to.
    return fx.sql<Daily>(
      `SELECT f.${level.key} AS id, ${grainSelect(grain)}, ${SUM_SELECT('1', 'mk.rate')}
       FROM ${level.fact} f
       LEFT JOIN (SELECT adplatform_account_id, min(account_id) AS account_id FROM account_adplatform_links GROUP BY 1) first_link
              ON first_link.adplatform_account_id = f.adplatform_account_id
       LEFT JOIN markups mk ON mk.account_id = first_link.account_id AND f.day >= mk.start_date AND (mk.end_date IS NULL OR f.day <= mk.end_date)
      WHERE f.organization_id = $1 AND f.day >= $2::DATE AND f.day <= $3::DATE
      GROUP BY 1, 2, 3`,
      [organizationId, from, to],
    );
  }

  /** The row fields besides statistics, per level, as the API must show them. */
  const ENTITY_SQL: Record<Level['path'], string> = {
    accounts: `SELECT a.id, a.name, a.currency FROM accounts a WHERE a.organization_id = $1`,
    'adplatform-accounts': `SELECT p.id, p.name, p.ad_platform_type AS "adPlatformType", p.ad_platform_id AS "adPlatformId", p.currency
                            FROM adplatform_accounts p WHERE p.organization_id = $1`,
    campaigns: `SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE c.organization_id = $1`,
    adgroups: `SELECT g.id, g.name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", c.ad_platform_type AS "adPlatformAccountType",
                    g.ad_platform_id AS "adPlatformId", g.status, p.currency
               FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE g.organization_id = $1`,
    keywords: `SELECT k.id, k.text, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", k.ad_group_id AS "adGroupId",
                    c.ad_platform_type AS "adPlatformAccountType", k.ad_platform_id AS "adPlatformId", k.status, p.currency
               FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
               JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE k.organization_id = $1`,
    ads: `SELECT a.id, a.name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", a.ad_group_id AS "adGroupId",
               c.ad_platform_type AS "adPlatformAccountType", a.status, p.currency
          FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
          JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE a.organization_id = $1`,
  };

  const entityCache = new Map<string, Promise<Map<number, Record<string, unknown>>>>();
  function entities(level: Level, organizationId: number): Promise<Map<number, Record<string, unknown>>> {
    const cacheKey = `${level.path}|${organizationId}`;
    let found = entityCache.get(cacheKey);
    if (!found) {
      found = fx
        .sql<Record<string, unknown>>(`${ENTITY_SQL[level.path]} ORDER BY 1`, [organizationId])
        .then((rows) => new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id) }])));
      entityCache.set(cacheKey, found);
    }
    return found;
  }

  type Segment = 'Day' | 'Week' | 'Month' | 'DeviceType';
  const SEGMENT_KEY: Record<Segment, string> = { Day: 'day', Week: 'week', Month: 'month', DeviceType: 'deviceType' };
  function segmentValue(segment: Segment, row: Daily): string {
    switch (segment) {
      case 'Day':
        return row.day;
      case 'Week':
        return mondayOf(row.day);
      case 'Month':
        return row.day.slice(0, 7);
      case 'DeviceType':
        return row.device;
    }
  }

  interface ExpectedRow {
    id: number;
    segments?: Record<string, string>;
    sums: Sums;
  }

  /** Expected rows in the API's default order: id ascending, then the segment values. */
  async function expectedRows(
    level: Level,
    organizationId: number,
    from: string,
    to: string,
    segment: Segment | undefined,
  ): Promise<ExpectedRow[]> {
    const rows = await daily(
      level,
      organizationId,
      from,
      to,
      !segment ? 'id' : segment === 'DeviceType' ? 'device' : 'day',
    );
    const ents = await entities(level, organizationId);
    const buckets = new Map<string, ExpectedRow>();
    if (!segment) for (const id of ents.keys()) buckets.set(`${id}`, { id, sums: zero() });
    for (const row of rows) {
      const id = Number(row.id);
      if (!ents.has(id))
        throw new Error(`fact row of ${level.path} ${id}, not an entity of organization ${organizationId}`);
      const value = segment ? segmentValue(segment, row) : '';
      const key = `${id}|${value}`.replace(/\|$/, '');
      let bucket = buckets.get(key);
      if (!bucket)
        buckets.set(
          key,
          (bucket = { id, ...(segment ? { segments: { [SEGMENT_KEY[segment]]: value } } : {}), sums: zero() }),
        );
      add(bucket.sums, row);
    }
    const seg = (r: ExpectedRow) => (segment ? r.segments![SEGMENT_KEY[segment]]! : '');
    return [...buckets.values()].sort((a, b) => a.id - b.id || (seg(a) < seg(b) ? -1 : seg(a) > seg(b) ? 1 : 0));
  }

  function defaultRange(): { from: string; to: string } {
    return { from: addDays(Y, -29), to: Y };
  }

  /** Compares API rows with the oracle's; returns human-readable differences (first ones only). */
  async function compare(
    level: Level,
    organizationId: number,
    apiRows: any[],
    expected: ExpectedRow[],
    statistics: readonly string[],
  ): Promise<{ problems: string[]; order: string[] }> {
    const problems: string[] = [];
    const order: string[] = [];
    const ents = await entities(level, organizationId);
    const key = (r: { id: number; segments?: Record<string, unknown> }) =>
      `${r.id}${r.segments ? ` ${JSON.stringify(r.segments)}` : ''}`;
    if (apiRows.length !== expected.length) problems.push(`${apiRows.length} rows, expected ${expected.length}`);
    const apiKeys = apiRows.map(key);
    const expectedKeys = expected.map(key);
    const apiKeySet = new Set(apiKeys);
    const expectedKeySet = new Set(expectedKeys);
    if (apiKeySet.size !== apiKeys.length) problems.push(`${apiKeys.length - apiKeySet.size} rows appear twice`);
    const missing = expectedKeys.filter((k) => !apiKeySet.has(k));
    const extra = apiKeys.filter((k) => !expectedKeySet.has(k));
    if (missing.length > 0)
      problems.push(
        `missing rows: ${missing.slice(0, 5).join('; ')}${missing.length > 5 ? ` (+${missing.length - 5})` : ''}`,
      );
    if (extra.length > 0)
      problems.push(
        `unexpected rows: ${extra.slice(0, 5).join('; ')}${extra.length > 5 ? ` (+${extra.length - 5})` : ''}`,
      );
    if (missing.length === 0 && extra.length === 0) {
      const firstOut = apiKeys.findIndex((k, i) => k !== expectedKeys[i]);
      if (firstOut >= 0)
        order.push(
          `order differs from "id ascending, then segments" at index ${firstOut}: got ${apiKeys.slice(firstOut, firstOut + 3).join(', ')}; expected ${expectedKeys.slice(firstOut, firstOut + 3).join(', ')}`,
        );
    }
    const byKey = new Map(expected.map((r) => [key(r), r]));
    for (const row of apiRows) {
      const want = byKey.get(key(row));
      if (!want) continue;
      const entity = ents.get(row.id);
      for (const [field, value] of Object.entries(entity ?? {})) {
        if (row[field] !== value)
          problems.push(`${key(row)}: ${field} = ${JSON.stringify(row[field])}, expected ${JSON.stringify(value)}`);
      }
      const gotNames = Object.keys(row.statistics ?? {}).sort();
      if (JSON.stringify(gotNames) !== JSON.stringify([...statistics].sort()))
        problems.push(`${key(row)}: statistics ${gotNames.join(',')}, expected ${[...statistics].sort().join(',')}`);
      for (const name of statistics) {
        const got = row.statistics?.[name];
        const exp = statistic(name, want.sums);
        const ok = INTEGER_STATS.has(name) ? got === exp : approx(got, exp);
        if (!ok) problems.push(`${key(row)}: statistics.${name} = ${got}, expected ${exp}`);
      }
      if (problems.length > 30) break;
    }
    return { problems: problems.slice(0, 30), order };
  }

  async function check(
    level: Level,
    orgIndex: number,
    query: QueryInput,
    options: { from: string; to: string; segment?: Segment; statistics?: readonly string[]; ignoreOrder?: boolean },
  ) {
    const org = fx.orgs[orgIndex]!;
    const { rows, total } = await fetchAll(fx, level.path, org.token, query, level.plural);
    const expected = await expectedRows(level, org.id, options.from, options.to, options.segment);
    expect(total, 'X-TotalCount').toBe(expected.length);
    const { problems, order } = await compare(level, org.id, rows, expected, options.statistics ?? DEFAULT_NINE);
    expect(problems).toEqual([]);
    if (!options.ignoreOrder) expect(order, 'default order: id ascending (then the segments)').toEqual([]);
    return { rows, expected };
  }

  // Ranges that keep segmented low levels to a few thousand rows.
  const SHORT_DAYS: Record<Level['path'], number> = {
    accounts: 30,
    'adplatform-accounts': 30,
    campaigns: 30,
    adgroups: 14,
    keywords: 5,
    ads: 7,
  };
  function shortRange(level: Level) {
    return { from: addDays(Y, -(SHORT_DAYS[level.path] - 1)), to: Y };
  }
  function weekRange(level: Level) {
    if (SHORT_DAYS[level.path] === 30) return { from: addDays(Y, -29), to: Y };
    // From a Thursday two weeks back to a Tuesday (or yesterday): partial weeks at both ends.
    const from = addDays(mondayOf(Y), -11);
    const to = addDays(from, 12) < Y ? addDays(from, 12) : Y;
    return { from, to };
  }
  function monthRange(level: Level) {
    if (SHORT_DAYS[level.path] === 30) return { from: addDays(Y, -29), to: Y };
    let first = `${Y.slice(0, 7)}-01`;
    if (addDays(first, 2) > Y) first = `${addDays(first, -1).slice(0, 7)}-01`;
    const to = addDays(first, 2) < Y ? addDays(first, 2) : Y;
    return { from: addDays(first, -3), to };
  }

  /** Statistics that read money: null in totals over rows in several currencies. */
  const MONEY = new Set([
    'cost',
    'costWithMarkup',
    'conversionValue',
    'averageCpc',
    'averageCpm',
    'costPerConversion',
    'valuePerConversion',
    'roas',
  ]);
  const STATS_WITH_MARKUP = [
    'impressions',
    'clicks',
    'cost',
    'conversions',
    'ctr',
    'averageCpc',
    'costWithMarkup',
    'calls',
  ];

  describe('reporting oracle: every level against plain SQL over the fact tables', () => {
    for (const level of LEVELS) {
      describe(`/${level.path}`, () => {
        it('without parameters: every entity of the organization (zero rows too), the default nine over the 30 days ending yesterday', async () => {
          for (const orgIndex of [0, 1]) {
            const { rows } = await check(level, orgIndex, {}, defaultRange());
            const zeroRow = rows.find((r) => r.statistics.impressions === 0);
            if (zeroRow) expect(zeroRow.statistics).toMatchObject({ ctr: null, conversionRate: null });
          }
        });

        it('with startDate and endDate (inclusive), also reaching before the first generated day', async () => {
          await check(
            level,
            0,
            { startDate: addDays(Y, -38), endDate: addDays(Y, -21) },
            { from: addDays(Y, -38), to: addDays(Y, -21) },
          );
          await check(
            level,
            1,
            { startDate: addDays(Y, -50), endDate: addDays(Y, -40) },
            { from: addDays(Y, -50), to: addDays(Y, -40) },
          );
          // Only startDate: through yesterday.
          await check(level, 0, { startDate: addDays(Y, -9) }, { from: addDays(Y, -9), to: Y });
          // One day.
          await check(
            level,
            0,
            { startDate: addDays(Y, -3), endDate: addDays(Y, -3) },
            { from: addDays(Y, -3), to: addDays(Y, -3) },
          );
        });

        for (const segment of ['Day', 'Week', 'Month', 'DeviceType'] as const) {
          it(`segments=${segment}: one row per active bucket, ordered by id then ${SEGMENT_KEY[segment]}`, async () => {
            const range =
              segment === 'Week' ? weekRange(level) : segment === 'Month' ? monthRange(level) : shortRange(level);
            const { rows } = await check(
              level,
              0,
              { startDate: range.from, endDate: range.to, segments: segment },
              { ...range, segment },
            );
            expect(rows.length).toBeGreaterThan(0);
          });
        }

        it('with segments and no sort, rows are in the default order: id ascending, then the segment (supplement 1)', async () => {
          const range = { from: addDays(Y, -3), to: Y };
          await check(
            level,
            1,
            { startDate: range.from, endDate: range.to, segments: 'Day' },
            { ...range, segment: 'Day' },
          );
        });

        it('statistics=impressions,clicks,cost,conversions,ctr,averageCpc,costWithMarkup,calls (markups of both organizations)', async () => {
          for (const orgIndex of [0, 1]) {
            await check(
              level,
              orgIndex,
              { startDate: addDays(Y, -35), endDate: Y, statistics: STATS_WITH_MARKUP.join(',') },
              { from: addDays(Y, -35), to: Y, statistics: STATS_WITH_MARKUP },
            );
          }
        });

        it('statistics with the prefix and the rest of the catalogue', async () => {
          const all = [
            'totalConversions',
            'averageCpm',
            'valuePerConversion',
            'roas',
            'callConversions',
            'callConversionsFractional',
            'conversionValue',
            'conversionRate',
            'costPerConversion',
          ];
          await check(
            level,
            0,
            { statistics: all.map((s) => `statistics.${s}`).join(',') },
            { ...defaultRange(), statistics: all },
          );
        });

        it('totals=true: the statistics of the summed figures of the whole result, beside a page; money only over one currency', async () => {
          for (const orgIndex of [0, 1]) {
            const org = fx.orgs[orgIndex]!;
            const res = await fx.report(level.path, org.token, {
              statistics: STATS_WITH_MARKUP.join(','),
              totals: 'true',
              limit: 5,
            });
            expect(res.status).toBe(200);
            const expected = await expectedRows(level, org.id, addDays(Y, -29), Y, undefined);
            const sums = zero();
            for (const row of expected) add(sums, row.sums);
            expect(res.json[level.plural]).toHaveLength(Math.min(5, expected.length));
            expect(Object.keys(res.json.totals ?? {}).sort()).toEqual(['currency', ...STATS_WITH_MARKUP].sort());
            // Issue 19: money of rows in several currencies is not summed (the rows' currencies from the entity tables).
            const ents = await entities(level, org.id);
            const currencies = [...new Set(expected.map((row) => String(ents.get(row.id)!.currency)))].sort();
            const mixed = currencies.length > 1;
            expect(res.json.totals.currency).toBe(mixed ? null : currencies[0]);
            expect(
              res.json.warnings?.filter((w: any) => w.code === 'mixed_currencies').map((w: any) => w.currencies) ?? [],
            ).toEqual(mixed ? [currencies] : []);
            for (const name of STATS_WITH_MARKUP) {
              const exp = mixed && MONEY.has(name) ? null : statistic(name, sums);
              expect(
                approx(res.json.totals[name], exp),
                `totals.${name} = ${res.json.totals[name]}, expected ${exp}`,
              ).toBe(true);
            }
          }
        });
      });
    }

    it('totals=true with segments and a filter: over the filtered buckets of all pages', async () => {
      const level = LEVELS[2];
      const org = fx.orgs[1]!;
      const range = { from: addDays(Y, -13), to: Y };
      const res = await fx.report(level.path, org.token, {
        startDate: range.from,
        endDate: range.to,
        segments: 'Day',
        filter: 'statistics.clicks > 3',
        totals: 'true',
        statistics: 'clicks,cost,ctr,averageCpc',
        limit: 10,
      });
      expect(res.status).toBe(200);
      const expected = (await expectedRows(level, org.id, range.from, range.to, 'Day')).filter(
        (r) => r.sums.clicks > 3,
      );
      expect(Number(res.headers['x-totalcount'])).toBe(expected.length);
      const sums = zero();
      for (const row of expected) add(sums, row.sums);
      const ents = await entities(level, org.id);
      const currencies = new Set(expected.map((row) => ents.get(row.id)!.currency));
      expect(currencies.size).toBe(1);
      expect(res.json.totals.currency).toBe([...currencies][0]);
      for (const name of ['clicks', 'cost', 'ctr', 'averageCpc']) {
        expect(
          approx(res.json.totals?.[name], statistic(name, sums)),
          `totals.${name} = ${res.json.totals?.[name]}, expected ${statistic(name, sums)}`,
        ).toBe(true);
      }
    });

    it('totals=true over an empty result: zero sums, null ratios, X-TotalCount 0', async () => {
      const res = await fx.report('campaigns', fx.orgs[0]!.token, {
        filter: 'id < 0',
        totals: 'true',
        statistics: 'impressions,cost,ctr,averageCpc',
      });
      expect(res.status).toBe(200);
      expect(res.json.campaigns).toEqual([]);
      expect(res.headers['x-totalcount']).toBe('0');
      expect(res.json.totals).toEqual({ currency: null, impressions: 0, cost: 0, ctr: null, averageCpc: null });
    });

    it('the changed organization: USD account with converted money, shared platform account counted in both accounts, empty account at zero', async () => {
      const org = fx.orgs[0]!;
      const res = await fx.report('accounts', org.token, {
        statistics: 'impressions,cost,costWithMarkup',
        startDate: addDays(Y, -20),
        endDate: Y,
      });
      expect(res.status).toBe(200);
      const byId = new Map<number, any>(res.json.accounts.map((r: any) => [r.id, r]));
      expect(byId.get(world.usdAccount)).toMatchObject({ currency: 'USD' });
      expect(byId.get(world.emptyAccount)).toMatchObject({
        name: 'Oracle Empty AG',
        currency: 'EUR',
        statistics: { impressions: 0, cost: 0, costWithMarkup: 0 },
      });
      // The shared platform account's impressions are in both accounts.
      const shared = await fx.sql<{ impressions: number }>(
        'SELECT coalesce(sum(impressions), 0)::DOUBLE AS impressions FROM fact_ad_daily WHERE adplatform_account_id = $1 AND day BETWEEN $2::DATE AND $3::DATE',
        [world.sharedPlatformAccount, addDays(Y, -20), Y],
      );
      expect(shared[0]!.impressions).toBeGreaterThan(0);
      expect(byId.get(world.usdAccount).statistics.impressions).toBeGreaterThanOrEqual(shared[0]!.impressions);
      expect(byId.get(world.otherAccount).statistics.impressions).toBeGreaterThanOrEqual(shared[0]!.impressions);
      // Markups apply: the USD account's costWithMarkup is above its cost.
      expect(byId.get(world.usdAccount).statistics.costWithMarkup).toBeGreaterThan(
        byId.get(world.usdAccount).statistics.cost,
      );
    });
    // Last: it adds a platform account the other tests do not expect.
    it('an ad platform account the organization knows but has not linked (seen under a master) still appears, with zero figures', async () => {
      const org = fx.orgs[1]!;
      await fx.write(
        `INSERT INTO adplatform_accounts (organization_id, ad_platform_type, ad_platform_id, name, currency, time_zone)
       VALUES ($1, 'GOOGLE_ADS', '999-000-0001', 'Seen under a master, never linked', 'EUR', 'Europe/Berlin')`,
        [org.id],
      );
      const [known] = await fx.sql<{ id: number }>(
        "SELECT id FROM adplatform_accounts WHERE ad_platform_id = '999-000-0001'",
      );
      const res = await fx.report('adplatform-accounts', org.token, { statistics: 'impressions,ctr' });
      expect(res.status).toBe(200);
      expect(res.json.adPlatformAccounts.find((r: any) => r.id === known!.id)).toMatchObject({
        id: known!.id,
        adPlatformType: 'GOOGLE_ADS',
        statistics: { impressions: 0, ctr: null },
      });
    });
  });
});
