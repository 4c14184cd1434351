/**
 * A/B of aggregate navigation (issue 21): the JSON page statement of report requests compiled
 * with rollups off (the facts, as before issue 21) and on, run interleaved on one connection,
 * medians. Opens the file itself: use a copy of a generated database (never one a server holds),
 * migrated to version 10 (start the service on it once, or let this script migrate it).
 *
 *   cp bench/out/scale-10/adreport.duckdb /tmp/ab.duckdb
 *   node --import tsx bench/rollup-ab.ts --db /tmp/ab.duckdb [--org 1] [--rounds 40]
 */
import { parseArgs } from 'node:util';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import type { ReportRequest } from '../src/planner/report-plan.js';
import { addDays } from '../src/shared/dates.js';
import { reportRequestOf } from '../test/helpers/report-request.js';
import { compileReport, type CompiledQuery } from '../src/sql/compile-report.js';
import { Database } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    org: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '40' },
  },
});
if (!values.db) throw new Error('usage: --db FILE [--org N] [--rounds N]');
const rounds = Number(values.rounds);
const organizationId = Number(values.org);

const db = await Database.open(values.db, { readConnections: 1, maxQueued: 4, threads: 2 });
const migrateStart = performance.now();
const migrated = await migrate(db);
if (migrated.length > 0)
  console.log(`migrated ${migrated.join(', ')} in ${Math.round(performance.now() - migrateStart)} ms`);
const lastDay = (await db.read((r) =>
  r.one<{ d: string }>("SELECT strftime(max(day), '%Y-%m-%d') AS d FROM fact_ad_daily"),
))!.d;
const now = new Date(`${addDays(lastDay, 1)}T12:00:00Z`);
const base: ReportRequest = reportRequestOf({
  organizationId,
  startDate: addDays(lastDay, -29),
  endDate: lastDay,
});
const CASES: ReadonlyArray<[string, string, ReportRequest]> = [
  ['campaigns, 30 days (campaigns30d)', 'campaigns', base],
  ['accounts, 30 days', 'accounts', base],
  ['adplatform-accounts, 30 days', 'adplatform-accounts', base],
  ['campaigns, 30 days, networkType filter', 'campaigns', { ...base, filter: "segments.networkType == 'SEARCH'" }],
  ['campaigns, 400 days by Month', 'campaigns', { ...base, startDate: addDays(lastDay, -399), segments: ['Month'] }],
  [
    'accounts, 400 days by Month x DeviceType',
    'accounts',
    { ...base, startDate: addDays(lastDay, -399), segments: ['Month', 'DeviceType'] },
  ],
  [
    'adgroups Day x DeviceType, 7 days (mix)',
    'adgroups',
    {
      ...base,
      startDate: addDays(lastDay, -6),
      segments: ['Day', 'DeviceType'],
      statistics: ['impressions', 'clicks', 'cost', 'ctr'],
    },
  ],
];

const run = (q: CompiledQuery) => db.read((r) => r.all(q.sql, q.params));
const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
console.log(`organization ${organizationId}, ${rounds} rounds, medians`);
console.log('| request | read with rollups | off ms | on ms | off/on |');
console.log('| --- | --- | --- | --- | --- |');
for (const [name, endpoint, request] of CASES) {
  const plan = buildPlan(ENDPOINT_BY_PATH.get(endpoint)!, request, now);
  const off = compileReport(plan, undefined, { rollups: false });
  const on = compileReport(plan, undefined, { rollups: true });
  const queries = [off.jsonPage(), on.jsonPage()] as const;
  for (const q of queries) for (let i = 0; i < 3; i++) await run(q);
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < rounds; i++) {
    for (const k of [0, 1] as const) {
      const start = performance.now();
      await run(queries[k]);
      times[k].push(performance.now() - start);
    }
  }
  const [a, b] = [median(times[0]), median(times[1])];
  console.log(`| ${name} | ${on.query.factTable} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(1)}x |`);
}
await db.close();
