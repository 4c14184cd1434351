/**
 * What freshness (issue 23 item 5) adds to every report request: the one DuckDB statement that
 * reads the platform accounts of the report's entities, their sync state and running syncs,
 * per level, next to `SELECT 1` on the same lane (the floor of any statement). tinybench, one
 * request at a time.
 *
 *   cp -r bench/out/scale-10 /tmp/fresh && node --import tsx bench/freshness.ts --db /tmp/fresh/adreport.duckdb
 *
 * Opens the file itself (migrating a copy, never the original: DESIGN D1).
 */
import { Bench } from 'tinybench';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import type { ReportRequest } from '../src/planner/report-plan.js';
import { FreshnessReader } from '../src/reporting/data-freshness.js';
import { Database } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';

const option = (name: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const file = option('--db');
if (!file) throw new Error('--db <copy of a generated adreport.duckdb> is required');
const db = await Database.open(file, { readConnections: 1, maxQueued: 16 });
await migrate(db);

const NOW = new Date();
const request: ReportRequest = {
  organizationId: 1,
  startDate: undefined,
  endDate: undefined,
  statistics: undefined,
  segments: undefined,
  filter: undefined,
  sort: undefined,
  formulas: [],
  embed: undefined,
  name: undefined,
  limit: 100,
  offset: 0,
  totals: false,
};
const cases: Array<[string, string, Partial<ReportRequest>]> = [
  ['accounts', 'accounts', {}],
  ['adplatform-accounts', 'adplatform-accounts', {}],
  ['campaigns', 'campaigns', {}],
  ['campaigns, name filter', 'campaigns', { name: '*a*' }],
  ['keywords', 'keywords', {}],
  ['ads', 'ads', {}],
];

const bench = new Bench({ time: 2000, warmupTime: 300 });
bench.add('SELECT 1 (floor)', () => db.read((r) => r.all('SELECT 1')));
for (const [name, path, over] of cases) {
  const plan = buildPlan(ENDPOINT_BY_PATH.get(path)!, { ...request, ...over }, NOW);
  const freshness = await new FreshnessReader(db).read(plan);
  console.log(
    `${name}: ${freshness.platformAccounts.length} platform accounts, completeThrough ${freshness.completeThrough}`,
  );
  // A new reader each time: nothing kept (a miss, as after a write); one reader: the sync state kept.
  bench.add(`freshness ${name}, miss`, () => new FreshnessReader(db).read(plan));
  const reader = new FreshnessReader(db);
  bench.add(`freshness ${name}, kept`, () => reader.read(plan));
}
await bench.run();
console.table(
  bench.tasks.map((t) => {
    const latency = t.result && 'latency' in t.result ? t.result.latency : undefined;
    return {
      task: t.name,
      'p50 ms': latency?.p50?.toFixed(3),
      'p99 ms': latency?.p99?.toFixed(3),
      'mean ms': latency?.mean?.toFixed(3),
    };
  }),
);
await db.close();
