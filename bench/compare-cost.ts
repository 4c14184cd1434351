/**
 * What `compare` and `totals=segments` cost (issue 23): the statements a JSON answer runs (page,
 * and totals or totals with segment totals), one at a time, for a report over range A, over range
 * B, with compare=B (A against B), and with totals=true against totals=segments. The variants of
 * one shape run interleaved, 15 rounds, medians: the machine's noise hits them alike.
 *
 *   node --import tsx bench/compare-cost.ts <copy of a generated .duckdb> <organization id> <last day>
 */
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import type { ReportRequest } from '../src/planner/report-plan.js';
import { addDays } from '../src/shared/dates.js';
import { reportRequestOf } from '../test/helpers/report-request.js';
import { compileReport, type CompiledQuery } from '../src/sql/compile-report.js';
import { loadFxReference } from '../src/reference/fx-rates.js';
import { Database } from '../src/store/database.js';

const [file, orgText, lastDay] = process.argv.slice(2);
if (!file || !orgText || !lastDay) throw new Error('usage: compare-cost.ts FILE ORG LASTDAY');
const organizationId = Number(orgText);
const db = await Database.open(file, { readConnections: 1, maxQueued: 16, reportConcurrency: 1 });
await loadFxReference(db).catch(() => undefined);
const now = new Date(`${addDays(lastDay, 1)}T12:00:00Z`);
const ROUNDS = 15;

/** The statements of a JSON answer, as the service runs them (totals=segments gives the totals row too). */
function statementsOf(path: string, request: Partial<ReportRequest>): CompiledQuery[] {
  const plan = buildPlan(ENDPOINT_BY_PATH.get(path)!, reportRequestOf({ organizationId, ...request }), now);
  const report = compileReport(plan);
  return [report.jsonPage(), report.segmentTotals() ?? report.totals()].filter((s) => s !== undefined);
}

/** Median ms of each variant, the variants run in turn in every round. */
async function interleaved(variants: CompiledQuery[][]): Promise<number[]> {
  const times = variants.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, statements] of variants.entries()) {
      const t = performance.now();
      for (const s of statements) await db.read(async (r) => (await r.lazy(s.sql, s.params)).release());
      times[i]!.push(performance.now() - t);
    }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!);
}

const shapes: Array<[string, string, number, Partial<ReportRequest>]> = [
  ['campaigns', 'campaigns', 30, {}],
  ['campaigns Day', 'campaigns', 30, { segments: ['Day'] }],
  ['accounts Day', 'accounts', 30, { segments: ['Day'] }],
  ['keywords', 'keywords', 30, {}],
  ['adgroups Week x Device', 'adgroups', 28, { segments: ['Week', 'DeviceType'] }],
];
const ms = (n: number) => n.toFixed(1);
console.log(
  '| report (30 days) | A ms | B ms | A + B ms | compare=B ms | compare / (A + B) |\n|---|---:|---:|---:|---:|---:|',
);
for (const [name, path, days, extra] of shapes) {
  const a = { startDate: addDays(lastDay, 1 - days), endDate: lastDay, totals: true, ...extra };
  const b = { startDate: addDays(lastDay, 1 - 2 * days), endDate: addDays(lastDay, -days), totals: true, ...extra };
  const [ta, tb, tc] = await interleaved([
    statementsOf(path, a),
    statementsOf(path, b),
    statementsOf(path, { ...a, compare: `${b.startDate}..${b.endDate}` }),
  ]);
  console.log(
    `| ${name} | ${ms(ta!)} | ${ms(tb!)} | ${ms(ta! + tb!)} | ${ms(tc!)} | ${(tc! / (ta! + tb!)).toFixed(2)} |`,
  );
}
console.log('\n| report (30 days) | totals=true ms | totals=segments ms | ratio |\n|---|---:|---:|---:|');
for (const [name, path, days, extra] of shapes.filter(([, , , e]) => e.segments)) {
  const a = { startDate: addDays(lastDay, 1 - days), endDate: lastDay, totals: true, ...extra };
  const [t1, t2] = await interleaved([statementsOf(path, a), statementsOf(path, { ...a, segmentTotals: true })]);
  console.log(`| ${name} | ${ms(t1!)} | ${ms(t2!)} | ${(t2! / t1!).toFixed(2)} |`);
}
await db.close();
