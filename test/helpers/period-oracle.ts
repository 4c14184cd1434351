import { addDays, approx, mondayOf, type Level, type ReportingFixture } from './reporting-fixture.js';

/**
 * An oracle for period comparison (issue 23 item 2) and totals per segment (item 4), independent
 * of the service's compiler: plain SQL sums per entity, day and device straight from the fact
 * tables (money converted per day with fx_rates where the report converts), reach as the union
 * of the audience runs computed here in JS, and the bucketing, pairing and ratios in JS.
 */

export const SUMS = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversionValue',
  'calls',
  'callConversions',
  'callConversionsFractional',
] as const;
export type SumName = (typeof SUMS)[number];
export type Sums = Record<SumName, number>;

export interface DailyRow extends Sums {
  id: number;
  day: string;
  device: string;
}

/** Statistics that hold money: null in totals over several currencies. */
export const MONEY = new Set([
  'cost',
  'conversionValue',
  'averageCpc',
  'averageCpm',
  'costPerConversion',
  'valuePerConversion',
  'roas',
]);
export const INTEGER_STATS = new Set(['impressions', 'clicks', 'calls', 'callConversions', 'reach']);

export const zero = (): Sums => Object.fromEntries(SUMS.map((k) => [k, 0])) as Sums;
export function add(into: Sums, row: Sums): void {
  for (const k of SUMS) into[k] += Number(row[k]);
}

const ratio = (a: number, b: number) => (b === 0 ? null : a / b);

/** A statistic of summed sums (ratios of the sums, never averages); `reach` where the row has it. */
export function statistic(name: string, s: Sums, reach?: number): number | null {
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
    case 'reach':
      if (reach === undefined) throw new Error('reach asked of a bucket without runs');
      return reach;
    case 'frequency':
      if (reach === undefined) throw new Error('frequency asked of a bucket without runs');
      return ratio(s.impressions, reach);
    default:
      if (!(SUMS as readonly string[]).includes(name)) throw new Error(`the oracle does not know ${name}`);
      return s[name as SumName];
  }
}

/** (current - compared) / compared; null when compared is 0 or null, or current is null. */
export function changeOf(current: number | null | undefined, compared: number | null | undefined): number | null {
  if (current === null || current === undefined || compared === null || compared === undefined || compared === 0)
    return null;
  return (current - compared) / compared;
}

/**
 * A change as the service answers it against the change of exact values: each side may be
 * rounded to micros (money, decimals) or carry FX drift, so the tolerance grows as the compared
 * value gets small.
 */
export function changeClose(got: unknown, current: number | null, compared: number | null, rel = 1e-6): boolean {
  const expected = changeOf(current, compared);
  if (expected === null || got === null || got === undefined) return (got ?? null) === expected;
  if (typeof got !== 'number') return false;
  const p = Math.abs(compared!);
  const c = Math.abs(current!);
  const slack = (1e-6 + rel * c) / p + ((1e-6 + rel * p) * c) / (p * p);
  return Math.abs(got - expected) <= 1e-9 + 1e-9 * Math.abs(expected) + 2 * slack;
}

/** Exact for integers, relative (with an absolute floor of half a micro and more) otherwise. */
export function statisticClose(name: string, got: unknown, expected: number | null, rel = 1e-6): boolean {
  if (INTEGER_STATS.has(name)) return got === expected;
  if (expected === null || got === null || got === undefined) return (got ?? null) === expected;
  return typeof got === 'number' && approx(got, expected, rel, 2e-6);
}

// ---------------------------------------------------------------------------------------------
// Facts

export interface DailyOptions {
  /** `currency=X`: money converted into X at each day's rates. */
  readonly currency?: string;
}

/**
 * Sums per entity, day and device of one level, organization and range. Accounts always convert
 * (their platform accounts' money into the account's currency or `currency`, per day); lower
 * levels convert only with `currency`. The generated data has no markups.
 */
export async function factDaily(
  fx: ReportingFixture,
  level: Level,
  organizationId: number,
  from: string,
  to: string,
  options: DailyOptions = {},
): Promise<DailyRow[]> {
  const params: Array<string | number> = [organizationId, from, to];
  let factor = '1';
  let joins = '';
  let id = `f.${level.key}`;
  if (level.key === null) {
    id = 'l.account_id';
    const target = options.currency === undefined ? 'a.currency' : `$${params.push(options.currency)}`;
    joins = `JOIN account_adplatform_links l ON l.adplatform_account_id = f.adplatform_account_id
             JOIN accounts a ON a.id = l.account_id AND a.organization_id = $1
             JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
             JOIN fx_rates rt ON rt.day = f.day AND rt.currency = ${target}
             JOIN fx_rates rp ON rp.day = f.day AND rp.currency = p.currency`;
    factor = '(rt.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)';
  } else if (options.currency !== undefined) {
    const target = `$${params.push(options.currency)}`;
    joins = `JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
             JOIN fx_rates rt ON rt.day = f.day AND rt.currency = ${target}
             JOIN fx_rates rp ON rp.day = f.day AND rp.currency = p.currency`;
    factor = '(rt.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)';
  }
  const rows = await fx.sql<DailyRow>(
    `SELECT ${id} AS id, strftime(f.day, '%Y-%m-%d') AS day, f.device::VARCHAR AS device,
            sum(f.impressions)::DOUBLE AS impressions, sum(f.clicks)::DOUBLE AS clicks,
            sum(f.cost::DOUBLE * ${factor}) AS cost, sum(f.conversions::DOUBLE) AS conversions,
            sum(f.conversion_value::DOUBLE * ${factor}) AS "conversionValue", sum(f.calls)::DOUBLE AS calls,
            sum(f.call_conversions)::DOUBLE AS "callConversions",
            sum(f.call_conversions_fractional::DOUBLE) AS "callConversionsFractional"
       FROM ${level.fact} f ${joins}
      WHERE f.organization_id = $1 AND f.day >= $2::DATE AND f.day <= $3::DATE
      GROUP BY 1, 2, 3`,
    params,
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export interface Entity {
  readonly id: number;
  readonly currency: string;
  readonly platform: string | null;
}

/** Every entity of a level in an organization with the currency its rows show (without `currency`). */
export async function entitiesOf(fx: ReportingFixture, level: Level, organizationId: number): Promise<Entity[]> {
  const sql: Record<Level['path'], string> = {
    accounts: 'SELECT a.id, a.currency, NULL AS platform FROM accounts a WHERE a.organization_id = $1',
    'adplatform-accounts':
      'SELECT p.id, p.currency, p.ad_platform_type AS platform FROM adplatform_accounts p WHERE p.organization_id = $1',
    campaigns: `SELECT c.id, p.currency, p.ad_platform_type AS platform FROM campaigns c
                JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE c.organization_id = $1`,
    adgroups: `SELECT g.id, p.currency, p.ad_platform_type AS platform FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id
               JOIN adplatform_accounts p ON p.id = c.adplatform_account_id WHERE g.organization_id = $1`,
    keywords: `SELECT k.id, p.currency, p.ad_platform_type AS platform FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id
               JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
               WHERE k.organization_id = $1`,
    ads: `SELECT a.id, p.currency, p.ad_platform_type AS platform FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id
          JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
          WHERE a.organization_id = $1`,
  };
  const rows = await fx.sql<Entity>(`${sql[level.path]} ORDER BY 1`, [organizationId]);
  return rows.map((r) => ({ id: Number(r.id), currency: String(r.currency), platform: r.platform }));
}

// ---------------------------------------------------------------------------------------------
// Reach: the union of [user_from, user_to) runs, per platform account (each numbers its own audience)

export interface Run {
  campaignId: number;
  adId: number;
  pa: number;
  day: string;
  userFrom: number;
  userTo: number;
}

export async function audienceRuns(
  fx: ReportingFixture,
  organizationId: number,
  from: string,
  to: string,
): Promise<Run[]> {
  const rows = await fx.sql<Record<string, unknown>>(
    `SELECT campaign_id, ad_id, adplatform_account_id AS pa, strftime(day, '%Y-%m-%d') AS day, user_from, user_to
       FROM fact_audience_runs WHERE organization_id = $1 AND day >= $2::DATE AND day <= $3::DATE`,
    [organizationId, from, to],
  );
  return rows.map((r) => ({
    campaignId: Number(r.campaign_id),
    adId: Number(r.ad_id),
    pa: Number(r.pa),
    day: String(r.day),
    userFrom: Number(r.user_from),
    userTo: Number(r.user_to),
  }));
}

/** The number of distinct people in runs: per platform account, the length of the union of its intervals. */
export function unionLength(runs: readonly Run[]): number {
  const byPa = new Map<number, Array<[number, number]>>();
  for (const run of runs) {
    let list = byPa.get(run.pa);
    if (!list) byPa.set(run.pa, (list = []));
    list.push([run.userFrom, run.userTo]);
  }
  let total = 0;
  for (const list of byPa.values()) {
    list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let start = -Infinity;
    let end = -Infinity;
    for (const [a, b] of list) {
      if (a > end) {
        if (end > start) total += end - start;
        start = a;
        end = b;
      } else if (b > end) end = b;
    }
    if (end > start) total += end - start;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Buckets and pairing

export type SegmentName = 'Day' | 'Week' | 'Month' | 'Year' | 'DayOfWeek' | 'DeviceType';
export const SEGMENT_KEY: Record<SegmentName, string> = {
  Day: 'day',
  Week: 'week',
  Month: 'month',
  Year: 'year',
  DayOfWeek: 'dayOfWeek',
  DeviceType: 'deviceType',
};
/** Time segments pair by position; the others by value. */
export const TIME_SEGMENTS: ReadonlySet<SegmentName> = new Set(['Day', 'Week', 'Month', 'Year']);
const TIME = TIME_SEGMENTS;
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;
const monthNumber = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;

/** YYYY-MM of a month number (year * 12 + month - 1). */
function monthOf(n: number): string {
  return `${Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, '0')}`;
}

export function segmentValue(segment: SegmentName, row: { day: string; device: string }): string {
  switch (segment) {
    case 'Day':
      return row.day;
    case 'Week':
      return mondayOf(row.day);
    case 'Month':
      return row.day.slice(0, 7);
    case 'Year':
      return row.day.slice(0, 4);
    case 'DayOfWeek':
      return WEEKDAYS[new Date(`${row.day}T00:00:00Z`).getUTCDay()]!;
    case 'DeviceType':
      return row.device;
  }
}

/** The position of a day's time bucket in a range starting at `from` (0 = the bucket holding `from`). */
export function bucketPosition(segment: SegmentName, from: string, day: string): number {
  switch (segment) {
    case 'Day':
      return dayNumber(day) - dayNumber(from);
    case 'Week':
      return (dayNumber(mondayOf(day)) - dayNumber(mondayOf(from))) / 7;
    case 'Month':
      return monthNumber(day) - monthNumber(from);
    case 'Year':
      return Number(day.slice(0, 4)) - Number(from.slice(0, 4));
    case 'DayOfWeek':
    case 'DeviceType':
      throw new Error(`${segment} has no position`);
  }
}

/** The value of the i-th time bucket of a range starting at `from`. */
export function bucketAt(segment: SegmentName, from: string, position: number): string {
  switch (segment) {
    case 'Day':
      return addDays(from, position);
    case 'Week':
      return addDays(mondayOf(from), 7 * position);
    case 'Month':
      return monthOf(monthNumber(from) + position);
    case 'Year':
      return String(Number(from.slice(0, 4)) + position);
    case 'DayOfWeek':
    case 'DeviceType':
      throw new Error(`${segment} has no position`);
  }
}

/** How many buckets of a time segment a range touches. */
export function bucketCount(segment: SegmentName, from: string, to: string): number {
  return bucketPosition(segment, from, to) + 1;
}

export interface PairedBucket {
  /** null: a bucket of the whole result (segment totals). */
  id: number | null;
  /** Keyed as the API keys them; time segments show the current period's bucket. */
  segments?: Record<string, string>;
  current: Sums;
  compared: Sums;
  /** Which days the bucket holds in each period, for reach. */
  currentDays: Set<string>;
  comparedDays: Set<string>;
  currentDevices: Set<string>;
  comparedDevices: Set<string>;
  currentIds: Set<number>;
  comparedIds: Set<number>;
}

export interface Period {
  readonly from: string;
  readonly to: string;
}

/**
 * Rows of a compared report (or, with `byEntity` false, its segment totals) from the daily sums
 * of both periods: time segments pair by position, DeviceType by value. Without segments every
 * entity of `entityIds` is a row; with segments the buckets active in either period. In the
 * default order: id, then the segments in the requested order.
 */
export function pairBuckets(
  current: readonly DailyRow[],
  compared: readonly DailyRow[],
  segments: readonly SegmentName[],
  periods: { current: Period; compared: Period },
  options: { byEntity: boolean; entityIds?: readonly number[] },
): PairedBucket[] {
  const buckets = new Map<string, PairedBucket>();
  const fresh = (id: number | null, segs: Record<string, string> | undefined): PairedBucket => ({
    id,
    ...(segs ? { segments: segs } : {}),
    current: zero(),
    compared: zero(),
    currentDays: new Set(),
    comparedDays: new Set(),
    currentDevices: new Set(),
    comparedDevices: new Set(),
    currentIds: new Set(),
    comparedIds: new Set(),
  });
  if (segments.length === 0 && options.byEntity)
    for (const id of options.entityIds ?? []) buckets.set(`${id}`, fresh(id, undefined));
  const place = (row: DailyRow, period: Period, which: 'current' | 'compared') => {
    const id = options.byEntity ? row.id : null;
    const segs: Record<string, string> = {};
    const parts: string[] = [String(id)];
    for (const segment of segments) {
      if (TIME.has(segment)) {
        const position = bucketPosition(segment, period.from, row.day);
        parts.push(String(position));
        segs[SEGMENT_KEY[segment]] = bucketAt(segment, periods.current.from, position);
      } else {
        const value = segmentValue(segment, row);
        parts.push(value);
        segs[SEGMENT_KEY[segment]] = value;
      }
    }
    const key = parts.join('|');
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = fresh(id, segments.length > 0 ? segs : undefined)));
    add(bucket[which], row);
    bucket[which === 'current' ? 'currentDays' : 'comparedDays'].add(row.day);
    bucket[which === 'current' ? 'currentDevices' : 'comparedDevices'].add(row.device);
    bucket[which === 'current' ? 'currentIds' : 'comparedIds'].add(row.id);
  };
  for (const row of current) place(row, periods.current, 'current');
  for (const row of compared) place(row, periods.compared, 'compared');
  const segmentText = (b: PairedBucket) => segments.map((s) => b.segments![SEGMENT_KEY[s]]!);
  return [...buckets.values()].sort((a, b) => {
    if (a.id !== b.id) return (a.id ?? 0) - (b.id ?? 0);
    const sa = segmentText(a);
    const sb = segmentText(b);
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sa[i]! < sb[i]! ? -1 : 1;
    return 0;
  });
}

/** The key a row is known by in messages and maps: id (if any) and its segments. */
export function rowKey(row: {
  id?: number | null;
  campaignLabel?: { value: unknown };
  segments?: Record<string, unknown>;
}): string {
  const label = row.campaignLabel ? ` [${JSON.stringify(row.campaignLabel.value)}]` : '';
  return `${row.id ?? '*'}${label}${row.segments ? ` ${JSON.stringify(row.segments)}` : ''}`;
}

/**
 * Differences between compared API rows and the oracle's paired buckets: the row set and order,
 * statistics, comparison.statistics and change.statistics. `reachOf` gives a bucket's reach in
 * each period where the endpoint has reach.
 */
export function compareRowProblems(
  apiRows: readonly any[],
  expected: readonly PairedBucket[],
  statistics: readonly string[],
  options: {
    rel?: number;
    /** Money null (several currencies) for these buckets. */
    moneyNull?: (bucket: PairedBucket) => boolean;
    reachOf?: (bucket: PairedBucket, period: 'current' | 'compared') => number;
    /** segment totals: the statistics sit on the entry itself, comparison/change flat. */
    flat?: boolean;
    /** Check comparison and change (false for a report without compare). */
    compared?: boolean;
  } = {},
): string[] {
  const problems: string[] = [];
  const apiKeys = apiRows.map(rowKey);
  const expectedKeys = expected.map(rowKey);
  if (apiKeys.join('\n') !== expectedKeys.join('\n')) {
    const apiSet = new Set(apiKeys);
    const expSet = new Set(expectedKeys);
    const missing = expectedKeys.filter((k) => !apiSet.has(k));
    const extra = apiKeys.filter((k) => !expSet.has(k));
    problems.push(
      `rows differ: ${apiRows.length} rows, expected ${expected.length}; missing ${missing.slice(0, 4).join('; ')}${missing.length > 4 ? ` (+${missing.length - 4})` : ''}; unexpected ${extra.slice(0, 4).join('; ')}${extra.length > 4 ? ` (+${extra.length - 4})` : ''}`,
    );
    if (missing.length === 0 && extra.length === 0) {
      const at = apiKeys.findIndex((k, i) => k !== expectedKeys[i]);
      problems.push(`order differs at ${at}: got ${apiKeys[at]}, expected ${expectedKeys[at]}`);
    }
  }
  const byKey = new Map(expected.map((b) => [rowKey(b), b]));
  const rel = options.rel ?? 1e-6;
  const compared = options.compared ?? true;
  for (const row of apiRows) {
    const bucket = byKey.get(rowKey(row));
    if (!bucket) continue;
    const stats = options.flat ? row : row.statistics;
    const comparison = options.flat ? row.comparison : row.comparison?.statistics;
    const change = options.flat ? row.change : row.change?.statistics;
    if (compared && (comparison === undefined || change === undefined)) {
      problems.push(`${rowKey(row)}: no comparison/change in ${JSON.stringify(row).slice(0, 200)}`);
      continue;
    }
    const moneyNull = options.moneyNull?.(bucket) ?? false;
    for (const name of statistics) {
      const value = (period: 'current' | 'compared') =>
        moneyNull && MONEY.has(name)
          ? null
          : statistic(
              name,
              bucket[period],
              options.reachOf && (name === 'reach' || name === 'frequency')
                ? options.reachOf(bucket, period)
                : undefined,
            );
      const c = value('current');
      if (!statisticClose(name, stats?.[name], c, rel))
        problems.push(`${rowKey(row)}: statistics.${name} = ${stats?.[name]}, expected ${c}`);
      if (!compared) continue;
      const p = value('compared');
      if (!statisticClose(name, comparison?.[name], p, rel))
        problems.push(`${rowKey(row)}: comparison.${name} = ${comparison?.[name]}, expected ${p}`);
      if (!changeClose(change?.[name], c, p, rel))
        problems.push(`${rowKey(row)}: change.${name} = ${change?.[name]}, expected ${changeOf(c, p)} (${c} vs ${p})`);
    }
    if (problems.length > 30) break;
  }
  return problems.slice(0, 30);
}
