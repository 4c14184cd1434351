import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  audienceRuns,
  bucketAt,
  bucketCount,
  bucketPosition,
  changeClose,
  changeOf,
  compareRowProblems,
  entitiesOf,
  factDaily,
  pairBuckets,
  rowKey,
  SEGMENT_KEY,
  SUMS,
  TIME_SEGMENTS,
  unionLength,
  type PairedBucket,
  type Period,
  type Run,
  type SegmentName,
} from '../helpers/period-oracle.js';
import {
  addDays,
  approx,
  encodeQuery,
  fetchAll,
  LEVELS,
  mondayOf,
  startReportingFixture,
  type Level,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';
import { LEAP_YEAR, WORLDS } from '../helpers/worlds.js';

/**
 * Period comparison (issue 23 item 2, contract C): `compare=PREVIOUS_PERIOD|PREVIOUS_YEAR|a..b`.
 * Three ways to know the answer without the service's compiler:
 * - an oracle: plain SQL sums per entity, day and device over the fact tables (accounts
 *   converted per day with fx_rates), audience runs unioned in JS, paired here by entity, by
 *   the position of time buckets and by the value of DeviceType;
 * - metamorphic: a compared report equals two separate reports, one over each range;
 * - by hand: the compared ranges of PREVIOUS_PERIOD and PREVIOUS_YEAR (29 February too).
 * The generated database reaches back past the last 29 February that has a year of data after
 * it, so PREVIOUS_YEAR compares real figures.
 */

/** The last leap year of the world since-leap (its data starts on its 1st of February). */
const LEAP = LEAP_YEAR;
const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000;
/** Data from the 1st of February of LEAP (at least 800 days). */
const DAYS = WORLDS['since-leap'].days;

let fx: ReportingFixture;
let Y: string;
/** The first generated day. */
let S: string;

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'since-leap' });
  Y = fx.yesterday;
  S = addDays(Y, -(DAYS - 1));
}, 360_000);
afterAll(async () => {
  await fx?.close();
});

const level = (path: Level['path']) => LEVELS.find((l) => l.path === path)!;

/** PREVIOUS_YEAR of a day: one calendar year earlier, 29 February -> 28 February. */
function previousYear(day: string): string {
  const year = Number(day.slice(0, 4)) - 1;
  const md = day.slice(5);
  return md === '02-29' ? `${year}-02-28` : `${year}-${md}`;
}
function previousPeriod(p: Period): Period {
  const n = daysBetween(p.from, p.to) + 1;
  return { from: addDays(p.from, -n), to: addDays(p.from, -1) };
}

const NINE = [
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
const WIDE = [
  ...NINE,
  'calls',
  'callConversions',
  'callConversionsFractional',
  'totalConversions',
  'averageCpm',
  'roas',
];
/** Statistics that are sums: 0 in a bucket without figures; the others (ratios) null. */
const SUM_STATS = new Set<string>([...SUMS, 'totalConversions', 'reach']);
const zeroStat = (name: string) => (SUM_STATS.has(name) ? 0 : null);

/** GET with the raw body bytes (the text client would mangle Parquet). */
function rawBytes(
  target: string,
  token: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(fx.service.url);
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: url.hostname,
        port: url.port,
        path: target,
        headers: { authorization: `Bearer ${token}` },
        ca: fx.service.tls?.cert,
        servername: 'localhost',
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** A Parquet file's columns and rows, read by an in-memory DuckDB of the test's own. */
async function readParquet(
  bytes: Buffer,
): Promise<{ columns: Array<{ name: string; type: string }>; rows: Array<Record<string, unknown>> }> {
  const file = path.join(fx.dir, `compare-${Date.now()}.parquet`);
  fs.writeFileSync(file, bytes);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const quoted = `'${file.replaceAll("'", "''")}'`;
    const described = (
      await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quoted})`)
    ).getRowObjectsJS();
    const rows = (await connection.runAndReadAll(`SELECT * FROM read_parquet(${quoted})`)).getRowObjectsJS();
    return { columns: described.map((c) => ({ name: String(c.column_name), type: String(c.column_type) })), rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
    fs.rmSync(file, { force: true });
  }
}

function envelopeOk(res: { status: number; json: any; text: string }): void {
  expect(res.json?.error, res.text.slice(0, 300)).toBeDefined();
  const error = res.json.error;
  expect(error.status).toBe(res.status);
  expect(typeof error.code).toBe('string');
  expect(typeof error.message).toBe('string');
  expect(Array.isArray(error.details)).toBe(true);
  expect(typeof error.requestId).toBe('string');
}

// ---------------------------------------------------------------------------------------------
// The oracle

interface OracleCase {
  readonly path: Level['path'];
  readonly org: number;
  readonly current: Period;
  readonly compared: Period;
  readonly compare: string;
  readonly segments?: readonly SegmentName[];
  readonly statistics?: readonly string[];
  readonly currency?: string;
}

async function oracle(c: OracleCase): Promise<{ rows: any[]; expected: PairedBucket[]; totals: any }> {
  const lv = level(c.path);
  const org = fx.orgs[c.org]!;
  const segments = c.segments ?? [];
  const statistics = c.statistics ?? NINE;
  const query: QueryInput = {
    startDate: c.current.from,
    endDate: c.current.to,
    compare: c.compare,
    statistics: statistics.join(','),
    segments: segments.length > 0 ? segments.join(',') : undefined,
    currency: c.currency,
    totals: 'true',
  };
  const { rows, total, totals } = await fetchAll(fx, lv.path, org.token, query, lv.plural);
  const options = { currency: c.currency };
  const [current, compared, entities] = await Promise.all([
    factDaily(fx, lv, org.id, c.current.from, c.current.to, options),
    factDaily(fx, lv, org.id, c.compared.from, c.compared.to, options),
    entitiesOf(fx, lv, org.id),
  ]);
  const expected = pairBuckets(
    current,
    compared,
    segments,
    { current: c.current, compared: c.compared },
    { byEntity: true, entityIds: entities.map((e) => e.id) },
  );
  expect(total, 'X-TotalCount').toBe(expected.length);
  expect(compareRowProblems(rows, expected, statistics)).toEqual([]);
  return { rows, expected, totals };
}

describe('compare against plain SQL over the facts', () => {
  it('campaigns without segments, an explicit range, both organizations (every campaign a row)', async () => {
    const current = { from: addDays(Y, -13), to: Y };
    const compared = { from: addDays(Y, -48), to: addDays(Y, -35) };
    for (const org of [0, 1])
      await oracle({ path: 'campaigns', org, current, compared, compare: `${compared.from}..${compared.to}` });
  });

  it('campaigns per Day, PREVIOUS_PERIOD: the i-th day with the i-th day of the ten days before', async () => {
    const current = { from: addDays(Y, -9), to: Y };
    const { rows } = await oracle({
      path: 'campaigns',
      org: 0,
      current,
      compared: previousPeriod(current),
      compare: 'PREVIOUS_PERIOD',
      segments: ['Day'],
      statistics: WIDE,
    });
    expect(rows.length).toBeGreaterThan(50);
  });

  it('campaigns per DeviceType, PREVIOUS_YEAR (devices pair by value; campaigns started since have null changes)', async () => {
    const current = { from: addDays(Y, -20), to: Y };
    const { rows } = await oracle({
      path: 'campaigns',
      org: 0,
      current,
      compared: { from: previousYear(current.from), to: previousYear(current.to) },
      compare: 'PREVIOUS_YEAR',
      segments: ['DeviceType'],
    });
    expect(rows.some((r) => r.change.statistics.clicks === null && r.statistics.clicks > 0)).toBe(true);
  });

  it('campaigns per Month, PREVIOUS_YEAR: a month with the same month a year before', async () => {
    const first = `${addDays(`${Y.slice(0, 7)}-01`, -70).slice(0, 7)}-01`;
    const current = { from: first, to: Y };
    await oracle({
      path: 'campaigns',
      org: 1,
      current,
      compared: { from: previousYear(current.from), to: previousYear(current.to) },
      compare: 'PREVIOUS_YEAR',
      segments: ['Month'],
    });
  });

  it('adgroups per Day and DeviceType, an explicit range a year and a bit back', async () => {
    const current = { from: addDays(Y, -4), to: Y };
    const compared = { from: addDays(Y, -380), to: addDays(Y, -376) };
    await oracle({
      path: 'adgroups',
      org: 0,
      current,
      compared,
      compare: `${compared.from}..${compared.to}`,
      segments: ['Day', 'DeviceType'],
    });
  });

  it('keywords without segments, PREVIOUS_PERIOD over a week', async () => {
    const current = { from: addDays(Y, -6), to: Y };
    await oracle({ path: 'keywords', org: 1, current, compared: previousPeriod(current), compare: 'PREVIOUS_PERIOD' });
  });

  it('accounts (money converted per day in both periods), without segments and per Day, PREVIOUS_YEAR', async () => {
    const current = { from: addDays(Y, -15), to: Y };
    const compared = { from: previousYear(current.from), to: previousYear(current.to) };
    for (const org of [0, 1]) {
      await oracle({ path: 'accounts', org, current, compared, compare: 'PREVIOUS_YEAR', statistics: WIDE });
      await oracle({ path: 'accounts', org, current, compared, compare: 'PREVIOUS_YEAR', segments: ['Day'] });
    }
  });

  it('accounts with currency=USD per Day, PREVIOUS_YEAR', async () => {
    const current = { from: addDays(Y, -6), to: Y };
    await oracle({
      path: 'accounts',
      org: 0,
      current,
      compared: { from: previousYear(current.from), to: previousYear(current.to) },
      compare: 'PREVIOUS_YEAR',
      segments: ['Day'],
      currency: 'USD',
    });
  });

  it("campaigns with currency=USD: both periods converted at their own days' rates", async () => {
    const current = { from: addDays(Y, -6), to: Y };
    const compared = { from: addDays(Y, -300), to: addDays(Y, -294) };
    await oracle({
      path: 'campaigns',
      org: 0,
      current,
      compared,
      compare: `${compared.from}..${compared.to}`,
      currency: 'USD',
    });
  });

  it('totals=true: totals.comparison and totals.change over every row of both periods (money null over two currencies)', async () => {
    const current = { from: addDays(Y, -13), to: Y };
    const compared = previousPeriod(current);
    for (const org of [0, 1]) {
      const { expected, totals } = await oracle({
        path: 'campaigns',
        org,
        current,
        compared,
        compare: 'PREVIOUS_PERIOD',
        statistics: WIDE,
      });
      const entities = await entitiesOf(fx, level('campaigns'), fx.orgs[org]!.id);
      const mixed = new Set(entities.map((e) => e.currency)).size > 1;
      expect(mixed).toBe(org === 0);
      const all: PairedBucket = {
        ...expected[0]!,
        id: null,
        current: sumOf(expected.map((b) => b.current)),
        compared: sumOf(expected.map((b) => b.compared)),
      };
      expect(totals.currency).toBe(mixed ? null : entities[0]!.currency);
      expect(
        compareRowProblems([{ ...totals, id: null }], [all], WIDE, { flat: true, moneyNull: () => mixed }),
      ).toEqual([]);
    }
  });
});

function sumOf(list: readonly PairedBucket['current'][]): PairedBucket['current'] {
  const out = Object.fromEntries(SUMS.map((k) => [k, 0])) as PairedBucket['current'];
  for (const s of list) for (const k of SUMS) out[k] += s[k];
  return out;
}

// ---------------------------------------------------------------------------------------------
// compare=a..b is two separate requests

/** Same number as a separate request gave (money rounded to micros either way). */
function same(a: unknown, b: unknown): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  return typeof a === 'number' && typeof b === 'number' && approx(a, b, 1e-9, 1.01e-6);
}

const positionOfValue = (segment: SegmentName, from: string, value: string) =>
  bucketPosition(segment, from, segment === 'Month' ? `${value}-01` : segment === 'Year' ? `${value}-01-01` : value);
/** The i-th bucket's value as the API shows it (years are numbers). */
const shownAt = (segment: SegmentName, from: string, position: number) =>
  segment === 'Year' ? Number(bucketAt(segment, from, position)) : bucketAt(segment, from, position);

interface Separate {
  readonly path: string;
  readonly plural: string;
  readonly org: number;
  readonly current: Period;
  readonly compared: Period;
  readonly compare: string;
  readonly segments?: readonly SegmentName[];
  readonly statistics: readonly string[];
  readonly query?: QueryInput;
  readonly formulas?: readonly string[];
}

/**
 * The compared report, the report over the range and the report over the compared range; the
 * compared report's rows must be the union of the two by pairing key, with each side's figures.
 */
async function separately(c: Separate): Promise<{ rows: any[]; problems: string[]; totals: any }> {
  const org = fx.orgs[c.org]!;
  const segments = c.segments ?? [];
  const base: QueryInput = {
    ...c.query,
    statistics: c.statistics.join(','),
    segments: segments.length > 0 ? segments.join(',') : undefined,
    formulas: c.formulas,
    totals: 'true',
  };
  const range = (p: Period) => ({ startDate: p.from, endDate: p.to });
  const [both, cur, cmp] = await Promise.all([
    fetchAll(fx, c.path, org.token, { ...base, ...range(c.current), compare: c.compare }, c.plural),
    fetchAll(fx, c.path, org.token, { ...base, ...range(c.current) }, c.plural),
    fetchAll(fx, c.path, org.token, { ...base, ...range(c.compared) }, c.plural),
  ]);
  const TIME = TIME_SEGMENTS;
  const keyOf = (row: any, period: Period) =>
    [
      row.id,
      JSON.stringify(row.campaignLabel?.value ?? null),
      ...segments.map((s) =>
        TIME.has(s)
          ? positionOfValue(s, period.from, String(row.segments[SEGMENT_KEY[s]]))
          : row.segments[SEGMENT_KEY[s]],
      ),
    ].join('|');
  interface Pair {
    id: number;
    campaignLabel?: { name: string; value: unknown };
    segments?: Record<string, unknown>;
    cur?: any;
    cmp?: any;
  }
  const pairs = new Map<string, Pair>();
  for (const row of cur.rows)
    pairs.set(keyOf(row, c.current), {
      id: row.id,
      ...(row.campaignLabel ? { campaignLabel: row.campaignLabel } : {}),
      segments: row.segments,
      cur: row,
    });
  for (const row of cmp.rows) {
    const key = keyOf(row, c.compared);
    const found = pairs.get(key);
    if (found) found.cmp = row;
    else {
      const segs = row.segments
        ? Object.fromEntries(
            segments.map((s) => {
              const value = row.segments[SEGMENT_KEY[s]];
              return [
                SEGMENT_KEY[s],
                TIME.has(s) ? shownAt(s, c.current.from, positionOfValue(s, c.compared.from, String(value))) : value,
              ];
            }),
          )
        : undefined;
      pairs.set(key, {
        id: row.id,
        ...(row.campaignLabel ? { campaignLabel: row.campaignLabel } : {}),
        ...(segs ? { segments: segs } : {}),
        cmp: row,
      });
    }
  }
  // Segment order as the service sorts: DayOfWeek Monday first, the others as text.
  const ISO_DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
  const text = (p: Pair) =>
    segments.map((s) => {
      const value = String(p.segments![SEGMENT_KEY[s]]);
      return s === 'DayOfWeek' ? String(ISO_DAYS.indexOf(value)) : value;
    });
  const expected = [...pairs.values()].sort((a, b) => {
    if (a.id !== b.id) return a.id - b.id;
    const [la, lb] = [String(a.campaignLabel?.value ?? ''), String(b.campaignLabel?.value ?? '')];
    if (la !== lb) return la < lb ? -1 : 1;
    const [sa, sb] = [text(a), text(b)];
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sa[i]! < sb[i]! ? -1 : 1;
    return 0;
  });
  const problems: string[] = [];
  const apiKeys = both.rows.map(rowKey);
  const expectedKeys = expected.map(rowKey);
  if (apiKeys.join('\n') !== expectedKeys.join('\n'))
    problems.push(
      `rows: got ${apiKeys.length} (${apiKeys.slice(0, 3).join('; ')} ...), expected ${expectedKeys.length} (${expectedKeys.slice(0, 3).join('; ')} ...); first difference at ${apiKeys.findIndex((k, i) => k !== expectedKeys[i])}: ${apiKeys.find((k, i) => k !== expectedKeys[i])} vs ${expectedKeys.find((k, i) => k !== apiKeys[i])}`,
    );
  expect(both.total).toBe(expected.length);
  const byKey = new Map(expected.map((p) => [rowKey(p), p]));
  for (const row of both.rows) {
    const pair = byKey.get(rowKey(row));
    if (!pair) continue;
    const label = rowKey(row);
    for (const name of c.statistics) {
      const curValue = pair.cur ? pair.cur.statistics[name] : zeroStat(name);
      const cmpValue = pair.cmp ? pair.cmp.statistics[name] : zeroStat(name);
      if (!same(row.statistics[name], curValue))
        problems.push(`${label}: statistics.${name} = ${row.statistics[name]}, alone ${curValue}`);
      if (!same(row.comparison?.statistics?.[name], cmpValue))
        problems.push(
          `${label}: comparison.statistics.${name} = ${row.comparison?.statistics?.[name]}, alone ${cmpValue}`,
        );
      if (!changeClose(row.change?.statistics?.[name], curValue, cmpValue))
        problems.push(
          `${label}: change.statistics.${name} = ${row.change?.statistics?.[name]}, expected ${changeOf(curValue, cmpValue)}`,
        );
    }
    for (const formula of c.formulas ?? []) {
      const name = formula.split(':')[0]!;
      const curValue = pair.cur ? pair.cur.formulas[name] : undefined;
      const cmpValue = pair.cmp ? pair.cmp.formulas[name] : undefined;
      if (curValue !== undefined && !same(row.formulas?.[name], curValue))
        problems.push(`${label}: formulas.${name} = ${row.formulas?.[name]}, alone ${curValue}`);
      if (cmpValue !== undefined && !same(row.comparison?.formulas?.[name], cmpValue))
        problems.push(`${label}: comparison.formulas.${name} = ${row.comparison?.formulas?.[name]}, alone ${cmpValue}`);
      if (
        !changeClose(
          row.change?.formulas?.[name],
          row.formulas?.[name] ?? null,
          row.comparison?.formulas?.[name] ?? null,
        )
      )
        problems.push(`${label}: change.formulas.${name} = ${row.change?.formulas?.[name]}`);
    }
    if (problems.length > 30) break;
  }
  // totals: the current figures as alone, comparison = the compared range's totals (flat), change.
  for (const name of c.statistics) {
    if (!same(both.totals?.[name], cur.totals?.[name]))
      problems.push(`totals.${name} = ${both.totals?.[name]}, alone ${cur.totals?.[name]}`);
    if (!same(both.totals?.comparison?.[name], cmp.totals?.[name]))
      problems.push(`totals.comparison.${name} = ${both.totals?.comparison?.[name]}, alone ${cmp.totals?.[name]}`);
    if (!changeClose(both.totals?.change?.[name], cur.totals?.[name] ?? null, cmp.totals?.[name] ?? null))
      problems.push(
        `totals.change.${name} = ${both.totals?.change?.[name]}, expected ${changeOf(cur.totals?.[name], cmp.totals?.[name])}`,
      );
  }
  return { rows: both.rows, problems: problems.slice(0, 30), totals: both.totals };
}

describe('compare=a..b equals two separate requests', () => {
  const current = () => ({ from: addDays(Y, -13), to: Y });
  const compared = () => ({ from: addDays(Y, -120), to: addDays(Y, -107) });
  const SHARES = ['impressions', 'clicks', 'searchImpressionShare', 'searchTopImpressionShare'];
  type Case = [string, string, string, number, readonly SegmentName[], QueryInput?, (readonly string[])?];
  const cases: Case[] = [
    ['campaigns, no segments', 'campaigns', 'campaigns', 0, []],
    ['campaigns per Day', 'campaigns', 'campaigns', 1, ['Day']],
    ['campaigns per DeviceType', 'campaigns', 'campaigns', 0, ['DeviceType']],
    ['adgroups per Day and DeviceType', 'adgroups', 'adGroups', 1, ['Day', 'DeviceType']],
    ['accounts, no segments', 'accounts', 'accounts', 0, []],
    ['accounts per Day', 'accounts', 'accounts', 0, ['Day']],
    ['adplatform-accounts per DeviceType', 'adplatform-accounts', 'adPlatformAccounts', 0, ['DeviceType']],
    [
      'campaigns with a fact filter (segments.deviceType, segments.networkType) in both periods',
      'campaigns',
      'campaigns',
      0,
      ['Day'],
      { filter: "segments.deviceType == 'MOBILE' && segments.networkType != 'DISPLAY'" },
    ],
    ['ads filtered by campaignId', 'ads', 'ads', 0, [], { filter: 'campaignId < 12' }],
    [
      'campaign labels (team): rows by account and label value',
      'accounts/campaign-labels/name/team',
      'accounts',
      0,
      [],
    ],
    ['campaign labels (campaignGroup) per Day', 'accounts/campaign-labels/name/campaignGroup', 'accounts', 1, ['Day']],
    [
      'Google Ads impression share per Day',
      'adplatform-accounts/google-ads',
      'adPlatformAccounts',
      0,
      ['Day'],
      undefined,
      SHARES,
    ],
    [
      'Google Ads impression share, no segments',
      'adplatform-accounts/google-ads',
      'adPlatformAccounts',
      1,
      [],
      undefined,
      SHARES,
    ],
  ];
  for (const [label, path, plural, org, segments, query, statistics] of cases) {
    it(label, async () => {
      const c = compared();
      const { rows, problems } = await separately({
        path,
        plural,
        org,
        current: current(),
        compared: c,
        compare: `${c.from}..${c.to}`,
        segments,
        statistics: statistics ?? WIDE,
        query,
      });
      expect(problems).toEqual([]);
      expect(rows.length).toBeGreaterThan(0);
    });
  }

  it('markups: costWithMarkup of each period takes the markups of its own days', async () => {
    const org = fx.orgs[1]!;
    const [account] = await fx.sql<{ id: number }>(
      'SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id LIMIT 1',
      [org.id],
    );
    const c = compared();
    for (const markup of [
      { rate: 0.2, startDate: addDays(c.from, 3), endDate: addDays(c.to, -3) },
      { rate: 0.1, startDate: addDays(current().from, 5), endDate: null },
    ]) {
      const res = await fx.json('POST', `/provisioning/v0/accounts/id/${Number(account!.id)}/markups`, org.token, {
        markup,
      });
      expect(res.status, res.text).toBe(201);
    }
    for (const [path, plural, segments] of [
      ['accounts', 'accounts', ['Day']],
      ['campaigns', 'campaigns', []],
    ] as const) {
      const { rows, problems } = await separately({
        path,
        plural,
        org: 1,
        current: current(),
        compared: c,
        compare: `${c.from}..${c.to}`,
        segments,
        statistics: ['clicks', 'cost', 'costWithMarkup'],
      });
      expect(problems).toEqual([]);
      expect(rows.some((r) => r.comparison.statistics.costWithMarkup > r.comparison.statistics.cost * 1.1)).toBe(true);
      expect(rows.some((r) => r.statistics.costWithMarkup > r.statistics.cost)).toBe(true);
    }
  });

  it('a filter on the current statistics removes rows after pairing; totals are those of the rows kept, in both periods', async () => {
    const c = compared();
    const org = fx.orgs[1]!;
    const base: QueryInput = {
      startDate: current().from,
      endDate: current().to,
      compare: `${c.from}..${c.to}`,
      statistics: 'clicks,impressions,ctr',
      segments: 'Day',
    };
    const all = await fetchAll(fx, 'campaigns', org.token, base, 'campaigns');
    const kept = await fetchAll(
      fx,
      'campaigns',
      org.token,
      { ...base, filter: 'statistics.clicks > 5', totals: 'true' },
      'campaigns',
    );
    const want = all.rows.filter((r) => r.statistics.clicks > 5);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(all.rows.length);
    expect(kept.rows).toEqual(want);
    const sum = (rows: any[], f: (r: any) => number) => rows.reduce((s, r) => s + f(r), 0);
    expect(kept.totals.clicks).toBe(sum(want, (r) => r.statistics.clicks));
    expect(kept.totals.comparison.clicks).toBe(sum(want, (r) => r.comparison.statistics.clicks));
    expect(kept.totals.comparison.impressions).toBe(sum(want, (r) => r.comparison.statistics.impressions));
    expect(
      approx(
        kept.totals.comparison.ctr,
        sum(want, (r) => r.comparison.statistics.clicks) / sum(want, (r) => r.comparison.statistics.impressions),
      ),
    ).toBe(true);
  });

  it('Year by position and DayOfWeek by value', async () => {
    const cur = current();
    // A compared range of 14 days as many years wide as the range (it may cross a new year).
    let k = 120;
    while (bucketCount('Year', addDays(cur.from, -k), addDays(cur.to, -k)) !== bucketCount('Year', cur.from, cur.to))
      k++;
    const cmp = { from: addDays(cur.from, -k), to: addDays(cur.to, -k) };
    const { problems, rows } = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 0,
      current: cur,
      compared: cmp,
      compare: `${cmp.from}..${cmp.to}`,
      segments: ['Year', 'DayOfWeek'],
      statistics: NINE,
    });
    expect(problems).toEqual([]);
    expect(typeof rows[0].segments.year).toBe('number');
  });

  it('compared with itself: comparison equals the statistics, change 0 (null where the figure is 0 or null)', async () => {
    const cur = current();
    const { rows } = await fetchAll(
      fx,
      'campaigns',
      fx.orgs[0]!.token,
      {
        startDate: cur.from,
        endDate: cur.to,
        compare: `${cur.from}..${cur.to}`,
        segments: 'DeviceType',
        statistics: WIDE.join(','),
      },
      'campaigns',
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.comparison.statistics, rowKey(row)).toEqual(row.statistics);
      for (const name of WIDE) {
        const value = row.statistics[name];
        expect(row.change.statistics[name], `${rowKey(row)} ${name}`).toBe(value === null || value === 0 ? null : 0);
      }
    }
  });

  it('estimated FX rates of either range are warned about, as the request over that range alone warns', async () => {
    const org = fx.orgs[0]!;
    const published = { from: '2024-12-01', to: '2024-12-10' };
    const recent = { from: addDays(Y, -9), to: Y };
    const query: QueryInput = { statistics: 'cost', currency: 'USD', totals: 'true', limit: 1 };
    const estimated = (res: { json: any }) =>
      (res.json.warnings ?? []).filter((w: any) => w.code === 'estimated_fx_rates');
    const alone = async (p: Period) => {
      const res = await fx.report('campaigns', org.token, { ...query, startDate: p.from, endDate: p.to });
      expect(res.status).toBe(200);
      return estimated(res);
    };
    expect(await alone(published)).toEqual([]);
    const recentWarnings = await alone(recent);
    expect(recentWarnings).toHaveLength(1);
    for (const [cur, cmp] of [
      [published, recent],
      [recent, published],
    ] as const) {
      const res = await fx.report('campaigns', org.token, {
        ...query,
        startDate: cur.from,
        endDate: cur.to,
        compare: `${cmp.from}..${cmp.to}`,
      });
      expect(res.status).toBe(200);
      const [warning] = estimated(res);
      expect(warning, `${cur.from}..${cur.to} vs ${cmp.from}..${cmp.to}`).toMatchObject({
        firstDay: recentWarnings[0].firstDay,
        lastDay: recentWarnings[0].lastDay,
        currencies: recentWarnings[0].currencies,
      });
    }
  });

  it('Week buckets by position: two whole ISO weeks with two whole ISO weeks a year back', async () => {
    const monday = addDays(mondayOf(Y), -14);
    const cmpMonday = addDays(mondayOf(addDays(Y, -365)), -14);
    const { problems } = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 0,
      current: { from: monday, to: addDays(monday, 13) },
      compared: { from: cmpMonday, to: addDays(cmpMonday, 13) },
      compare: `${cmpMonday}..${addDays(cmpMonday, 13)}`,
      segments: ['Week'],
      statistics: NINE,
    });
    expect(problems).toEqual([]);
  });

  it('Week buckets from a partial first week: a Thursday..Wednesday range against another Thursday..Wednesday', async () => {
    const thursday = addDays(mondayOf(Y), -11);
    const cmpThursday = addDays(thursday, -7 * 30);
    const { rows, problems } = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 1,
      current: { from: thursday, to: addDays(thursday, 6) },
      compared: { from: cmpThursday, to: addDays(cmpThursday, 6) },
      compare: `${cmpThursday}..${addDays(cmpThursday, 6)}`,
      segments: ['Week'],
      statistics: NINE,
    });
    expect(problems).toEqual([]);
    // The first bucket is the week holding the Thursday: its Monday.
    expect(new Set(rows.map((r) => r.segments.week))).toEqual(
      new Set([mondayOf(thursday), addDays(mondayOf(thursday), 7)]),
    );
  });

  it("the change of every figure is (current - compared) / compared of the row's own two, null when compared is 0", async () => {
    const current = { from: addDays(Y, -6), to: Y };
    const { rows } = await fetchAll(
      fx,
      'campaigns',
      fx.orgs[0]!.token,
      {
        startDate: current.from,
        endDate: current.to,
        compare: 'PREVIOUS_YEAR',
        statistics: WIDE.join(','),
        segments: 'DeviceType',
      },
      'campaigns',
    );
    let nulls = 0;
    let numbers = 0;
    for (const row of rows) {
      expect(Object.keys(row.comparison.statistics).sort()).toEqual([...WIDE].sort());
      expect(Object.keys(row.change.statistics).sort()).toEqual([...WIDE].sort());
      for (const name of WIDE) {
        const c = row.statistics[name];
        const p = row.comparison.statistics[name];
        const got = row.change.statistics[name];
        expect(changeClose(got, c, p), `${rowKey(row)} ${name}: ${got} from ${c} vs ${p}`).toBe(true);
        if (got === null) nulls++;
        else numbers++;
        if (p === 0 || p === null) expect(got).toBeNull();
      }
    }
    expect(nulls).toBeGreaterThan(0);
    expect(numbers).toBeGreaterThan(0);
  });

  it('formulas apply to both periods: comparison.formulas and change.formulas', async () => {
    const c = compared();
    const { problems, rows } = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 1,
      current: current(),
      compared: c,
      compare: `${c.from}..${c.to}`,
      segments: ['Day'],
      statistics: ['clicks', 'cost', 'averageCpc'],
      formulas: ['cpc2:statistics.cost/statistics.clicks:Money', 'clicks3:statistics.clicks * 3:Integer'],
    });
    expect(problems).toEqual([]);
    for (const row of rows.slice(0, 50)) {
      expect(Object.keys(row.comparison.formulas).sort()).toEqual(['clicks3', 'cpc2']);
      expect(row.comparison.formulas.clicks3).toBe(3 * row.comparison.statistics.clicks);
      expect(Object.keys(row.change.formulas).sort()).toEqual(['clicks3', 'cpc2']);
    }
  });

  it('a current range before the data: every DeviceType bucket comes from the compared range, with zero current figures', async () => {
    const first = addDays(Y, -(DAYS - 1));
    const cur = { from: addDays(first, -20), to: addDays(first, -11) };
    const cmp = { from: addDays(Y, -9), to: Y };
    for (const segments of [[], ['DeviceType']] as Array<readonly SegmentName[]>) {
      const { rows, problems } = await separately({
        path: 'adgroups',
        plural: 'adGroups',
        org: 1,
        current: cur,
        compared: cmp,
        compare: `${cmp.from}..${cmp.to}`,
        segments,
        statistics: NINE,
      });
      expect(problems).toEqual([]);
      expect(rows.some((r) => r.comparison.statistics.clicks > 0)).toBe(true);
      for (const row of rows) expect(row.statistics.impressions).toBe(0);
    }
  });

  it('a bucket active only in the compared period: the current bucket at its position, zero current figures, ratios null', async () => {
    // The range starts four days before the first generated day: its first four days have no figures.
    const current = { from: addDays(S, -4), to: addDays(S, 5) };
    const compared = { from: addDays(S, 30), to: addDays(S, 39) };
    const { rows, problems } = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 0,
      current,
      compared,
      compare: `${compared.from}..${compared.to}`,
      segments: ['Day'],
      statistics: NINE,
    });
    expect(problems).toEqual([]);
    const early = rows.filter((r) => r.segments.day < S);
    expect(early.length).toBeGreaterThan(0);
    for (const row of early) {
      expect(row.segments.day >= current.from).toBe(true);
      expect(row.statistics).toMatchObject({ impressions: 0, clicks: 0, cost: 0, ctr: null, averageCpc: null });
      expect(row.comparison.statistics.impressions).toBeGreaterThan(0);
      expect(row.change.statistics.impressions).toBe(-1);
    }
    // Also against the oracle.
    await oracle({
      path: 'campaigns',
      org: 0,
      current,
      compared,
      compare: `${compared.from}..${compared.to}`,
      segments: ['Day'],
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The compared range, by hand

describe('the compared range', () => {
  async function rangeOf(query: QueryInput): Promise<{ start: string; end: string; from: string; to: string }> {
    const res = await fx.report('campaigns', fx.orgs[0]!.token, { ...query, limit: 1, statistics: 'clicks' });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    return {
      start: String(res.headers['x-compare-start-date']),
      end: String(res.headers['x-compare-end-date']),
      from: String(res.headers['x-start-date']),
      to: String(res.headers['x-end-date']),
    };
  }

  it('PREVIOUS_PERIOD: as many days as the range, ending the day before its start (X-Compare-Start-Date / -End-Date)', async () => {
    for (const [from, to, cfrom, cto] of [
      ['2026-03-01', '2026-03-31', '2026-01-29', '2026-02-28'],
      ['2025-03-01', '2025-03-01', '2025-02-28', '2025-02-28'],
      ['2024-03-01', '2024-03-07', '2024-02-23', '2024-02-29'],
      // 365 days back from 2024-12-31 (a leap year) start on 2 January.
      ['2025-01-01', '2025-12-31', '2024-01-02', '2024-12-31'],
      ['2024-01-01', '2024-12-31', '2022-12-31', '2023-12-31'],
    ] as const) {
      if (to > Y) continue;
      const got = await rangeOf({ startDate: from, endDate: to, compare: 'PREVIOUS_PERIOD' });
      expect([got.start, got.end], `${from}..${to}`).toEqual([cfrom, cto]);
    }
    // Relative to yesterday; and without dates, the default 30 days.
    const got = await rangeOf({ startDate: addDays(Y, -6), compare: 'PREVIOUS_PERIOD' });
    expect([got.start, got.end]).toEqual([addDays(Y, -13), addDays(Y, -7)]);
    const byDefault = await rangeOf({ compare: 'PREVIOUS_PERIOD' });
    expect([byDefault.start, byDefault.end]).toEqual([addDays(Y, -59), addDays(Y, -30)]);
  });

  it('PREVIOUS_YEAR: each end one calendar year back, 29 February -> 28 February', async () => {
    const L = LEAP;
    for (const [from, to, cfrom, cto] of [
      [`${L}-02-29`, `${L}-03-06`, `${L - 1}-02-28`, `${L - 1}-03-06`],
      [`${L}-02-01`, `${L}-02-29`, `${L - 1}-02-01`, `${L - 1}-02-28`],
      [`${L + 1}-02-28`, `${L + 1}-03-01`, `${L}-02-28`, `${L}-03-01`],
      [`${L + 1}-01-01`, `${L + 1}-12-31`, `${L}-01-01`, `${L}-12-31`],
    ] as const) {
      if (to > Y) continue;
      const got = await rangeOf({ startDate: from, endDate: to, compare: 'PREVIOUS_YEAR' });
      expect([got.start, got.end], `${from}..${to}`).toEqual([cfrom, cto]);
    }
    const got = await rangeOf({ startDate: addDays(Y, -9), endDate: Y, compare: 'PREVIOUS_YEAR' });
    expect([got.start, got.end]).toEqual([previousYear(addDays(Y, -9)), previousYear(Y)]);
  });

  it('an explicit range is echoed as given; without compare there are no compare headers', async () => {
    const got = await rangeOf({
      startDate: addDays(Y, -2),
      endDate: Y,
      compare: `${addDays(Y, -40)}..${addDays(Y, -10)}`,
    });
    expect([got.start, got.end]).toEqual([addDays(Y, -40), addDays(Y, -10)]);
    const res = await fx.report('campaigns', fx.orgs[0]!.token, { limit: 1 });
    expect(res.headers['x-compare-start-date']).toBeUndefined();
    expect(res.headers['x-compare-end-date']).toBeUndefined();
    expect(res.json.campaigns[0].comparison).toBeUndefined();
    expect(res.json.campaigns[0].change).toBeUndefined();
  });

  it('PREVIOUS_YEAR over the 29 February of the data: the compared figures are those of the request over the compared range', async () => {
    // LEAP+1-02-20..03-05 (14 days) against LEAP-02-20..03-05 (15 days, the 29th included).
    const current = { from: `${LEAP + 1}-02-20`, to: `${LEAP + 1}-03-05` };
    const compared = { from: `${LEAP}-02-20`, to: `${LEAP}-03-05` };
    expect(compared.from >= S).toBe(true);
    const { problems } = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 0,
      current,
      compared,
      compare: 'PREVIOUS_YEAR',
      statistics: NINE,
    });
    expect(problems).toEqual([]);
    await oracle({ path: 'accounts', org: 0, current, compared, compare: 'PREVIOUS_YEAR' });
    // Per Month both ranges hold two months: allowed, and paired by position.
    const months = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 1,
      current,
      compared,
      compare: 'PREVIOUS_YEAR',
      segments: ['Month'],
      statistics: NINE,
    });
    expect(months.problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Filter and sort on comparison.* and change.*

describe('filter and sort on comparison.statistics and change.statistics', () => {
  const current = () => ({ from: addDays(Y, -13), to: Y });
  const compared = () => ({ from: addDays(Y, -27), to: addDays(Y, -14) });

  /** The rows of the two separate requests by id. */
  async function separateById(orgIndex: number, path: string, plural: string, statistics: string) {
    const org = fx.orgs[orgIndex]!;
    const [cur, cmp] = await Promise.all(
      [current(), compared()].map((p) =>
        fetchAll(fx, path, org.token, { startDate: p.from, endDate: p.to, statistics }, plural),
      ),
    );
    const cmpById = new Map(cmp!.rows.map((r) => [r.id, r]));
    return cur!.rows.map((r) => ({ id: r.id as number, cur: r.statistics, cmp: cmpById.get(r.id)!.statistics }));
  }

  /** A threshold between two distinct values of a list, so that the filter keeps some and drops some. */
  function splitPoint(values: number[]): number {
    const distinct = [...new Set(values)].sort((a, b) => a - b);
    expect(distinct.length, 'values to split').toBeGreaterThan(2);
    const i = Math.floor(distinct.length / 2);
    // Filters take at most 15 significant digits: a short number strictly between the two.
    for (let digits = 2; ; digits++) {
      const point = Number(((distinct[i - 1]! + distinct[i]!) / 2).toPrecision(digits));
      if (point > distinct[i - 1]! && point < distinct[i]!) return point;
    }
  }

  it('filter=change.statistics.clicks < x keeps exactly the rows whose two separate requests say so (null change never)', async () => {
    const pairs = await separateById(0, 'adgroups', 'adGroups', 'clicks,cost');
    const changes = pairs.map((p) => changeOf(p.cur.clicks, p.cmp.clicks)).filter((c): c is number => c !== null);
    for (const threshold of [-0.5, splitPoint(changes)]) {
      const want = pairs
        .filter((p) => {
          const c = changeOf(p.cur.clicks, p.cmp.clicks);
          return c !== null && c < threshold;
        })
        .map((p) => p.id);
      const { rows } = await fetchAll(
        fx,
        'adgroups',
        fx.orgs[0]!.token,
        {
          startDate: current().from,
          endDate: current().to,
          compare: `${compared().from}..${compared().to}`,
          statistics: 'clicks,cost',
          filter: `change.statistics.clicks < ${threshold}`,
        },
        'adGroups',
      );
      expect(
        rows.map((r) => r.id),
        `threshold ${threshold}`,
      ).toEqual(want);
      if (threshold !== -0.5) expect(want.length).toBeGreaterThan(0);
    }
  });

  it('filter=change.statistics.clicks == null keeps the rows without compared clicks; != null the others', async () => {
    const cur = { from: addDays(Y, -13), to: Y };
    const cmp = { from: previousYear(cur.from), to: previousYear(cur.to) };
    const org = fx.orgs[0]!;
    const [a, b] = await Promise.all(
      [cur, cmp].map((p) =>
        fetchAll(fx, 'adgroups', org.token, { startDate: p.from, endDate: p.to, statistics: 'clicks' }, 'adGroups'),
      ),
    );
    const cmpClicks = new Map(b!.rows.map((r) => [r.id, r.statistics.clicks]));
    const nulls = a!.rows.filter((r) => cmpClicks.get(r.id) === 0).map((r) => r.id);
    expect(nulls.length).toBeGreaterThan(0);
    expect(nulls.length).toBeLessThan(a!.rows.length);
    const query = { startDate: cur.from, endDate: cur.to, compare: 'PREVIOUS_YEAR', statistics: 'clicks' };
    const isNull = await fetchAll(
      fx,
      'adgroups',
      org.token,
      { ...query, filter: 'change.statistics.clicks == null' },
      'adGroups',
    );
    expect(isNull.rows.map((r) => r.id)).toEqual(nulls);
    const notNull = await fetchAll(
      fx,
      'adgroups',
      org.token,
      { ...query, filter: 'change.statistics.clicks != null' },
      'adGroups',
    );
    expect(notNull.rows.map((r) => r.id)).toEqual(a!.rows.filter((r) => cmpClicks.get(r.id) !== 0).map((r) => r.id));
  });

  it('filter on comparison.statistics, combined with a filter on the current statistics', async () => {
    const pairs = await separateById(1, 'campaigns', 'campaigns', 'impressions,clicks');
    const x = splitPoint(pairs.map((p) => p.cmp.impressions));
    const want = pairs.filter((p) => p.cmp.impressions > x && p.cur.clicks >= 1).map((p) => p.id);
    expect(want.length).toBeGreaterThan(0);
    const { rows } = await fetchAll(
      fx,
      'campaigns',
      fx.orgs[1]!.token,
      {
        startDate: current().from,
        endDate: current().to,
        compare: `${compared().from}..${compared().to}`,
        statistics: 'impressions,clicks',
        filter: `comparison.statistics.impressions > ${x} && statistics.clicks >= 1`,
      },
      'campaigns',
    );
    expect(rows.map((r) => r.id)).toEqual(want);
  });

  it('sort=-change.statistics.cost: descending, nulls last, ties by id; sort=comparison.statistics.clicks ascending', async () => {
    // Against PREVIOUS_YEAR campaigns started since have no compared cost: null changes.
    const cur = { from: addDays(Y, -13), to: Y };
    const cmp = { from: previousYear(cur.from), to: previousYear(cur.to) };
    const org = fx.orgs[0]!;
    const [a, b] = await Promise.all(
      [cur, cmp].map((p) =>
        fetchAll(
          fx,
          'campaigns',
          org.token,
          { startDate: p.from, endDate: p.to, statistics: 'clicks,cost' },
          'campaigns',
        ),
      ),
    );
    const cmpById = new Map(b!.rows.map((r) => [r.id, r.statistics]));
    const changes = a!.rows.map((r) => ({
      id: r.id as number,
      change: changeOf(r.statistics.cost, cmpById.get(r.id)!.cost),
      clicks: cmpById.get(r.id)!.clicks as number,
    }));
    expect(changes.some((c) => c.change === null)).toBe(true);
    const byChange = [...changes].sort((x, y) => {
      if (x.change === null || y.change === null)
        return x.change === y.change ? x.id - y.id : x.change === null ? 1 : -1;
      // Changes equal within rounding count as ties (ordered by id).
      return Math.abs(x.change - y.change) < 1e-9 ? x.id - y.id : y.change - x.change;
    });
    const query = { startDate: cur.from, endDate: cur.to, compare: 'PREVIOUS_YEAR', statistics: 'clicks,cost' };
    const { rows } = await fetchAll(
      fx,
      'campaigns',
      org.token,
      { ...query, sort: '-change.statistics.cost' },
      'campaigns',
    );
    expect(rows.map((r) => r.id)).toEqual(byChange.map((c) => c.id));
    const byClicks = [...changes].sort((x, y) => x.clicks - y.clicks || x.id - y.id);
    const sorted = await fetchAll(
      fx,
      'campaigns',
      org.token,
      { ...query, sort: 'comparison.statistics.clicks' },
      'campaigns',
    );
    expect(sorted.rows.map((r) => r.id)).toEqual(byClicks.map((c) => c.id));
    // Paged: limit 5 pages through the same order.
    const paged: number[] = [];
    for (let offset = 0; offset < rows.length; offset += 5) {
      const res = await fx.report('campaigns', org.token, {
        ...query,
        sort: '-change.statistics.cost',
        limit: 5,
        offset,
      });
      expect(res.status).toBe(200);
      paged.push(...res.json.campaigns.map((r: any) => r.id));
    }
    expect(paged).toEqual(byChange.map((c) => c.id));
  });

  it('filter and sort on segments.day pick and order the rows by the current bucket, compared-only buckets too', async () => {
    const first = addDays(Y, -(DAYS - 1));
    // Its first three days precede the data: those buckets are active only in the compared range.
    const cur = { from: addDays(first, -3), to: addDays(first, 6) };
    const cmp = { from: addDays(first, 40), to: addDays(first, 49) };
    const org = fx.orgs[1]!;
    const query: QueryInput = {
      startDate: cur.from,
      endDate: cur.to,
      compare: `${cmp.from}..${cmp.to}`,
      segments: 'Day',
      statistics: 'clicks,impressions',
    };
    const all = await fetchAll(fx, 'campaigns', org.token, query, 'campaigns');
    expect(all.rows.some((r) => r.segments.day < first)).toBe(true);
    const cut = addDays(first, 1);
    const filtered = await fetchAll(
      fx,
      'campaigns',
      org.token,
      { ...query, filter: `segments.day <= '${cut}'`, sort: '-segments.day' },
      'campaigns',
    );
    const want = all.rows
      .filter((r) => r.segments.day <= cut)
      .sort((a, b) => (a.segments.day === b.segments.day ? a.id - b.id : a.segments.day < b.segments.day ? 1 : -1));
    expect(want.length).toBeGreaterThan(0);
    expect(filtered.rows).toEqual(want);
    // Pages of 7 in the default order are the whole result cut in pieces.
    const pages: any[] = [];
    for (let offset = 0; offset < all.rows.length; offset += 7) {
      const res = await fx.report('campaigns', org.token, { ...query, limit: 7, offset });
      expect(res.status).toBe(200);
      expect(res.headers['x-totalcount']).toBe(String(all.rows.length));
      pages.push(...res.json.campaigns);
    }
    expect(pages).toEqual(all.rows);
  });

  it('filter and sort on comparison.formulas and change.formulas', async () => {
    const org = fx.orgs[1]!;
    const query = {
      startDate: current().from,
      endDate: current().to,
      compare: `${compared().from}..${compared().to}`,
      statistics: 'clicks,cost',
      formulas: 'c2:statistics.clicks * 2:Integer',
    };
    const all = await fetchAll(fx, 'campaigns', org.token, query, 'campaigns');
    const x = splitPoint(all.rows.map((r) => r.comparison.formulas.c2));
    const filtered = await fetchAll(
      fx,
      'campaigns',
      org.token,
      { ...query, filter: `comparison.formulas.c2 > ${x}`, sort: '-change.formulas.c2' },
      'campaigns',
    );
    const want = all.rows
      .filter((r) => r.comparison.formulas.c2 > x)
      .sort((p, q) => {
        const [a, b] = [p.change.formulas.c2, q.change.formulas.c2];
        if (a === null || b === null) return a === b ? p.id - q.id : a === null ? 1 : -1;
        return Math.abs(a - b) < 1e-9 ? p.id - q.id : b - a;
      })
      .map((r) => r.id);
    expect(want.length).toBeGreaterThan(0);
    expect(filtered.rows.map((r) => r.id)).toEqual(want);
  });
});

// ---------------------------------------------------------------------------------------------
// Reach

describe('reach compared on the FACEBOOK endpoints: each period deduplicated over itself', () => {
  const REACH_STATS = ['impressions', 'clicks', 'reach', 'frequency'];

  function reachFor(
    runs: readonly Run[],
    entity: (r: Run) => number,
    bucket: PairedBucket,
    period: Period,
    currentFrom: string,
    segments: readonly SegmentName[],
  ): number {
    return unionLength(
      runs.filter(
        (r) =>
          (bucket.id === null || entity(r) === bucket.id) &&
          segments.every((s) =>
            s === 'DeviceType'
              ? bucket.segments![SEGMENT_KEY[s]] === 'UNKNOWN'
              : bucketAt(s, currentFrom, bucketPosition(s, period.from, r.day)) === bucket.segments![SEGMENT_KEY[s]],
          ),
      ),
    );
  }

  for (const [path, plural, levelPath, entity] of [
    ['campaigns/facebook', 'campaigns', 'campaigns', (r: Run) => r.campaignId],
    ['ads/facebook', 'ads', 'ads', (r: Run) => r.adId],
  ] as const) {
    for (const segments of [[], ['Day']] as Array<readonly SegmentName[]>) {
      it(`${path}${segments.length ? ' per Day' : ''}: against the union of the audience runs and the separate requests`, async () => {
        const current = { from: addDays(Y, -6), to: Y };
        const compared = { from: addDays(Y, -200), to: addDays(Y, -194) };
        const compare = `${compared.from}..${compared.to}`;
        const { problems, rows, totals } = await separately({
          path,
          plural,
          org: 0,
          current,
          compared,
          compare,
          segments,
          statistics: REACH_STATS,
        });
        expect(problems).toEqual([]);
        expect(rows.some((r) => r.comparison.statistics.reach > 0)).toBe(true);
        // The oracle.
        const org = fx.orgs[0]!;
        const lv = level(levelPath);
        const facebook = (await entitiesOf(fx, lv, org.id)).filter((e) => e.platform === 'FACEBOOK').map((e) => e.id);
        const ids = new Set(facebook);
        const [cur, cmp, curRuns, cmpRuns] = await Promise.all([
          factDaily(fx, lv, org.id, current.from, current.to),
          factDaily(fx, lv, org.id, compared.from, compared.to),
          audienceRuns(fx, org.id, current.from, current.to),
          audienceRuns(fx, org.id, compared.from, compared.to),
        ]);
        const expected = pairBuckets(
          cur.filter((r) => ids.has(r.id)),
          cmp.filter((r) => ids.has(r.id)),
          segments,
          { current, compared },
          { byEntity: true, entityIds: facebook },
        );
        expect(
          compareRowProblems(rows, expected, REACH_STATS, {
            reachOf: (bucket, period) =>
              period === 'current'
                ? reachFor(curRuns, entity, bucket, current, current.from, segments)
                : reachFor(cmpRuns, entity, bucket, compared, current.from, segments),
          }),
        ).toEqual([]);
        // Totals: the union over each whole period, not a sum of the rows' reach.
        expect(totals.reach).toBe(unionLength(curRuns));
        expect(totals.comparison.reach).toBe(unionLength(cmpRuns));
        // Per Day, people reached on several days are in several rows but once in the totals.
        if (segments.length > 0) {
          const summed = rows.reduce((s, r) => s + r.comparison.statistics.reach, 0);
          expect(summed).toBeGreaterThan(totals.comparison.reach);
        }
      });
    }
  }

  it('adplatform-accounts/facebook, PREVIOUS_PERIOD over 30 days: the separate requests', async () => {
    const current = { from: addDays(Y, -29), to: Y };
    const { problems } = await separately({
      path: 'adplatform-accounts/facebook',
      plural: 'adPlatformAccounts',
      org: 0,
      current,
      compared: previousPeriod(current),
      compare: 'PREVIOUS_PERIOD',
      statistics: REACH_STATS,
    });
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Exports

describe('exports of a compared report hold the JSON rows', () => {
  const current = () => ({ from: addDays(Y, -6), to: Y });
  const compared = () => ({ from: addDays(Y, -50), to: addDays(Y, -44) });
  const STATS = ['impressions', 'clicks', 'cost', 'ctr'];

  function close(csvValue: string | null, json: unknown): boolean {
    if (json === null) return csvValue === null || csvValue === '';
    if (typeof json === 'number')
      return csvValue !== null && csvValue !== '' && approx(Number(csvValue), json, 1e-9, 1e-9);
    return csvValue === String(json);
  }

  it('CSV: comparison.statistics.x and change.statistics.x columns after the statistics and formulas; NDJSON nested; file names with _vs_', async () => {
    const org = fx.orgs[0]!;
    const query: QueryInput = {
      startDate: current().from,
      endDate: current().to,
      compare: `${compared().from}..${compared().to}`,
      statistics: STATS.join(','),
      segments: 'DeviceType',
      formulas: 'cpc2:statistics.cost/statistics.clicks:Money',
    };
    const { rows } = await fetchAll(fx, 'campaigns', org.token, query, 'campaigns');
    expect(rows.length).toBeGreaterThan(10);
    const name = `campaigns_${current().from}_${current().to}_vs_${compared().from}_${compared().to}`;

    const csv = await fx.report('campaigns', org.token, { ...query, format: 'csv' });
    expect(csv.status, csv.text.slice(0, 300)).toBe(200);
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="${name}.csv"`);
    expect([csv.headers['x-compare-start-date'], csv.headers['x-compare-end-date']]).toEqual([
      compared().from,
      compared().to,
    ]);
    const records = parse(csv.text, {
      cast: (value, context) => (value === '' && !context.quoting ? null : value),
    }) as Array<Array<string | null>>;
    const [header, ...lines] = records as [string[], ...Array<Array<string | null>>];
    const statsAt = STATS.map((s) => header.indexOf(`statistics.${s}`));
    const formulaAt = header.indexOf('formulas.cpc2');
    const comparisonAt = STATS.map((s) => header.indexOf(`comparison.statistics.${s}`));
    const changeAt = STATS.map((s) => header.indexOf(`change.statistics.${s}`));
    for (const i of [...statsAt, formulaAt, ...comparisonAt, ...changeAt])
      expect(i, header.join(',')).toBeGreaterThanOrEqual(0);
    expect(Math.min(...comparisonAt, ...changeAt), 'after the statistics and formulas').toBeGreaterThan(
      Math.max(...statsAt, formulaAt),
    );
    expect(Math.min(...changeAt), 'change after comparison').toBeGreaterThan(Math.max(...comparisonAt));
    expect(lines).toHaveLength(rows.length);
    const problems: string[] = [];
    rows.forEach((row, i) => {
      const line = lines[i]!;
      if (line[header.indexOf('id')] !== String(row.id)) problems.push(`line ${i}: id ${line[0]} vs ${row.id}`);
      if (line[header.indexOf('segments.deviceType')] !== row.segments.deviceType)
        problems.push(`line ${i}: deviceType`);
      STATS.forEach((s, j) => {
        if (!close(line[statsAt[j]!]!, row.statistics[s])) problems.push(`line ${i}: statistics.${s}`);
        if (!close(line[comparisonAt[j]!]!, row.comparison.statistics[s]))
          problems.push(
            `line ${i}: comparison.statistics.${s} ${line[comparisonAt[j]!]} vs ${row.comparison.statistics[s]}`,
          );
        if (!close(line[changeAt[j]!]!, row.change.statistics[s]))
          problems.push(`line ${i}: change.statistics.${s} ${line[changeAt[j]!]} vs ${row.change.statistics[s]}`);
      });
    });
    expect(problems.slice(0, 20)).toEqual([]);

    const ndjson = await fx.report('campaigns', org.token, { ...query, format: 'ndjson' });
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers['content-disposition']).toBe(`attachment; filename="${name}.ndjson"`);
    const objects = ndjson.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objects).toEqual(rows);

    const parquet = await rawBytes(
      `/reporting/v0/campaigns?${encodeQuery({ ...query, format: 'parquet' })}`,
      org.token,
    );
    expect(parquet.status).toBe(200);
    expect(parquet.headers['content-disposition']).toBe(`attachment; filename="${name}.parquet"`);
    const { columns, rows: parquetRows } = await readParquet(parquet.body);
    expect(columns.filter((c) => c.name.startsWith('comparison.') || c.name.startsWith('change.'))).toEqual([
      ...STATS.map((s) => ({ name: `comparison.statistics.${s}`, type: expect.stringMatching(/INT|DOUBLE/) })),
      { name: 'comparison.formulas.cpc2', type: 'DOUBLE' },
      ...STATS.map((s) => ({ name: `change.statistics.${s}`, type: 'DOUBLE' })),
      { name: 'change.formulas.cpc2', type: 'DOUBLE' },
    ]);
    expect(parquetRows).toHaveLength(rows.length);
    const parquetProblems: string[] = [];
    rows.forEach((row, i) => {
      for (const s of STATS)
        for (const [column, value] of [
          [`statistics.${s}`, row.statistics[s]],
          [`comparison.statistics.${s}`, row.comparison.statistics[s]],
          [`change.statistics.${s}`, row.change.statistics[s]],
        ] as const) {
          const got = parquetRows[i]![column];
          const number = typeof got === 'bigint' ? Number(got) : got;
          if (!(value === null ? number === null : approx(number as number, value, 1e-12, 1e-12)))
            parquetProblems.push(`row ${i} ${column}: ${String(got)} vs ${value}`);
        }
    });
    expect(parquetProblems.slice(0, 20)).toEqual([]);
  });

  it('PREVIOUS_PERIOD resolves in the file name too', async () => {
    const res = await fx.report('accounts', fx.orgs[1]!.token, {
      startDate: addDays(Y, -9),
      endDate: Y,
      compare: 'PREVIOUS_PERIOD',
      format: 'csv',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="accounts_${addDays(Y, -9)}_${Y}_vs_${addDays(Y, -19)}_${addDays(Y, -10)}.csv"`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Conditional requests

describe("compare is part of the answer's identity (ETag)", () => {
  it('the ETags of no compare, PREVIOUS_PERIOD and PREVIOUS_YEAR differ; a stale one gets 200 with the comparison, a fresh one 304', async () => {
    const org = fx.orgs[0]!;
    const query: QueryInput = { startDate: addDays(Y, -6), endDate: Y, statistics: 'clicks' };
    const get = (q: QueryInput, etag?: string) =>
      fx.http.get(`/reporting/v0/campaigns?${encodeQuery(q)}`, {
        authorization: `Bearer ${org.token}`,
        ...(etag ? { 'if-none-match': etag } : {}),
      });
    const plain = await get(query);
    const previous = await get({ ...query, compare: 'PREVIOUS_PERIOD' });
    const year = await get({ ...query, compare: 'PREVIOUS_YEAR' });
    const other = await get({ ...query, compare: `${addDays(Y, -30)}..${addDays(Y, -24)}` });
    const tags = [plain, previous, year, other].map((r) => String(r.headers.etag));
    for (const tag of tags) expect(tag).toMatch(/^W\/"/);
    expect(new Set(tags).size).toBe(4);
    const stale = await get({ ...query, compare: 'PREVIOUS_YEAR' }, tags[0]);
    expect(stale.status).toBe(200);
    expect(stale.json.campaigns[0].comparison).toBeDefined();
    const fresh = await get({ ...query, compare: 'PREVIOUS_YEAR' }, tags[2]);
    expect(fresh.status).toBe(304);
  });
});

// ---------------------------------------------------------------------------------------------
// Bad input

describe('bad compare input: a clear 400 with the error envelope, never a 500', () => {
  async function bad(query: QueryInput | string, field: string, path = 'campaigns') {
    const res = await fx.report(path, fx.orgs[0]!.token, query);
    expect(res.status, `${JSON.stringify(query)}: ${res.text.slice(0, 300)}`).toBe(400);
    envelopeOk(res);
    expect(res.json.error.details?.[0]?.field, JSON.stringify(res.json.error)).toBe(field);
    return res.json.error as { code: string; message: string; details: Array<{ field: string; message: string }> };
  }
  const words = (error: { message: string; details: Array<{ message: string }> }) =>
    `${error.message} ${error.details.map((d) => d.message).join(' ')}`;
  const withoutDates = (text: string) => text.replaceAll(/\d{4}-\d{2}-\d{2}/g, '');

  it('an unknown compare value names the forms that are allowed', async () => {
    for (const compare of [
      'LAST_MONTH',
      'previous_period',
      'PREVIOUS',
      '',
      ' PREVIOUS_YEAR',
      'PREVIOUS_YEAR ',
      'PREVIOUS_PERIOD,PREVIOUS_YEAR',
    ]) {
      const error = await bad({ compare }, 'compare');
      expect(error.code).toBe('invalid_parameter');
      expect(words(error)).toContain('PREVIOUS_PERIOD');
      expect(words(error)).toContain('PREVIOUS_YEAR');
    }
  });

  it('a malformed range, a day not in the calendar, an end before the start, five years or more', async () => {
    for (const compare of [
      '2026-01-01..',
      '..2026-01-05',
      '2026-1-1..2026-01-05',
      '2026-01-01...2026-01-05',
      '2026-01-01.2026-01-05',
      '2026-01-01..2026-01-05..2026-01-09',
      '20260101..20260105',
      '2025-02-29..2025-03-01',
      '2025-01-05..2025-01-04',
      '2019-01-01..2024-01-01',
    ])
      await bad({ compare }, 'compare');
    // Given twice.
    await bad('compare=PREVIOUS_PERIOD&compare=PREVIOUS_YEAR', 'compare');
    // One day under five years is a range (without a time segment it needs no equal length).
    const longest = await fx.report('campaigns', fx.orgs[1]!.token, {
      compare: '2019-01-02..2024-01-01',
      statistics: 'clicks',
      limit: 1,
    });
    expect(longest.status, longest.text.slice(0, 300)).toBe(200);
    expect(longest.headers['x-compare-start-date']).toBe('2019-01-02');
  });

  it('segments=Day with a compare range of another length: 400 saying both counts', async () => {
    const from = addDays(Y, -6);
    const error = await bad(
      { startDate: from, endDate: Y, segments: 'Day', compare: `${addDays(Y, -40)}..${addDays(Y, -32)}` },
      'compare',
    );
    const text = withoutDates(words(error));
    expect(text).toMatch(/\b7\b/);
    expect(text).toMatch(/\b9\b/);
    // The same without Day, or with DeviceType only, is fine.
    for (const segments of [undefined, 'DeviceType']) {
      const res = await fx.report('campaigns', fx.orgs[0]!.token, {
        startDate: from,
        endDate: Y,
        segments,
        compare: `${addDays(Y, -40)}..${addDays(Y, -32)}`,
        limit: 1,
      });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
    }
    // PREVIOUS_YEAR over a 29 February per Day: 14 days against 15.
    const leap = await bad(
      { startDate: `${LEAP + 1}-02-20`, endDate: `${LEAP + 1}-03-05`, segments: 'Day', compare: 'PREVIOUS_YEAR' },
      'compare',
    );
    const leapText = withoutDates(words(leap));
    expect(leapText).toMatch(/\b14\b/);
    expect(leapText).toMatch(/\b15\b/);
  });

  it('segments=Week with unequal week counts: 400 saying both counts', async () => {
    const wednesday = addDays(mondayOf(Y), -12);
    const monday = addDays(mondayOf(Y), -70);
    // Wednesday..Tuesday touches two ISO weeks; Monday..Sunday one.
    const error = await bad(
      {
        startDate: wednesday,
        endDate: addDays(wednesday, 6),
        segments: 'Week',
        compare: `${monday}..${addDays(monday, 6)}`,
      },
      'compare',
    );
    const text = withoutDates(words(error));
    expect(text).toMatch(/\b2\b/);
    expect(text).toMatch(/\b1\b/);
    // PREVIOUS_PERIOD of a Sunday..Monday (two weeks) is the Friday..Saturday before (one week).
    const sunday = addDays(mondayOf(Y), -8);
    await bad(
      { startDate: sunday, endDate: addDays(sunday, 1), segments: 'Week,DeviceType', compare: 'PREVIOUS_PERIOD' },
      'compare',
    );
  });

  it('comparison.* and change.* in filter or sort without compare: 400 saying they need compare', async () => {
    for (const [query, field] of [
      [{ filter: 'comparison.statistics.clicks > 1' }, 'filter'],
      [{ filter: 'change.statistics.clicks < -0.5' }, 'filter'],
      [{ sort: '-change.statistics.cost' }, 'sort'],
      [{ sort: 'comparison.statistics.clicks' }, 'sort'],
      [{ formulas: 'c:statistics.clicks:Integer', filter: 'change.formulas.c > 0' }, 'filter'],
    ] as const) {
      const error = await bad(query, field);
      expect(words(error)).toContain('compare');
    }
    // With compare, an unknown statistic behind comparison. is still a 400 on filter.
    await bad({ compare: 'PREVIOUS_PERIOD', filter: 'comparison.statistics.clickz > 1' }, 'filter');
    await bad({ compare: 'PREVIOUS_PERIOD', sort: 'change.statistics.clickz' }, 'sort');
    // A statistic the endpoint does not offer, behind comparison.: the same 400 as without (it names where to ask).
    const reach = await bad({ compare: 'PREVIOUS_PERIOD', filter: 'comparison.statistics.reach > 1' }, 'filter');
    expect(words(reach)).toContain('/reporting/v0/campaigns/facebook');
    // comparison.<something else> is no field.
    await bad({ compare: 'PREVIOUS_PERIOD', filter: 'comparison.name == "x"' }, 'filter');
    await bad({ compare: 'PREVIOUS_PERIOD', sort: 'change.segments.day', segments: 'Day' }, 'sort');
  });

  it('nothing logged as a server error on the way', () => {
    expect(fx.errors).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Without rollups (ADREPORT_ROLLUPS=false): the same answers from the facts alone

describe('ADREPORT_ROLLUPS=false: a copy of the database, a service without rollups', () => {
  let withRollups: ReportingFixture;
  beforeAll(async () => {
    withRollups = fx;
    fx = await startReportingFixture({ world: 'since-leap', service: { rollups: false } });
  }, 360_000);
  afterAll(async () => {
    const without = fx;
    fx = withRollups;
    await without?.close();
  });

  it('campaigns per Day PREVIOUS_PERIOD and accounts PREVIOUS_YEAR against the oracle', async () => {
    const current = { from: addDays(Y, -9), to: Y };
    await oracle({
      path: 'campaigns',
      org: 0,
      current,
      compared: previousPeriod(current),
      compare: 'PREVIOUS_PERIOD',
      segments: ['Day'],
    });
    await oracle({
      path: 'accounts',
      org: 1,
      current,
      compared: { from: previousYear(current.from), to: previousYear(current.to) },
      compare: 'PREVIOUS_YEAR',
      segments: ['DeviceType'],
    });
  });

  it('adgroups per Week against two separate requests', async () => {
    const monday = addDays(mondayOf(Y), -21);
    const cmpMonday = addDays(monday, -7 * 10);
    const { problems } = await separately({
      path: 'adgroups',
      plural: 'adGroups',
      org: 1,
      current: { from: monday, to: addDays(monday, 20) },
      compared: { from: cmpMonday, to: addDays(cmpMonday, 20) },
      compare: `${cmpMonday}..${addDays(cmpMonday, 20)}`,
      segments: ['Week'],
      statistics: WIDE,
    });
    expect(problems).toEqual([]);
  });

  it('nothing logged as a server error', () => {
    expect(fx.errors).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// The ClickHouse report engine (issue 22): the same relations and oracle on a replica

describe('report engine clickhouse: a copy of the database replicated into embedded ClickHouse', () => {
  let duck: ReportingFixture;
  beforeAll(async () => {
    duck = fx;
    fx = await startReportingFixture({
      world: 'since-leap',
      service: { reportEngine: 'clickhouse' },
    });
  }, 480_000);
  afterAll(async () => {
    const click = fx;
    fx = duck;
    await click?.close();
  });

  it('the oracle: campaigns per Day (PREVIOUS_PERIOD), accounts per Day (PREVIOUS_YEAR, in USD), adgroups per Day and DeviceType, campaigns per Month', async () => {
    const current = { from: addDays(Y, -9), to: Y };
    await oracle({
      path: 'campaigns',
      org: 0,
      current,
      compared: previousPeriod(current),
      compare: 'PREVIOUS_PERIOD',
      segments: ['Day'],
      statistics: WIDE,
    });
    const year = { from: previousYear(current.from), to: previousYear(current.to) };
    await oracle({ path: 'accounts', org: 0, current, compared: year, compare: 'PREVIOUS_YEAR', segments: ['Day'] });
    await oracle({
      path: 'accounts',
      org: 0,
      current,
      compared: year,
      compare: 'PREVIOUS_YEAR',
      currency: 'USD',
    });
    const short = { from: addDays(Y, -3), to: Y };
    const back = { from: addDays(Y, -380), to: addDays(Y, -377) };
    await oracle({
      path: 'adgroups',
      org: 1,
      current: short,
      compared: back,
      compare: `${back.from}..${back.to}`,
      segments: ['Day', 'DeviceType'],
    });
    const first = `${addDays(`${Y.slice(0, 7)}-01`, -40).slice(0, 7)}-01`;
    await oracle({
      path: 'campaigns',
      org: 1,
      current: { from: first, to: Y },
      compared: { from: previousYear(first), to: previousYear(Y) },
      compare: 'PREVIOUS_YEAR',
      segments: ['Month'],
    });
  });

  it('two separate requests: campaign labels, Year and DayOfWeek, a partial first Week, reach per Day, compared-only buckets', async () => {
    const cur = { from: addDays(Y, -13), to: Y };
    const cmp = { from: addDays(Y, -120), to: addDays(Y, -107) };
    const compare = `${cmp.from}..${cmp.to}`;
    const cases: Array<Omit<Separate, 'current' | 'compared' | 'compare'>> = [
      { path: 'accounts/campaign-labels/name/team', plural: 'accounts', org: 0, statistics: WIDE },
      { path: 'campaigns', plural: 'campaigns', org: 0, segments: ['DeviceType'], statistics: WIDE },
      {
        path: 'campaigns/facebook',
        plural: 'campaigns',
        org: 0,
        segments: ['Day'],
        statistics: ['impressions', 'reach', 'frequency'],
      },
    ];
    for (const c of cases) {
      const { problems } = await separately({ ...c, current: cur, compared: cmp, compare });
      expect(problems, c.path).toEqual([]);
    }
    const thursday = addDays(mondayOf(Y), -11);
    const cmpThursday = addDays(thursday, -7 * 30);
    const weeks = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 1,
      current: { from: thursday, to: addDays(thursday, 6) },
      compared: { from: cmpThursday, to: addDays(cmpThursday, 6) },
      compare: `${cmpThursday}..${addDays(cmpThursday, 6)}`,
      segments: ['Week', 'DayOfWeek'],
      statistics: NINE,
    });
    expect(weeks.problems).toEqual([]);
    const first = addDays(Y, -(DAYS - 1));
    const early = { from: addDays(first, -4), to: addDays(first, 5) };
    const later = { from: addDays(first, 30), to: addDays(first, 39) };
    const edge = await separately({
      path: 'campaigns',
      plural: 'campaigns',
      org: 0,
      current: early,
      compared: later,
      compare: `${later.from}..${later.to}`,
      segments: ['Day'],
      statistics: NINE,
      formulas: ['cpc2:statistics.cost/statistics.clicks:Money'],
    });
    expect(edge.problems).toEqual([]);
    expect(edge.rows.some((r) => r.segments.day < first)).toBe(true);
  });

  it('filter and sort on change: the rows and order the two separate requests say', async () => {
    const cur = { from: addDays(Y, -13), to: Y };
    const cmp = { from: previousYear(cur.from), to: previousYear(cur.to) };
    const org = fx.orgs[0]!;
    const [a, b] = await Promise.all(
      [cur, cmp].map((p) =>
        fetchAll(
          fx,
          'campaigns',
          org.token,
          { startDate: p.from, endDate: p.to, statistics: 'clicks,cost' },
          'campaigns',
        ),
      ),
    );
    const cmpById = new Map(b!.rows.map((r) => [r.id, r.statistics]));
    const changes = a!.rows.map((r) => ({
      id: r.id as number,
      cost: changeOf(r.statistics.cost, cmpById.get(r.id)!.cost),
      clicks: changeOf(r.statistics.clicks, cmpById.get(r.id)!.clicks),
    }));
    const want = changes
      .filter((c) => c.clicks !== null && c.clicks < 0.1)
      .sort((x, y) => {
        if (x.cost === null || y.cost === null) return x.cost === y.cost ? x.id - y.id : x.cost === null ? 1 : -1;
        return Math.abs(x.cost - y.cost) < 1e-9 ? x.id - y.id : y.cost - x.cost;
      })
      .map((c) => c.id);
    expect(want.length).toBeGreaterThan(0);
    const { rows } = await fetchAll(
      fx,
      'campaigns',
      org.token,
      {
        startDate: cur.from,
        endDate: cur.to,
        compare: 'PREVIOUS_YEAR',
        statistics: 'clicks,cost',
        filter: 'change.statistics.clicks < 0.1',
        sort: '-change.statistics.cost',
      },
      'campaigns',
    );
    expect(rows.map((r) => r.id)).toEqual(want);
  });

  it('nothing logged as a server error', () => {
    expect(fx.errors).toEqual([]);
  });
});
