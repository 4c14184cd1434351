/**
 * What `compare` and `totals=segments` cost (issue 23): one at a time, the query time of a report
 * over range A, over range B, and with compare=B (A against B), and a segmented report with
 * totals=true against totals=segments. Medians of 7, on a copy of a generated database.
 *
 *   node --import tsx bench/compare-cost.ts <copy of a generated .duckdb> <organization id> <last day>
 */
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import type { ReportRequest } from '../src/planner/report-plan.js';
import { addDays } from '../src/shared/dates.js';
import { reportRequestOf } from '../test/helpers/report-request.js';
import { compileReport } from '../src/sql/compile-report.js';
import { loadFxReference } from '../src/reference/fx-rates.js';
import { Database } from '../src/store/database.js';

const [file, orgText, lastDay] = process.argv.slice(2);
if (!file || !orgText || !lastDay) throw new Error('usage: compare-cost.ts FILE ORG LASTDAY');
const organizationId = Number(orgText);
const db = await Database.open(file, { readConnections: 1, maxQueued: 16, reportConcurrency: 1 });
await loadFxReference(db).catch(() => undefined);
const now = new Date(`${addDays(lastDay, 1)}T12:00:00Z`);

/** Median ms of the statements a JSON answer runs (page, totals, segment totals). */
async function cost(path: string, request: Partial<ReportRequest>): Promise<number> {
  const plan = buildPlan(ENDPOINT_BY_PATH.get(path)!, reportRequestOf({ organizationId, ...request }), now);
  const report = compileReport(plan);
  const statements = [report.jsonPage(), report.totals(), report.segmentTotals()].filter((s) => s !== undefined);
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    for (const s of statements) await db.read(async (r) => (await r.lazy(s.sql, s.params)).release());
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[3]!;
}

const shapes: Array<[string, string, number, Partial<ReportRequest>]> = [
  ['campaigns', 'campaigns', 30, {}],
  ['campaigns Day', 'campaigns', 30, { segments: ['Day'] }],
  ['accounts Day', 'accounts', 30, { segments: ['Day'] }],
  ['keywords', 'keywords', 30, {}],
  ['adgroups Week x Device', 'adgroups', 28, { segments: ['Week', 'DeviceType'] }],
];
console.log(
  '| report (30 days) | A ms | B ms | A + B ms | compare=B ms | compare / (A + B) |\n|---|---:|---:|---:|---:|---:|',
);
for (const [name, path, days, extra] of shapes) {
  const a = { startDate: addDays(lastDay, 1 - days), endDate: lastDay, ...extra };
  const b = { startDate: addDays(lastDay, 1 - 2 * days), endDate: addDays(lastDay, -days), ...extra };
  const [ta, tb] = [await cost(path, { ...a, totals: true }), await cost(path, { ...b, totals: true })];
  const tc = await cost(path, { ...a, totals: true, compare: `${b.startDate}..${b.endDate}` });
  console.log(
    `| ${name} | ${ta.toFixed(1)} | ${tb.toFixed(1)} | ${(ta + tb).toFixed(1)} | ${tc.toFixed(1)} | ${(tc / (ta + tb)).toFixed(2)} |`,
  );
}
console.log('\n| report (30 days) | totals=true ms | totals=segments ms | ratio |\n|---|---:|---:|---:|');
for (const [name, path, days, extra] of shapes.filter(([, , , e]) => e.segments)) {
  const a = { startDate: addDays(lastDay, 1 - days), endDate: lastDay, ...extra };
  const [t1, t2] = [
    await cost(path, { ...a, totals: true }),
    await cost(path, { ...a, segmentTotals: true, totals: true }),
  ];
  console.log(`| ${name} | ${t1.toFixed(1)} | ${t2.toFixed(1)} | ${(t2 / t1).toFixed(2)} |`);
}
await db.close();
