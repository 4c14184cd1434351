import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueTrailingSyncs } from '../../src/jobs/statistics-sync-queue.js';
import { isoDate } from '../../src/shared/dates.js';
import type { SqlValue } from '../../src/store/sql-values.js';
import { createAccount, jsonRequest, linkedGoogleAccount } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { poll } from '../helpers/poll.js';
import {
  addDays,
  fetchAll,
  startReportingFixture,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The breakdown segments of issue 40 through HTTP (Hour, HourOfDay, Age, Gender,
 * PublisherPlatform, PlatformPosition, Country, Region, ConversionAction, WeekSunday), on a
 * generated world whose days all fall in the hourly retention (it ends yesterday; hours are kept
 * 180 days back from today). Expected figures come from plain SQL here: per campaign over
 * fact_ad_daily (what the buckets must sum to, money in exact micros) and per bucket over the
 * breakdown tables; and from metamorphic relations between answers (HourOfDay is Hour regrouped,
 * hours sum to their day, weeks to their days, compared buckets to the compared range's own
 * answer). A statistics sync through the sandbox must write the same relations into its DuckDB file.
 */

let fx: ReportingFixture;
let Y: string;
let token: string;
let orgId: number;
/** Ten days ending yesterday: every report of the oracle tests covers them. */
let FROM: string;

const ALL_MEASURES = ['impressions', 'clicks', 'cost', 'conversions', 'conversionValue'] as const;
type Measure = (typeof ALL_MEASURES)[number];
/** Additive sums of a row; cost, conversions and conversionValue in integer micros. */
type Sums = Partial<Record<Measure, number>>;
const CONVERSION_MEASURES = ['conversions', 'conversionValue'] as const satisfies readonly Measure[];
const DECIMAL = new Set<Measure>(['cost', 'conversions', 'conversionValue']);

const AGES = ['18-24', '25-34', '35-44', '45-54', '55-64', '65+', 'Unknown'];
const GENDERS = ['female', 'male', 'unknown'];
const PUBLISHER_PLATFORMS = ['facebook', 'instagram', 'messenger', 'audience_network'];
/** The sandbox's conversion actions per platform (src/platforms/breakdown-profiles.ts is the model). */
const CONVERSION_ACTIONS: Record<string, string[]> = {
  GOOGLE_ADS: ['Purchase', 'Lead form submit', 'Phone call lead', 'Sign-up'],
  MICROSOFT_ADVERTISING: ['Purchase', 'Contact form', 'Store visit', 'Newsletter sign-up'],
  FACEBOOK: ['Purchase', 'Lead', 'Add to cart', 'Complete registration'],
};

interface Breakdown {
  readonly segment: string;
  readonly key: string;
  readonly table: string;
  /** The bucket's value as the API shows it, in SQL over the breakdown table (as text). */
  readonly sql: string;
  readonly facebookOnly: boolean;
  readonly measures: readonly Measure[];
  /** Is this a value the segment can have (on a campaign of this platform)? */
  readonly valid: (value: unknown, platform: string) => boolean;
}

const isText = (value: unknown): value is string => typeof value === 'string';
const BREAKDOWNS: readonly Breakdown[] = [
  {
    segment: 'Hour',
    key: 'hour',
    table: 'fact_campaign_hourly',
    sql: `strftime(day, '%Y-%m-%d') || 'T' || lpad(CAST(hour AS VARCHAR), 2, '0') || ':00'`,
    facebookOnly: false,
    measures: ALL_MEASURES,
    valid: (v) =>
      isText(v) && /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):00$/.test(v) && v.slice(0, 10) >= FROM && v.slice(0, 10) <= Y,
  },
  {
    segment: 'HourOfDay',
    key: 'hourOfDay',
    table: 'fact_campaign_hourly',
    sql: 'CAST(hour AS VARCHAR)',
    facebookOnly: false,
    measures: ALL_MEASURES,
    valid: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 23,
  },
  {
    segment: 'Age',
    key: 'age',
    table: 'fact_campaign_audience_daily',
    sql: 'age',
    facebookOnly: true,
    measures: ALL_MEASURES,
    valid: (v) => isText(v) && AGES.includes(v),
  },
  {
    segment: 'Gender',
    key: 'gender',
    table: 'fact_campaign_audience_daily',
    sql: 'gender',
    facebookOnly: true,
    measures: ALL_MEASURES,
    valid: (v) => isText(v) && GENDERS.includes(v),
  },
  {
    segment: 'PublisherPlatform',
    key: 'publisherPlatform',
    table: 'fact_campaign_placement_daily',
    sql: 'publisher_platform',
    facebookOnly: true,
    measures: ALL_MEASURES,
    valid: (v) => isText(v) && PUBLISHER_PLATFORMS.includes(v),
  },
  {
    segment: 'PlatformPosition',
    key: 'platformPosition',
    table: 'fact_campaign_placement_daily',
    sql: 'platform_position',
    facebookOnly: true,
    measures: ALL_MEASURES,
    valid: (v) => isText(v) && /^[a-z_]+$/.test(v),
  },
  {
    segment: 'Country',
    key: 'country',
    table: 'fact_campaign_geo_daily',
    sql: 'country',
    facebookOnly: false,
    measures: ALL_MEASURES,
    valid: (v) => isText(v) && /^[A-Z]{2}$/.test(v),
  },
  {
    segment: 'Region',
    key: 'region',
    table: 'fact_campaign_geo_daily',
    sql: 'region',
    facebookOnly: false,
    measures: ALL_MEASURES,
    valid: (v) => isText(v) && /^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(v),
  },
  {
    segment: 'ConversionAction',
    key: 'conversionAction',
    table: 'fact_campaign_conversion_action_daily',
    sql: 'conversion_action',
    facebookOnly: false,
    measures: CONVERSION_MEASURES,
    valid: (v, platform) => isText(v) && (CONVERSION_ACTIONS[platform] ?? []).includes(v),
  },
];

const micros = (value: number) => Math.round(value * 1_000_000);

/** A row's additive statistics as Sums (money and decimals in micros). */
function sumsOf(statistics: Record<string, number | null>, measures: readonly Measure[]): Sums {
  const out: Sums = {};
  for (const m of measures) {
    const value = statistics[m];
    if (typeof value !== 'number') throw new Error(`${m} is ${String(value)}`);
    out[m] = DECIMAL.has(m) ? micros(value) : value;
  }
  return out;
}

function addInto(into: Map<string, Sums>, key: string, sums: Sums): void {
  const found = into.get(key);
  if (!found) {
    into.set(key, { ...sums });
    return;
  }
  for (const [m, v] of Object.entries(sums) as [Measure, number][]) found[m] = (found[m] ?? 0) + v;
}

/** API rows summed by a key (several rows per key add up). */
function regroup(rows: readonly any[], key: (row: any) => string, measures: readonly Measure[]): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const row of rows) addInto(out, key(row), sumsOf(row.statistics, measures));
  return out;
}

const zeroOf = (measures: readonly Measure[]): Sums => Object.fromEntries(measures.map((m) => [m, 0]));
const isZero = (sums: Sums) => Object.values(sums).every((v) => v === 0);

/**
 * Keys whose sums differ (a key missing on one side counts as zeros there); [] when equal. Exact,
 * unless `slack` gives a key's money a tolerance in micros (converted money: each row is rounded
 * to the micro after its conversion, so n rows may sum to n/2 micros off their total).
 */
function differences(
  actual: ReadonlyMap<string, Sums>,
  expected: ReadonlyMap<string, Sums>,
  measures: readonly Measure[],
  label: string,
  slack: (key: string) => number = () => 0,
): string[] {
  const problems: string[] = [];
  for (const key of new Set([...actual.keys(), ...expected.keys()])) {
    const a = actual.get(key) ?? zeroOf(measures);
    const e = expected.get(key) ?? zeroOf(measures);
    for (const m of measures) {
      const off = Math.abs((a[m] ?? 0) - (e[m] ?? 0));
      if (off > (m === 'cost' || m === 'conversionValue' ? slack(key) : 0))
        problems.push(`${label} ${key}: ${m} ${a[m]} != expected ${e[m]}`);
    }
    if (problems.length >= 20) break;
  }
  return problems;
}

const SUM_SQL = `sum(impressions)::DOUBLE AS impressions, sum(clicks)::DOUBLE AS clicks,
  CAST(sum(cost) * 1000000 AS BIGINT)::DOUBLE AS cost, CAST(sum(conversions) * 1000000 AS BIGINT)::DOUBLE AS conversions,
  CAST(sum(conversion_value) * 1000000 AS BIGINT)::DOUBLE AS "conversionValue"`;

/** Plain SQL: sums per `key` (SQL text) of a table over the organization's days [from, to]. */
async function sqlSums(
  table: string,
  key: string,
  from: string,
  to: string,
  measures: readonly Measure[] = ALL_MEASURES,
  organizationId = orgId,
): Promise<Map<string, Sums>> {
  const rows = await fx.sql<Record<string, unknown>>(
    `SELECT ${key} AS k, ${SUM_SQL} FROM ${table}
      WHERE organization_id = $1 AND day BETWEEN $2::DATE AND $3::DATE GROUP BY 1`,
    [organizationId, from, to],
  );
  return new Map(rows.map((r) => [String(r.k), Object.fromEntries(measures.map((m) => [m, Number(r[m])])) as Sums]));
}

async function all(path: string, query: QueryInput, plural = 'campaigns', tok = token): Promise<any[]> {
  return (await fetchAll(fx, path, tok, query, plural)).rows;
}

/** The platform (GOOGLE_ADS, ...) of every campaign of the organization, by id. */
async function campaignPlatforms(organizationId: number): Promise<Map<string, string>> {
  const rows = await fx.sql<{ id: number; platform: string }>(
    `SELECT c.id, p.ad_platform_type::VARCHAR AS platform FROM campaigns c
       JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE c.organization_id = $1`,
    [organizationId],
  );
  return new Map(rows.map((r) => [String(r.id), r.platform]));
}

beforeAll(async () => {
  // Many small reports in a row: the organization's database-time share (fair scheduling) is not what is tested.
  fx = await startReportingFixture({
    world: 'scale2-45d',
    service: { rateLimit: { ratePerSecond: 100_000, burst: 100_000, dbTimeMsPerSecond: 0 } },
  });
  Y = fx.yesterday;
  FROM = addDays(Y, -9);
  token = fx.orgs[0]!.token;
  orgId = fx.orgs[0]!.id;
});
afterAll(async () => {
  await fx?.close();
});

describe('every breakdown against plain SQL: buckets sum exactly to the unsegmented row and to fact_ad_daily', () => {
  for (const b of BREAKDOWNS) {
    it(`campaigns: ${b.segment} (both organizations: all three platforms)`, async () => {
      for (const org of fx.orgs) {
        const statistics = b.measures.join(',');
        const query = { startDate: FROM, endDate: Y, statistics };
        const [rows, whole, facts, buckets, platforms] = await Promise.all([
          all('campaigns', { ...query, segments: b.segment }, 'campaigns', org.token),
          all('campaigns', query, 'campaigns', org.token),
          sqlSums('fact_ad_daily', 'campaign_id', FROM, Y, b.measures, org.id),
          sqlSums(b.table, `campaign_id || '|' || ${b.sql}`, FROM, Y, b.measures, org.id),
          campaignPlatforms(org.id),
        ]);
        const label = `organization ${org.id} ${b.segment}`;
        if (b.facebookOnly && ![...platforms.values()].includes('FACEBOOK')) {
          expect(rows, label).toEqual([]);
          continue;
        }
        expect(rows.length, label).toBeGreaterThan(0);
        for (const row of rows) {
          expect(Object.keys(row.segments)).toEqual([b.key]);
          expect(b.valid(row.segments[b.key], row.adPlatformAccountType), `${row.id} ${row.segments[b.key]}`).toBe(
            true,
          );
          if (b.facebookOnly) expect(row.adPlatformAccountType, `${row.id}`).toBe('FACEBOOK');
        }
        // Each bucket is the breakdown table's sum for it.
        const bucketKey = (r: any) => `${r.id}|${r.segments[b.key]}`;
        expect(new Set(rows.map(bucketKey)).size, 'one row per campaign and bucket').toBe(rows.length);
        expect(differences(regroup(rows, bucketKey, b.measures), buckets, b.measures, label)).toEqual([]);

        // Per campaign: the buckets sum to the unsegmented row, which is the facts' sum.
        const perCampaign = regroup(rows, (r) => String(r.id), b.measures);
        const unsegmented = regroup(whole, (r) => String(r.id), b.measures);
        expect(differences(unsegmented, facts, b.measures, `${label} unsegmented vs facts`)).toEqual([]);
        const reported = new Map(
          [...unsegmented].filter(([id]) => !b.facebookOnly || platforms.get(id) === 'FACEBOOK'),
        );
        expect(
          [...reported.values()].some((s) => !isZero(s)),
          'some campaign has figures',
        ).toBe(true);
        expect(differences(perCampaign, reported, b.measures, `${label} buckets vs unsegmented`)).toEqual([]);
        if (b.facebookOnly) {
          const others = [...unsegmented].filter(([id, s]) => platforms.get(id) !== 'FACEBOOK' && !isZero(s));
          expect(others.length, 'campaigns of other platforms have figures, but no buckets').toBeGreaterThan(0);
        }
      }
    });
  }

  it('the breakdown tables hold no row whose measures are all zero, and FACEBOOK-only ones only FACEBOOK campaigns', async () => {
    for (const b of BREAKDOWNS) {
      const [counts] = await fx.sql<{ empty: number; rows: number; others: number }>(
        `SELECT count(*) FILTER (WHERE impressions = 0 AND clicks = 0 AND cost = 0 AND conversions = 0 AND conversion_value = 0
                  AND calls = 0 AND call_conversions = 0 AND call_conversions_fractional = 0)::INTEGER AS empty,
                count(*)::INTEGER AS rows,
                count(*) FILTER (WHERE p.ad_platform_type <> 'FACEBOOK')::INTEGER AS others
           FROM ${b.table} f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id`,
      );
      expect(counts!.rows, b.table).toBeGreaterThan(0);
      expect(counts!.empty, b.table).toBe(0);
      if (b.facebookOnly) expect(counts!.others, b.table).toBe(0);
      else expect(counts!.others, b.table).toBeGreaterThan(0);
    }
    // A conversion counts for one action; an impression, a click or a cost for none.
    const [other] = await fx.sql<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM fact_campaign_conversion_action_daily
        WHERE impressions <> 0 OR clicks <> 0 OR cost <> 0 OR calls <> 0`,
    );
    expect(other!.n).toBe(0);
  });

  it('accounts (Country, HourOfDay), adplatform-accounts (Age, Region) and converted campaigns (currency=USD, Hour) sum to their unsegmented rows', async () => {
    for (const org of fx.orgs)
      for (const [path, plural, segment, key, currency] of [
        ['accounts', 'accounts', 'Country', 'country', undefined],
        ['accounts', 'accounts', 'HourOfDay', 'hourOfDay', undefined],
        ['adplatform-accounts', 'adPlatformAccounts', 'Age', 'age', undefined],
        ['adplatform-accounts', 'adPlatformAccounts', 'Region', 'region', undefined],
        ['campaigns', 'campaigns', 'Hour', 'hour', 'USD'],
      ] as const) {
        const label = `organization ${org.id} ${path} ${segment}${currency ? ` in ${currency}` : ''}`;
        const query = { startDate: FROM, endDate: Y, statistics: ALL_MEASURES.join(','), currency };
        const rows = await all(path, { ...query, segments: segment }, plural, org.token);
        const whole = await all(path, query, plural, org.token);
        const platformOf = new Map(whole.map((w) => [String(w.id), w.adPlatformType]));
        // An account in another currency than one of its platform accounts converts per day.
        const platformCurrency = new Map(
          (
            await fx.sql<{ id: number; currency: string }>(
              path === 'accounts'
                ? `SELECT l.account_id AS id, CASE WHEN count(DISTINCT p.currency) = 1 THEN min(p.currency) END AS currency
                     FROM account_adplatform_links l JOIN adplatform_accounts p ON p.id = l.adplatform_account_id
                    WHERE p.organization_id = $1 GROUP BY 1`
                : `SELECT id, currency FROM adplatform_accounts WHERE organization_id = $1`,
              [org.id],
            )
          ).map((r) => [String(r.id), r.currency]),
        );
        if (segment === 'Age' && ![...platformOf.values()].includes('FACEBOOK')) {
          expect(rows, label).toEqual([]);
          continue;
        }
        expect(rows.length, label).toBeGreaterThan(0);
        for (const row of rows) expect(Object.keys(row.segments)).toEqual([key]);
        const perEntity = regroup(rows, (r) => String(r.id), ALL_MEASURES);
        const unsegmented = new Map(
          [...regroup(whole, (r) => String(r.id), ALL_MEASURES)].filter(
            ([id]) => segment !== 'Age' || platformOf.get(id) === 'FACEBOOK',
          ),
        );
        // Converted money: half a micro per row, each rounded after its conversion.
        const rowsOf = (id: string) => rows.filter((r) => String(r.id) === id).length;
        const converted =
          currency !== undefined || whole.some((w) => w.currency !== platformCurrency.get(String(w.id)));
        expect(
          differences(perEntity, unsegmented, ALL_MEASURES, label, (id) => (converted ? (rowsOf(id) + 1) / 2 : 0)),
        ).toEqual([]);
        if (path === 'adplatform-accounts') {
          const facts = await sqlSums('fact_ad_daily', 'adplatform_account_id', FROM, Y, ALL_MEASURES, org.id);
          const expected = new Map([...facts].filter(([id]) => unsegmented.has(id)));
          expect(differences(perEntity, expected, ALL_MEASURES, `${label} vs facts`)).toEqual([]);
        }
      }
  });
});

describe('the time zone of the hours', () => {
  it('ad platform account rows carry timeZone: the zone stored for the platform account, several per organization', async () => {
    const rows = await all('adplatform-accounts', { statistics: 'clicks' }, 'adPlatformAccounts');
    const stored = new Map(
      (
        await fx.sql<{ id: number | bigint; zone: string }>(
          'SELECT id, time_zone AS zone FROM adplatform_accounts WHERE organization_id = $1',
          [fx.orgs[0]!.id],
        )
      ).map((r) => [Number(r.id), r.zone]),
    );
    expect(rows.length).toBe(stored.size);
    for (const row of rows) expect(row.timeZone, String(row.id)).toBe(stored.get(row.id));
    expect(new Set(rows.map((r) => r.timeZone)).size).toBeGreaterThan(1);
    // A filter and a sort on it, as on the other fields.
    const zone = rows[0].timeZone as string;
    const filtered = await all(
      'adplatform-accounts',
      { statistics: 'clicks', filter: `timeZone == '${zone}'`, sort: 'timeZone' },
      'adPlatformAccounts',
    );
    expect(filtered.map((r) => r.id).sort()).toEqual(
      rows
        .filter((r) => r.timeZone === zone)
        .map((r) => r.id)
        .sort(),
    );
  });
});

describe('time breakdowns: metamorphic relations', () => {
  it('HourOfDay is Hour regrouped by its hour; the hours of a day sum to Day; Day,Hour is Hour with its day', async () => {
    const query = { startDate: FROM, endDate: Y, statistics: ALL_MEASURES.join(',') };
    const [hours, hoursOfDay, days, dayHours] = await Promise.all([
      all('campaigns', { ...query, segments: 'Hour' }),
      all('campaigns', { ...query, segments: 'HourOfDay' }),
      all('campaigns', { ...query, segments: 'Day' }),
      all('campaigns', { ...query, segments: 'Day,Hour' }),
    ]);
    const byHourOfDay = regroup(hours, (r) => `${r.id}|${Number(r.segments.hour.slice(11, 13))}`, ALL_MEASURES);
    expect(
      differences(
        regroup(hoursOfDay, (r) => `${r.id}|${r.segments.hourOfDay}`, ALL_MEASURES),
        byHourOfDay,
        ALL_MEASURES,
        'HourOfDay vs Hour',
      ),
    ).toEqual([]);
    expect(
      differences(
        regroup(days, (r) => `${r.id}|${r.segments.day}`, ALL_MEASURES),
        regroup(hours, (r) => `${r.id}|${r.segments.hour.slice(0, 10)}`, ALL_MEASURES),
        ALL_MEASURES,
        'Day vs hours',
      ),
    ).toEqual([]);
    expect(dayHours.length).toBe(hours.length);
    for (const row of dayHours) {
      expect(Object.keys(row.segments)).toEqual(['day', 'hour']);
      expect(row.segments.hour.slice(0, 10)).toBe(row.segments.day);
    }
    expect(
      differences(
        regroup(dayHours, (r) => `${r.id}|${r.segments.hour}`, ALL_MEASURES),
        regroup(hours, (r) => `${r.id}|${r.segments.hour}`, ALL_MEASURES),
        ALL_MEASURES,
        'Day,Hour vs Hour',
      ),
    ).toEqual([]);
    // Every day of the range has its 24 hours somewhere (the busiest campaigns run around the clock).
    const hoursSeen = new Set(hours.map((r) => r.segments.hour));
    expect(hoursSeen.size).toBe(10 * 24);
  });

  it('Hour with DeviceType and NetworkType regroups to the daily facts by device and network', async () => {
    const query = { startDate: addDays(Y, -2), endDate: Y, statistics: ALL_MEASURES.join(',') };
    const [hours, devices] = await Promise.all([
      all('campaigns', { ...query, segments: 'Hour,DeviceType,NetworkType' }),
      all('campaigns', { ...query, segments: 'DeviceType,NetworkType' }),
    ]);
    const key = (r: any) => `${r.id}|${r.segments.deviceType}|${r.segments.networkType}`;
    expect(hours.length).toBeGreaterThan(devices.length);
    for (const row of hours.filter((r) => r.adPlatformAccountType === 'FACEBOOK'))
      expect([row.segments.deviceType, row.segments.networkType]).toEqual(['UNKNOWN', 'SOCIAL']);
    expect(
      differences(regroup(hours, key, ALL_MEASURES), regroup(devices, key, ALL_MEASURES), ALL_MEASURES, 'devices'),
    ).toEqual([]);
  });

  it('two segments of one breakdown regroup to each: Age,Gender; PublisherPlatform,PlatformPosition; Country,Region (a region in its country)', async () => {
    const query = { startDate: FROM, endDate: Y, statistics: ALL_MEASURES.join(',') };
    for (const [pair, first, second] of [
      ['Age,Gender', 'age', 'gender'],
      ['PublisherPlatform,PlatformPosition', 'publisherPlatform', 'platformPosition'],
      ['Country,Region', 'country', 'region'],
    ] as const) {
      const [both, firstRows, secondRows] = await Promise.all([
        all('campaigns', { ...query, segments: pair }),
        all('campaigns', { ...query, segments: pair.split(',')[0] }),
        all('campaigns', { ...query, segments: pair.split(',')[1] }),
      ]);
      expect(both.length).toBeGreaterThan(firstRows.length);
      for (const row of both) expect(Object.keys(row.segments)).toEqual([first, second]);
      if (first === 'country')
        for (const row of both) expect(row.segments.region.slice(0, 3)).toBe(`${row.segments.country}-`);
      for (const [k, rows] of [
        [first, firstRows],
        [second, secondRows],
      ] as const) {
        const key = (r: any) => `${r.id}|${r.segments[k]}`;
        expect(
          differences(regroup(both, key, ALL_MEASURES), regroup(rows, key, ALL_MEASURES), ALL_MEASURES, `${pair} ${k}`),
        ).toEqual([]);
      }
    }
  });

  it('WeekSunday buckets start on Sundays, hold the days of their week within the range, and sum to the range (campaigns from rollups, keywords from facts)', async () => {
    // From a Wednesday: the first week starts on the Sunday before the range and holds its days from Wednesday on.
    let from = addDays(Y, -24);
    while (new Date(`${from}T00:00:00Z`).getUTCDay() !== 3) from = addDays(from, 1);
    for (const [path, plural] of [
      ['campaigns', 'campaigns'],
      ['keywords', 'keywords'],
    ] as const) {
      const query = { startDate: from, endDate: Y, statistics: ALL_MEASURES.join(',') };
      const [weeks, days, whole] = await Promise.all([
        all(path, { ...query, segments: 'WeekSunday' }, plural),
        all(path, { ...query, segments: 'Day' }, plural),
        all(path, query, plural),
      ]);
      expect(weeks.length, path).toBeGreaterThan(0);
      const sundays = new Set<string>();
      for (const row of weeks) {
        expect(Object.keys(row.segments)).toEqual(['weekSunday']);
        expect(new Date(`${row.segments.weekSunday}T00:00:00Z`).getUTCDay(), row.segments.weekSunday).toBe(0);
        sundays.add(row.segments.weekSunday);
      }
      expect([...sundays].sort()[0]).toBe(addDays(from, -3));
      const sundayOf = (day: string) => addDays(day, -new Date(`${day}T00:00:00Z`).getUTCDay());
      expect(
        differences(
          regroup(weeks, (r) => `${r.id}|${r.segments.weekSunday}`, ALL_MEASURES),
          regroup(days, (r) => `${r.id}|${sundayOf(r.segments.day)}`, ALL_MEASURES),
          ALL_MEASURES,
          `${path} WeekSunday vs Day`,
        ),
      ).toEqual([]);
      const active = regroup(weeks, (r) => String(r.id), ALL_MEASURES);
      expect(
        differences(
          active,
          new Map([...regroup(whole, (r) => String(r.id), ALL_MEASURES)].filter(([, s]) => !isZero(s))),
          ALL_MEASURES,
          `${path} WeekSunday vs range`,
        ),
      ).toEqual([]);
    }
    // With a breakdown: WeekSunday,Country regroups to Country.
    const query = { startDate: from, endDate: Y, statistics: ALL_MEASURES.join(',') };
    const [weekCountries, countries] = await Promise.all([
      all('campaigns', { ...query, segments: 'WeekSunday,Country' }),
      all('campaigns', { ...query, segments: 'Country' }),
    ]);
    const key = (r: any) => `${r.id}|${r.segments.country}`;
    expect(
      differences(
        regroup(weekCountries, key, ALL_MEASURES),
        regroup(countries, key, ALL_MEASURES),
        ALL_MEASURES,
        'WeekSunday,Country',
      ),
    ).toEqual([]);
  });
});

describe('compare with the time breakdowns', () => {
  /** Checks a compared answer against the two ranges' own answers, rows paired by `pair` (current key -> compared key). */
  function checkCompared(
    compared: any[],
    current: any[],
    previous: any[],
    key: (r: any) => string,
    toPrevious: (currentKey: string) => string,
    measures: readonly Measure[],
  ): void {
    const now = regroup(current, key, measures);
    const before = regroup(previous, key, measures);
    const rows = new Map(compared.map((r) => [key(r), r]));
    expect(rows.size, 'one row per campaign and bucket').toBe(compared.length);
    // Every bucket with figures in either range is a row.
    for (const k of now.keys()) expect(rows.has(k), `current ${k}`).toBe(true);
    const previousKeys = new Set([...rows.keys()].map(toPrevious));
    for (const [k, sums] of before) if (!isZero(sums)) expect(previousKeys.has(k), `compared ${k}`).toBe(true);
    const problems: string[] = [];
    for (const [k, row] of rows) {
      const own = sumsOf(row.statistics, measures);
      const theirs = sumsOf(row.comparison.statistics, measures);
      const want = now.get(k) ?? zeroOf(measures);
      const wantBefore = before.get(toPrevious(k)) ?? zeroOf(measures);
      for (const m of measures) {
        if (own[m] !== want[m]) problems.push(`${k} ${m}: ${own[m]} != ${want[m]}`);
        if (theirs[m] !== wantBefore[m]) problems.push(`${k} comparison ${m}: ${theirs[m]} != ${wantBefore[m]}`);
      }
    }
    expect(problems.slice(0, 20)).toEqual([]);
  }

  it('Hour with PREVIOUS_PERIOD pairs by position: the same hour of the day two days before', async () => {
    const from = addDays(Y, -1);
    const statistics = ALL_MEASURES.join(',');
    const [compared, current, previous] = await Promise.all([
      all('campaigns', { startDate: from, endDate: Y, segments: 'Hour', compare: 'PREVIOUS_PERIOD', statistics }),
      all('campaigns', { startDate: from, endDate: Y, segments: 'Hour', statistics }),
      all('campaigns', { startDate: addDays(Y, -3), endDate: addDays(Y, -2), segments: 'Hour', statistics }),
    ]);
    checkCompared(
      compared,
      current,
      previous,
      (r) => `${r.id}|${r.segments.hour}`,
      (k) => {
        const [id, hour] = k.split('|') as [string, string];
        return `${id}|${addDays(hour.slice(0, 10), -2)}${hour.slice(10)}`;
      },
      ALL_MEASURES,
    );
  });

  it('HourOfDay with PREVIOUS_PERIOD pairs by value', async () => {
    const from = addDays(Y, -2);
    const statistics = ALL_MEASURES.join(',');
    const [compared, current, previous] = await Promise.all([
      all('campaigns', { startDate: from, endDate: Y, segments: 'HourOfDay', compare: 'PREVIOUS_PERIOD', statistics }),
      all('campaigns', { startDate: from, endDate: Y, segments: 'HourOfDay', statistics }),
      all('campaigns', { startDate: addDays(Y, -5), endDate: addDays(Y, -3), segments: 'HourOfDay', statistics }),
    ]);
    checkCompared(
      compared,
      current,
      previous,
      (r) => `${r.id}|${r.segments.hourOfDay}`,
      (k) => k,
      ALL_MEASURES,
    );
  });

  it('WeekSunday with PREVIOUS_PERIOD over two Sunday weeks pairs week by week; ConversionAction pairs by value', async () => {
    let from = addDays(Y, -13);
    while (new Date(`${from}T00:00:00Z`).getUTCDay() !== 0) from = addDays(from, -1);
    const to = addDays(from, 13);
    const statistics = ALL_MEASURES.join(',');
    const [compared, current, previous] = await Promise.all([
      all('campaigns', {
        startDate: from,
        endDate: to,
        segments: 'WeekSunday',
        compare: 'PREVIOUS_PERIOD',
        statistics,
      }),
      all('campaigns', { startDate: from, endDate: to, segments: 'WeekSunday', statistics }),
      all('campaigns', {
        startDate: addDays(from, -14),
        endDate: addDays(from, -1),
        segments: 'WeekSunday',
        statistics,
      }),
    ]);
    checkCompared(
      compared,
      current,
      previous,
      (r) => `${r.id}|${r.segments.weekSunday}`,
      (k) => {
        const [id, sunday] = k.split('|') as [string, string];
        return `${id}|${addDays(sunday, -14)}`;
      },
      ALL_MEASURES,
    );
    const conversions = CONVERSION_MEASURES.join(',');
    const range = { startDate: FROM, endDate: Y, segments: 'ConversionAction', statistics: conversions };
    const [actions, nowActions, beforeActions] = await Promise.all([
      all('campaigns', { ...range, compare: 'PREVIOUS_PERIOD' }),
      all('campaigns', range),
      all('campaigns', { ...range, startDate: addDays(FROM, -10), endDate: addDays(FROM, -1) }),
    ]);
    checkCompared(
      actions,
      nowActions,
      beforeActions,
      (r) => `${r.id}|${r.segments.conversionAction}`,
      (k) => k,
      CONVERSION_MEASURES,
    );
  });
});

describe('filters on the fact rows of a breakdown', () => {
  const statistics = ALL_MEASURES.join(',');

  it('segments.hourOfDay >= 18: each campaign sums its evening hours, with and without the segment; on accounts too', async () => {
    const query = { startDate: FROM, endDate: Y, statistics };
    const [hours, evening, eveningHours, accountHours, accountEvening] = await Promise.all([
      all('campaigns', { ...query, segments: 'HourOfDay' }),
      all('campaigns', { ...query, filter: 'segments.hourOfDay >= 18' }),
      all('campaigns', { ...query, segments: 'HourOfDay', filter: 'segments.hourOfDay >= 18' }),
      all('accounts', { ...query, segments: 'HourOfDay' }, 'accounts'),
      all('accounts', { ...query, filter: 'segments.hourOfDay >= 18 && statistics.impressions >= 0' }, 'accounts'),
    ]);
    const late = hours.filter((r) => r.segments.hourOfDay >= 18);
    expect(late.length).toBeGreaterThan(0);
    expect(late.length).toBeLessThan(hours.length);
    expect(
      differences(
        regroup(evening, (r) => String(r.id), ALL_MEASURES),
        regroup(late, (r) => String(r.id), ALL_MEASURES),
        ALL_MEASURES,
        'hourOfDay >= 18',
      ),
    ).toEqual([]);
    expect(eveningHours).toEqual(late);
    const accountLate = accountHours.filter((r) => r.segments.hourOfDay >= 18);
    expect(accountLate.length).toBeGreaterThan(0);
    expect(
      differences(
        regroup(accountEvening, (r) => String(r.id), ALL_MEASURES),
        regroup(accountLate, (r) => String(r.id), ALL_MEASURES),
        ALL_MEASURES,
        'accounts hourOfDay >= 18',
      ),
    ).toEqual([]);
  });

  it('segments.country == "DE" sums the German buckets; with Region only German regions remain', async () => {
    // The second organization's platform accounts have their home market in Germany.
    const second = fx.orgs[1]!.token;
    const query = { startDate: FROM, endDate: Y, statistics };
    const [countries, german, regions] = await Promise.all([
      all('campaigns', { ...query, segments: 'Country' }, 'campaigns', second),
      all('campaigns', { ...query, filter: 'segments.country == "DE"' }, 'campaigns', second),
      all('campaigns', { ...query, segments: 'Region', filter: 'segments.country == "DE"' }, 'campaigns', second),
    ]);
    const de = countries.filter((r) => r.segments.country === 'DE');
    expect(de.length).toBeGreaterThan(0);
    expect(de.length).toBeLessThan(countries.length);
    expect(
      differences(
        regroup(german, (r) => String(r.id), ALL_MEASURES),
        regroup(de, (r) => String(r.id), ALL_MEASURES),
        ALL_MEASURES,
        'country == DE',
      ),
    ).toEqual([]);
    expect(regions.length).toBeGreaterThan(0);
    for (const row of regions) expect(row.segments.region).toMatch(/^DE-/);
    expect(
      differences(
        regroup(regions, (r) => String(r.id), ALL_MEASURES),
        regroup(de, (r) => String(r.id), ALL_MEASURES),
        ALL_MEASURES,
        'DE regions',
      ),
    ).toEqual([]);
  });

  it('segments.age == "25-34" sums that age group of FACEBOOK campaigns; every other campaign is left with zeros', async () => {
    const query = { startDate: FROM, endDate: Y, statistics };
    const [ages, filtered, whole] = await Promise.all([
      all('campaigns', { ...query, segments: 'Age' }),
      all('campaigns', { ...query, filter: 'segments.age == "25-34"' }),
      all('campaigns', query),
    ]);
    const young = ages.filter((r) => r.segments.age === '25-34');
    expect(young.length).toBeGreaterThan(0);
    // Without segments every campaign stays a row (supplement 5), those without the bucket with zeros.
    expect(filtered.map((r) => r.id).sort()).toEqual(whole.map((r) => r.id).sort());
    expect(
      differences(
        regroup(filtered, (r) => String(r.id), ALL_MEASURES),
        regroup(young, (r) => String(r.id), ALL_MEASURES),
        ALL_MEASURES,
        'age == 25-34',
      ),
    ).toEqual([]);
    for (const row of filtered.filter((r) => r.adPlatformAccountType !== 'FACEBOOK'))
      expect(isZero(sumsOf(row.statistics, ALL_MEASURES)), `${row.id}`).toBe(true);
  });

  it('segments.deviceType on hours, and segments.conversionAction on conversions, filter the fact rows of that breakdown', async () => {
    const query = { startDate: addDays(Y, -2), endDate: Y, statistics };
    const [byDevice, mobile] = await Promise.all([
      all('campaigns', { ...query, segments: 'Hour,DeviceType' }),
      all('campaigns', { ...query, segments: 'Hour', filter: 'segments.deviceType == "MOBILE"' }),
    ]);
    const key = (r: any) => `${r.id}|${r.segments.hour}`;
    const mobileRows = byDevice.filter((r) => r.segments.deviceType === 'MOBILE');
    expect(mobileRows.length).toBeGreaterThan(0);
    expect(
      differences(
        regroup(mobile, key, ALL_MEASURES),
        regroup(mobileRows, key, ALL_MEASURES),
        ALL_MEASURES,
        'MOBILE hours',
      ),
    ).toEqual([]);
    const conversions = CONVERSION_MEASURES.join(',');
    const [actions, purchases] = await Promise.all([
      all('campaigns', { startDate: FROM, endDate: Y, statistics: conversions, segments: 'ConversionAction' }),
      all('campaigns', {
        startDate: FROM,
        endDate: Y,
        statistics: conversions,
        filter: "segments.conversionAction in ['Purchase', 'Lead']",
      }),
    ]);
    const chosen = actions.filter((r) => ['Purchase', 'Lead'].includes(r.segments.conversionAction));
    expect(chosen.length).toBeGreaterThan(0);
    expect(chosen.length).toBeLessThan(actions.length);
    expect(
      differences(
        regroup(purchases, (r) => String(r.id), CONVERSION_MEASURES),
        regroup(chosen, (r) => String(r.id), CONVERSION_MEASURES),
        CONVERSION_MEASURES,
        'Purchase, Lead',
      ),
    ).toEqual([]);
  });

  it('a bucket filter and a sort on a requested breakdown segment', async () => {
    const query = { startDate: Y, endDate: Y, statistics };
    const hours = await all('campaigns', { ...query, segments: 'Hour' });
    const afternoon = await all('campaigns', {
      ...query,
      segments: 'Hour',
      filter: `segments.hour >= "${Y}T12:00" && segments.hour < "${Y}T18:00"`,
    });
    expect(afternoon.length).toBeGreaterThan(0);
    expect(afternoon).toEqual(hours.filter((r) => r.segments.hour >= `${Y}T12:00` && r.segments.hour < `${Y}T18:00`));
    const sorted = await all('campaigns', { ...query, segments: 'HourOfDay', sort: '-segments.hourOfDay' });
    expect(sorted.length).toBe(hours.length);
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i - 1].segments.hourOfDay >= sorted[i].segments.hourOfDay, `${i}`).toBe(true);
  });
});

describe('exports and segment totals with a breakdown', () => {
  it('format=csv and format=ndjson hold the JSON rows (Hour, Country, ConversionAction)', async () => {
    for (const [segments, key, statistics] of [
      ['Hour', 'hour', ALL_MEASURES.join(',')],
      ['Country', 'country', ALL_MEASURES.join(',')],
      ['ConversionAction', 'conversionAction', CONVERSION_MEASURES.join(',')],
    ] as const) {
      const query = { startDate: addDays(Y, -1), endDate: Y, segments, statistics };
      const rows = await all('campaigns', query);
      expect(rows.length).toBeGreaterThan(0);
      const ndjson = await fx.report('campaigns', token, { ...query, format: 'ndjson' });
      expect(ndjson.status, ndjson.text.slice(0, 300)).toBe(200);
      const lines = ndjson.text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l));
      expect(lines).toEqual(rows);
      const csv = await fx.report('campaigns', token, { ...query, format: 'csv' });
      expect(csv.status, csv.text.slice(0, 300)).toBe(200);
      const records = parse(csv.text, { columns: true }) as Record<string, string>[];
      expect(records.length).toBe(rows.length);
      expect(Object.keys(records[0]!)).toContain(`segments.${key}`);
      records.forEach((record, i) => {
        const row = rows[i];
        expect(Number(record.id)).toBe(row.id);
        expect(record[`segments.${key}`]).toBe(String(row.segments[key]));
        for (const m of statistics.split(','))
          expect(Number(record[`statistics.${m}`]), `${i} ${m}`).toBe(row.statistics[m]);
      });
    }
  });

  it('totals=segments: the totals of each Country and HourOfDay bucket are the sums of its rows', async () => {
    for (const [segments, key] of [
      ['Country', 'country'],
      ['HourOfDay', 'hourOfDay'],
    ] as const) {
      // One currency (EUR) for every row, so money totals are not null.
      const query = { startDate: FROM, endDate: Y, statistics: 'impressions,clicks', segments };
      const res = await fx.report('campaigns', token, { ...query, totals: 'segments', limit: 1 });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const rows = await all('campaigns', query);
      const expected = regroup(rows, (r) => String(r.segments[key]), ['impressions', 'clicks']);
      const totals = new Map<string, Sums>(
        (res.json.segmentTotals as any[]).map((t) => [
          String(t.segments[key]),
          { impressions: t.impressions, clicks: t.clicks },
        ]),
      );
      expect(totals.size).toBeGreaterThan(1);
      expect(differences(totals, expected, ['impressions', 'clicks'], `${segments} totals`)).toEqual([]);
      const whole = regroup(rows, () => 'all', ['impressions', 'clicks']).get('all')!;
      expect([res.json.totals.impressions, res.json.totals.clicks]).toEqual([whole.impressions, whole.clicks]);
    }
  });

  it('totals=segments with compare: the comparison totals of each HourOfDay bucket are the sums of the comparisons of its rows', async () => {
    const query = {
      startDate: addDays(Y, -1),
      endDate: Y,
      statistics: 'impressions,clicks',
      segments: 'HourOfDay',
      compare: 'PREVIOUS_PERIOD',
    };
    const res = await fx.report('campaigns', token, { ...query, totals: 'segments', limit: 1 });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const rows = await all('campaigns', query);
    const measures = ['impressions', 'clicks'] as const;
    const key = (r: any) => String(r.segments.hourOfDay);
    const own = regroup(rows, key, measures);
    const compared = regroup(
      rows.map((r) => ({ ...r, statistics: r.comparison.statistics })),
      key,
      measures,
    );
    const totals = res.json.segmentTotals as any[];
    expect(totals.length).toBe(24);
    expect(
      differences(
        new Map(totals.map((t) => [key(t), { impressions: t.impressions, clicks: t.clicks }])),
        own,
        measures,
        'segment totals',
      ),
    ).toEqual([]);
    expect(
      differences(
        new Map(totals.map((t) => [key(t), { impressions: t.comparison.impressions, clicks: t.comparison.clicks }])),
        compared,
        measures,
        'compared segment totals',
      ),
    ).toEqual([]);
  });

  it('a report job with a breakdown writes the rows of the GET (ndjson)', async () => {
    const query = { startDate: addDays(Y, -1), endDate: Y, segments: 'Country', statistics: 'clicks,cost' };
    const created = await fx.json('POST', '/reporting/v0/report-jobs', token, {
      reportJob: { endpoint: 'campaigns', query, format: 'ndjson' },
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
    const rows = await all('campaigns', query);
    expect(rows.length).toBeGreaterThan(0);
    expect(lines).toEqual(rows);
    expect(job.rows).toBe(rows.length);
  });
});

describe('a statistics sync through the sandbox writes the breakdowns of the days it writes', () => {
  let server: TestServer;
  let clockOffset = 0;
  let stoppedAt: number | undefined;
  const now = () => new Date((stoppedAt ?? Date.now()) + clockOffset);
  const DAY = 86_400_000;

  const read = <T extends object>(sql: string, params: readonly SqlValue[] = []) =>
    server.service.db.read((r) => r.all<T>(sql, params));

  /**
   * Per breakdown table, the (campaign, day[, device, network]) cells whose buckets do not sum to
   * fact_ad_daily (plain SQL over the facts, not the rollup), and the cells with figures but no
   * buckets, over the days [from, to].
   */
  async function breakdownMismatches(from: string, to: string): Promise<Record<string, unknown>[]> {
    const measures = ['impressions', 'clicks', 'cost', 'conversions', 'conversion_value', 'calls'];
    const checks = [
      { table: 'fact_campaign_hourly', cell: 'day, campaign_id, device, network', measures, facebookOnly: false },
      { table: 'fact_campaign_audience_daily', cell: 'day, campaign_id', measures, facebookOnly: true },
      { table: 'fact_campaign_placement_daily', cell: 'day, campaign_id', measures, facebookOnly: true },
      { table: 'fact_campaign_geo_daily', cell: 'day, campaign_id', measures, facebookOnly: false },
      {
        table: 'fact_campaign_conversion_action_daily',
        cell: 'day, campaign_id',
        measures: ['conversions', 'conversion_value'],
        facebookOnly: false,
      },
    ];
    const out: Record<string, unknown>[] = [];
    for (const check of checks) {
      const sums = check.measures.map((m) => `sum(${m})::DECIMAL(38,6) AS ${m}`).join(', ');
      const platform = check.facebookOnly
        ? `AND adplatform_account_id IN (SELECT id FROM adplatform_accounts WHERE ad_platform_type = 'FACEBOOK')`
        : '';
      const facts = `SELECT ${check.cell}, ${sums} FROM fact_ad_daily WHERE day BETWEEN $1::DATE AND $2::DATE ${platform} GROUP BY ${check.cell}
                     HAVING ${check.measures.map((m) => `sum(${m}) <> 0`).join(' OR ')}`;
      const buckets = `SELECT ${check.cell}, ${sums} FROM ${check.table} WHERE day BETWEEN $1::DATE AND $2::DATE GROUP BY ${check.cell}`;
      const [row] = await read<{ missing: number; extra: number; cells: number }>(
        `SELECT (SELECT count(*) FROM ((${facts}) EXCEPT ALL (${buckets})))::INTEGER AS missing,
                (SELECT count(*) FROM ((${buckets}) EXCEPT ALL (${facts})))::INTEGER AS extra,
                (SELECT count(*) FROM (${buckets}))::INTEGER AS cells`,
        [from, to],
      );
      out.push({ table: check.table, ...row });
    }
    return out;
  }

  /** Row counts and exact sums of every breakdown table: equal means unchanged. */
  async function breakdownFingerprint(): Promise<unknown> {
    return read(
      [
        'fact_campaign_hourly',
        'fact_campaign_audience_daily',
        'fact_campaign_placement_daily',
        'fact_campaign_geo_daily',
        'fact_campaign_conversion_action_daily',
      ]
        .map(
          (t) =>
            `SELECT '${t}' AS t, count(*)::INTEGER AS n, sum(impressions)::VARCHAR AS impressions, sum(cost)::VARCHAR AS cost,
                    sum(conversions)::VARCHAR AS conversions, min(day)::VARCHAR AS first, max(day)::VARCHAR AS last FROM ${t}`,
        )
        .join(' UNION ALL ') + ' ORDER BY t',
    );
  }

  async function syncNow(): Promise<void> {
    const jobs = await queueTrailingSyncs(server.service.db, server.service.jobs, now(), 20, 1);
    expect(jobs.length).toBe(2);
    const fresh = await server.token();
    for (const job of jobs)
      expect((await waitForJob(server, fresh, job.id, undefined, 60_000)).status).toBe('SUCCEEDED');
  }

  beforeAll(async () => {
    server = await startTestServer(
      {
        rateLimit: { ratePerSecond: 10_000, burst: 10_000, dbTimeMsPerSecond: 0 },
        jobs: { backoffBaseMs: 10, maxBackoffMs: 50, pollMs: 50 },
        statistics: { backfillDays: 30, trailingDays: 20 },
      },
      { nowMs: () => now().getTime() },
    );
    const own = await server.token();
    const auth = { authorization: `Bearer ${own}` };
    // A Google Ads account under the demo manager, and a FACEBOOK ad account linked directly.
    const google = await linkedGoogleAccount(server, own, 'Breakdown sync');
    const account = await createAccount(server, own, { name: 'Breakdown sync social' });
    const facebookId = (
      await server.http.get('/provisioning/v0/adplatform-accounts/available?adPlatformType=FACEBOOK', auth)
    ).json.adPlatformAccounts[0].adPlatformId as string;
    const linked = await jsonRequest(
      server,
      own,
      'POST',
      `/provisioning/v0/accounts/id/${account.id}/adplatform-accounts`,
      {
        adPlatformAccount: { adPlatformType: 'FACEBOOK', adPlatformId: facebookId },
      },
    );
    expect(linked.status, linked.text).toBe(201);
    // Importing one campaign of each through the API queues its backfill (a SYNC_STATISTICS job).
    for (const platformAccountId of [google.platformAccountId, linked.json.adPlatformAccount.id as number]) {
      const available = await server.http.get(
        `/provisioning/v0/adplatform-accounts/id/${platformAccountId}/available-campaigns`,
        auth,
      );
      const imported = await jsonRequest(
        server,
        own,
        'POST',
        `/provisioning/v0/adplatform-accounts/id/${platformAccountId}/campaigns`,
        {
          campaign: { adPlatformId: available.json.campaigns[0].adPlatformId, campaignGroup: 'Breakdowns' },
        },
      );
      expect(imported.status, imported.text).toBe(202);
      const job = await waitForJob(server, own, imported.json.job.id);
      expect(job.status).toBe('SUCCEEDED');
    }
    // Each import's backfill, polled until both have ended.
    const backfills = await poll('the backfills of both imports', async () => {
      const jobs = (await server.http.get('/provisioning/v0/jobs?type=SYNC_STATISTICS', auth)).json.jobs as any[];
      const ended = jobs.filter((j) => ['SUCCEEDED', 'FAILED', 'PARTIALLY_SUCCEEDED'].includes(j.status));
      return jobs.length >= 2 && ended.length === jobs.length ? jobs : undefined;
    });
    expect(backfills.map((j) => j.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the backfill of an import writes buckets that sum to the synced facts, on both platforms', async () => {
    const to = isoDate(now());
    const from = addDays(to, -30);
    const platforms = await read<{ platform: string; days: number }>(
      `SELECT p.ad_platform_type::VARCHAR AS platform, count(DISTINCT f.day)::INTEGER AS days
         FROM fact_ad_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id GROUP BY 1 ORDER BY 1`,
    );
    expect(platforms.map((p) => p.platform)).toEqual(['FACEBOOK', 'GOOGLE_ADS']);
    for (const p of platforms) expect(p.days, p.platform).toBeGreaterThan(20);
    for (const check of await breakdownMismatches(from, to)) {
      expect(check.cells, String(check.table)).toBeGreaterThan(0);
      expect([check.missing, check.extra], String(check.table)).toEqual([0, 0]);
    }
    // And the API answers them: the synced campaigns' hours sum to their days.
    const reporting = { authorization: `Bearer ${await server.token()}` };
    const q = `startDate=${addDays(to, -7)}&endDate=${addDays(to, -1)}&statistics=impressions,clicks,cost`;
    const hours = (await server.http.get(`/reporting/v0/campaigns?${q}&segments=Hour&limit=10000`, reporting)).json
      .campaigns as any[];
    const days = (await server.http.get(`/reporting/v0/campaigns?${q}&segments=Day&limit=10000`, reporting)).json
      .campaigns as any[];
    expect(hours.length).toBeGreaterThan(days.length);
    const m = ['impressions', 'clicks', 'cost'] as const;
    expect(
      differences(
        regroup(hours, (r) => `${r.id}|${r.segments.hour.slice(0, 10)}`, m),
        regroup(days, (r) => `${r.id}|${r.segments.day}`, m),
        m,
        'synced hours vs days',
      ),
    ).toEqual([]);
  });

  it('a second sync of the same window leaves the breakdowns unchanged (nothing counted twice)', async () => {
    stoppedAt = Date.now();
    try {
      await syncNow();
      const first = await breakdownFingerprint();
      await syncNow();
      expect(await breakdownFingerprint()).toEqual(first);
      const to = isoDate(now());
      for (const check of await breakdownMismatches(addDays(to, -30), to))
        expect([check.missing, check.extra], String(check.table)).toEqual([0, 0]);
    } finally {
      stoppedAt = undefined;
    }
  });

  it('a sync 170 days later drops the hours beyond the retention and keeps the other breakdowns', async () => {
    clockOffset += 170 * DAY;
    try {
      const before = await read<{ t: string; first: string }>(
        `SELECT 'geo' AS t, min(day)::VARCHAR AS first FROM fact_campaign_geo_daily`,
      );
      const keptFrom = addDays(isoDate(now()), -180);
      // The months whose hours the sync drops get a new version, so a ClickHouse replica copies them again.
      const versionsOf = () =>
        read<{ month: string; version: number }>(
          `SELECT v.month::VARCHAR AS month, v.version::INTEGER AS version FROM fact_partition_versions v
            WHERE v.month IN (SELECT DISTINCT date_trunc('month', day)::DATE FROM fact_campaign_hourly WHERE day < $1::DATE)
            ORDER BY 1`,
          [keptFrom],
        );
      const expiring = await versionsOf();
      expect(expiring.length).toBeGreaterThan(0);
      await syncNow();
      const after = new Map(
        (
          await read<{ month: string; version: number }>(
            `SELECT month::VARCHAR AS month, version::INTEGER AS version FROM fact_partition_versions`,
          )
        ).map((v) => [v.month, v.version]),
      );
      for (const { month, version } of expiring) expect(after.get(month), month).toBeGreaterThan(version);
      const [hours] = await read<{ first: string; old: number }>(
        `SELECT min(day)::VARCHAR AS first, count(*) FILTER (WHERE day < $1::DATE)::INTEGER AS old FROM fact_campaign_hourly`,
        [keptFrom],
      );
      expect(hours!.old).toBe(0);
      expect(hours!.first >= keptFrom).toBe(true);
      expect(await read(`SELECT 'geo' AS t, min(day)::VARCHAR AS first FROM fact_campaign_geo_daily`)).toEqual(before);
      // The days synced now have their buckets, hours included.
      const to = isoDate(now());
      for (const check of await breakdownMismatches(addDays(to, -20), to))
        expect([check.cells === 0, check.missing, check.extra], String(check.table)).toEqual([false, 0, 0]);
      // And a report of hours before the retention is refused at the moved clock.
      const reporting = { authorization: `Bearer ${await server.token()}` };
      const refused = await server.http.get(
        `/reporting/v0/campaigns?startDate=${addDays(keptFrom, -1)}&endDate=${to}&segments=Hour`,
        reporting,
      );
      expect(refused.status).toBe(400);
      expect(refused.json.error.details[0]).toMatchObject({ field: 'startDate', code: 'outside_retention' });
    } finally {
      clockOffset -= 170 * DAY;
    }
  });
});
