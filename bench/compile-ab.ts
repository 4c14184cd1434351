/**
 * A/B of the JSON page query of a few reports: an older checkout's compiler against this one, in
 * one process, on one read-only connection, runs interleaved, medians (issue 19: the cost of
 * `currency=`). The database must be migrated and carry fx_rates (start the service on it once).
 *
 *   git worktree add /tmp/before <commit>    # or git archive <commit> | tar -x -C /tmp/before, with node_modules linked
 *   node dist/cli.cjs data generate --scale 1 --db /tmp/ab/adreport.duckdb
 *   node --import tsx bench/compile-ab.ts --db /tmp/ab/adreport.duckdb --before /tmp/before [--rounds 80]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { Database } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';
import { loadFxReference } from '../src/reference/fx-rates.js';
import { toDuckDBValues } from '../src/store/sql-values.js';

const { values } = parseArgs({
  options: { db: { type: 'string' }, before: { type: 'string' }, rounds: { type: 'string', default: '80' } },
});
if (!values.db || !values.before) throw new Error('usage: --db FILE --before DIR [--rounds N]');
const rounds = Number(values.rounds);

interface Compiler {
  endpoints: Map<string, unknown>;
  plan(endpoint: unknown, request: object, now: Date): unknown;
  page(plan: unknown): { sql: string; params: readonly unknown[] };
}
async function compilerOf(root: string): Promise<Compiler> {
  const endpoints = await import(path.join(root, 'src/catalog/endpoints.ts'));
  const planner = await import(path.join(root, 'src/planner/build-plan.ts'));
  const compiler = await import(path.join(root, 'src/sql/compile-report.ts'));
  // Before issue 20 the JSON page had a function of its own; since, every statement is finished from compileReport.
  const page = compiler.compileJsonPage ?? ((plan: unknown) => compiler.compileReport(plan).jsonPage());
  return { endpoints: endpoints.ENDPOINT_BY_PATH, plan: planner.buildPlan, page };
}

// Bring the file up to this checkout's schema and reference rates, then read it without locks of our own.
const store = await Database.open(values.db, { readConnections: 1, maxQueued: 4 });
await migrate(store);
await loadFxReference(store);
await store.close();

const before = await compilerOf(path.resolve(values.before));
const after = await compilerOf(path.resolve('.'));
const now = new Date();
const request = {
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
const cases: Array<[string, string, object]> = [
  ['campaigns', 'campaigns', {}],
  ['campaigns by Day', 'campaigns', { segments: ['Day'] }],
  ['keywords', 'keywords', {}],
  ['accounts', 'accounts', {}],
];
const variants: Array<[string, { sql: string; params: readonly unknown[] }]> = [];
for (const [label, endpoint, extra] of cases) {
  const compile = (c: Compiler, more: object) =>
    c.page(c.plan(c.endpoints.get(endpoint), { ...request, ...extra, ...more }, now));
  variants.push(
    [`${label}: before`, compile(before, {})],
    [`${label}: after`, compile(after, {})],
    [`${label}: after, currency=USD`, compile(after, { currency: 'USD' })],
  );
}
const instance = await DuckDBInstance.create(values.db, { access_mode: 'READ_ONLY' });
const connection = await instance.connect();
const statements = await Promise.all(
  variants.map(async ([, compiled]) => {
    const statement = await connection.prepare(compiled.sql);
    statement.bind(toDuckDBValues(compiled.params as never) as never);
    return statement;
  }),
);
const times = variants.map(() => [] as number[]);
for (let round = 0; round < rounds + 3; round++) {
  for (let i = 0; i < statements.length; i++) {
    const started = performance.now();
    await statements[i]!.runAndReadAll();
    if (round >= 3) times[i]!.push(performance.now() - started);
  }
}
variants.forEach(([label], i) => {
  const sorted = times[i]!.sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(2);
  console.log(
    `${label.padEnd(36)} p50 ${at(0.5).padStart(7)} ms   p25 ${at(0.25).padStart(7)}   p75 ${at(0.75).padStart(7)}`,
  );
});
