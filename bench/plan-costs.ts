/**
 * One at a time, the query time of report shapes on a generated database: what the report lane's
 * weight (src/planner/report-weight.ts) is calibrated on.
 *
 *   node --import tsx bench/plan-costs.ts <copy of a generated .duckdb> <organization id> <last day>
 */
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import type { ReportRequest } from '../src/planner/report-plan.js';
import { reportSlots } from '../src/planner/report-weight.js';
import { addDays } from '../src/shared/dates.js';
import { reportRequestOf } from '../test/helpers/report-request.js';
import { compileReport } from '../src/sql/compile-report.js';
import { loadFxReference } from '../src/reference/fx-rates.js';
import { Database } from '../src/store/database.js';

const [file, orgText, lastDay] = process.argv.slice(2);
if (!file || !orgText || !lastDay) throw new Error('usage: plan-costs.ts FILE ORG LASTDAY');
const organizationId = Number(orgText);

const shapes: Array<[string, string, number, Partial<ReportRequest>]> = [
  ['campaigns 30 d', 'campaigns', 30, {}],
  ['campaigns 400 d', 'campaigns', 400, {}],
  ['campaigns Day 90 d', 'campaigns', 90, { segments: ['Day'] }],
  ['adgroups Day x Device 7 d', 'adgroups', 7, { segments: ['Day', 'DeviceType'] }],
  ['adgroups 90 d', 'adgroups', 90, {}],
  ['adgroups 400 d', 'adgroups', 400, {}],
  ['keywords filtered 30 d', 'keywords', 30, { filter: 'statistics.clicks > 10', sort: '-statistics.cost' }],
  ['keywords 30 d limit 1000', 'keywords', 30, { limit: 1000 }],
  ['keywords 30 d limit 10000', 'keywords', 30, { limit: 10000 }],
  ['keywords 90 d', 'keywords', 90, {}],
  ['keywords 400 d', 'keywords', 400, {}],
  ['ads 30 d', 'ads', 30, {}],
  ['ads 400 d', 'ads', 400, {}],
  ['accounts 400 d Day', 'accounts', 400, { segments: ['Day'] }],
  ['accounts 183 d Day', 'accounts', 183, { segments: ['Day'] }],
  ['campaigns 400 d Day', 'campaigns', 400, { segments: ['Day'] }],
  ['keywords 183 d', 'keywords', 183, {}],
  ['keywords 30 d Day', 'keywords', 30, { segments: ['Day'] }],
  ['ads 183 d', 'ads', 183, {}],
  ['adgroups 183 d Day x Device', 'adgroups', 183, { segments: ['Day', 'DeviceType'] }],
];

const db = await Database.open(file, { readConnections: 1, maxQueued: 16, reportConcurrency: 1 });
await loadFxReference(db).catch(() => undefined);
console.log('| report | slots | ms (median of 5) |\n|---|---|---:|');
for (const [name, path, days, extra] of shapes) {
  const request: ReportRequest = reportRequestOf({
    organizationId,
    startDate: addDays(lastDay, 1 - days),
    endDate: lastDay,
    ...extra,
  });
  const plan = buildPlan(ENDPOINT_BY_PATH.get(path)!, request, new Date(`${addDays(lastDay, 1)}T12:00:00Z`));
  const page = compileReport(plan).jsonPage();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await db.read(async (r) => (await r.lazy(page.sql, page.params)).release());
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`| ${name} | ${reportSlots(plan)} | ${times[2]!.toFixed(1)} |`);
}
await db.close();
