import { describe, expect, it } from 'vitest';
import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { buildPlan } from '../../src/planner/build-plan.js';
import type { ReportPlan, ReportRequest } from '../../src/planner/report-plan.js';
import { ApiError } from '../../src/shared/errors.js';
import { compileReport, type CompiledQuery } from '../../src/sql/compile-report.js';
import type { SqlValue } from '../../src/store/sql-values.js';
import { useGeneratedDatabase } from '../helpers/generated-database.js';
import { CORPUS, literal } from '../helpers/injection-corpus.js';
import { reportRequestOf } from '../helpers/report-request.js';

/**
 * The injection corpus of test/service/reporting-injection.test.ts run against the dialect-neutral
 * compiler directly (issue 20 item 7), past the HTTP layer's own checks: every hostile string in
 * every place a user value can go. A value place compiles to exactly the SQL of a harmless value
 * in the same place, with the hostile text among the params; a syntax place is a 400 before any
 * SQL or SQL without the text (catalogue and formula names aside); every statement runs.
 */

const generated = useGeneratedDatabase('adreport-golden-injection-');
const ORG = 1;
const NOW = new Date();
const SAFE = 'zq';

const request = (overrides: Partial<ReportRequest>): ReportRequest =>
  reportRequestOf({ organizationId: ORG, statistics: ['clicks', 'cost'], limit: 50, totals: true, ...overrides });

/** Every statement of a plan: page, totals, JSON page, the three exports' SELECTs (parquet is csv's), estimates and their gate. */
function statements(plan: ReportPlan): Array<readonly [string, CompiledQuery]> {
  const report = compileReport(plan);
  const estimates = report.estimates();
  return [
    ['page', report.page()],
    ['totals', report.totals()!],
    ['jsonPage', report.jsonPage()],
    ['csv', report.export('csv')],
    ['ndjson', report.export('ndjson')],
    ...(estimates
      ? ([
          ['estimates', estimates.estimates],
          ['gate', estimates.gate],
        ] as const)
      : []),
  ];
}

/** A place where a value goes: the request around it, and what the bound param must be. */
interface ValuePlace {
  readonly name: string;
  readonly endpoint: string;
  readonly request: (value: string) => Partial<ReportRequest>;
  /** The param the value becomes (the name parameter: a LIKE pattern, `*` -> `%`, `\ % _` escaped). */
  readonly bound?: (value: string) => string;
}

const label = (value: string) => ({ name: value, stored: value });
const VALUE_PLACES: readonly ValuePlace[] = [
  { name: 'entity literal', endpoint: 'campaigns', request: (v) => ({ filter: `name == ${literal(v)}` }) },
  {
    name: 'entity in-list',
    endpoint: 'ads',
    request: (v) => ({ filter: `status in [${literal(v)}, 'x'] && adType != ${literal(v)}` }),
  },
  {
    name: 'fact literal',
    endpoint: 'campaigns',
    request: (v) => ({ filter: `segments.deviceType == ${literal(v)} && segments.networkType in [${literal(v)}]` }),
  },
  {
    name: 'bucket literal (mixed OR)',
    endpoint: 'keywords',
    request: (v) => ({ filter: `contains(text, ${literal(v)}) || statistics.clicks < 0`, segments: ['Week'] }),
  },
  {
    name: 'label value',
    endpoint: 'accounts',
    request: (v) => ({ filter: `labels.tier == ${literal(v)}`, embed: ['labels'] }),
  },
  {
    name: 'campaign label value',
    endpoint: 'campaigns',
    request: (v) => ({ filter: `endsWith(labels.team, ${literal(v)})` }),
  },
  {
    name: 'custom field',
    endpoint: 'accounts',
    request: (v) => ({ filter: `startsWith(customFields.field1, ${literal(v)})`, embed: ['customFields'] }),
  },
  {
    name: 'name wildcard',
    endpoint: 'keywords',
    request: (v) => ({ name: v }),
    bound: (v) => v.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll('*', '%'),
  },
  { name: 'currency (campaigns)', endpoint: 'campaigns', request: (v) => ({ currency: v }) },
  { name: 'currency (accounts)', endpoint: 'accounts', request: (v) => ({ currency: v }) },
  {
    name: 'campaign label',
    endpoint: 'accounts',
    request: (v) => ({ campaignLabel: label(v), filter: `campaignLabel.value != ${literal(v)}` }),
  },
];

/** Places of syntax: the text is (part of) an expression, a sort, a formula, a name. */
const SYNTAX_PLACES: ReadonlyArray<readonly [string, string, (p: string) => Partial<ReportRequest>]> = [
  ['filter', 'campaigns', (p) => ({ filter: p })],
  ['filter number', 'campaigns', (p) => ({ filter: `statistics.clicks > ${p}` })],
  ['filter id', 'adgroups', (p) => ({ filter: `id == ${p}` })],
  ['label name', 'accounts', (p) => ({ filter: `labels.${p} == 'x'`, sort: `labels.${p}` })],
  ['sort', 'campaigns', (p) => ({ sort: p })],
  ['sort list', 'ads', (p) => ({ sort: `-${p},id`, segments: ['DayOfWeek'] })],
  ['formula', 'campaigns', (p) => ({ formulas: [p] })],
  ['formula expression', 'campaigns', (p) => ({ formulas: [`f:${p}:Money`] })],
  ['formula type', 'campaigns', (p) => ({ formulas: [`f:statistics.clicks:${p}`] })],
  ['formula name', 'campaigns', (p) => ({ formulas: [`${p}:statistics.clicks:Integer`], sort: `-formulas.${p}` })],
  [
    'formula literal',
    'keywords',
    (p) => ({ formulas: [`f:statistics.cost*${p}:Decimal`], filter: 'formulas.f > 0', sort: '-formulas.f' }),
  ],
  ['round digits', 'campaigns', (p) => ({ formulas: [`f:round(statistics.cost, ${p}):Money`] })],
  ['statistics', 'campaigns', (p) => ({ statistics: [p] })],
  ['segments', 'campaigns', (p) => ({ segments: ['Day', p] })],
  ['embed', 'accounts', (p) => ({ embed: [p] })],
];

/** The plan, or undefined for a clean 400 (anything else thrown fails the test). */
function plan(
  endpoint: string,
  overrides: Partial<ReportRequest>,
  range: { startDate: string; endDate: string },
): ReportPlan | undefined {
  try {
    return buildPlan(ENDPOINT_BY_PATH.get(endpoint)!, request({ ...range, ...overrides }), NOW);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return undefined;
    throw error;
  }
}

/** Runs statements on the generated database, a few at a time; the failures as text. */
async function runAll(queries: ReadonlyArray<readonly [string, CompiledQuery]>): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < queries.length) {
        const [what, query] = queries[next++]!;
        try {
          await generated.db.read((r) => r.all(query.sql, query.params));
        } catch (error) {
          problems.push(`${what}: ${String((error as Error).message).slice(0, 200)}`);
        }
      }
    }),
  );
  return problems;
}

const short = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
const range = () => ({ startDate: generated.lastDay, endDate: generated.lastDay });

describe('the injection corpus against the compiler', () => {
  it.each(VALUE_PLACES.map((p) => [p.name, p] as const))(
    '%s: the SQL of a harmless value, the text bound, every statement runs',
    async (_name, place) => {
      const baseline = statements(plan(place.endpoint, place.request(SAFE), range())!);
      const bound = place.bound ?? ((v: string) => v);
      const problems: string[] = [];
      const toRun: Array<readonly [string, CompiledQuery]> = [];
      for (const payload of CORPUS) {
        const p = plan(place.endpoint, place.request(payload), range());
        if (p === undefined) continue; // a clean 400 (syntax members of the corpus)
        const compiled = statements(p);
        compiled.forEach(([statement, query], i) => {
          const [, base] = baseline[i]!;
          const what = `${short(payload)} ${statement}`;
          if (query.sql !== base.sql) problems.push(`${what}: SQL differs from a harmless value's`);
          if (query.params.length !== base.params.length)
            problems.push(`${what}: ${query.params.length} params, not ${base.params.length}`);
          // Where the harmless value was bound, the hostile one is, exactly as given (the pattern of it for names).
          base.params.forEach((value, j) => {
            const expected: SqlValue =
              typeof value === 'string' && value.includes(SAFE)
                ? value.replace(bound(SAFE), () => bound(payload))
                : value;
            if (query.params[j] !== expected)
              problems.push(`${what}: $${j + 1} is ${short(String(query.params[j]))}, not ${short(String(expected))}`);
          });
          if (payload.length > 2 && !base.sql.includes(payload) && query.sql.includes(payload))
            problems.push(`${what}: the text is in the SQL`);
          toRun.push([what, query]);
        });
      }
      expect(problems.slice(0, 20)).toEqual([]);
      // The value-carrying members of the corpus get through the planner: at least the 32 texts.
      expect(toRun.length).toBeGreaterThanOrEqual(32 * baseline.length);
      expect(await runAll(toRun)).toEqual([]);
    },
  );

  it.each(SYNTAX_PLACES.map(([name, endpoint, build]) => [name, endpoint, build] as const))(
    '%s: a clean 400, or SQL without the text that runs',
    async (_name, endpoint, build) => {
      const harmless = statements(plan(endpoint, {}, range())!)
        .map(([, q]) => q.sql)
        .join('\n');
      const problems: string[] = [];
      const toRun: Array<readonly [string, CompiledQuery]> = [];
      for (const payload of CORPUS) {
        const p = plan(endpoint, build(payload), range());
        if (p === undefined) continue;
        for (const [statement, query] of statements(p)) {
          // A name that is a catalogue or formula name may appear (quoted); anything else only where a plain report has it too.
          const nameLike = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(payload);
          if (query.sql.includes(payload) && !nameLike && !harmless.includes(payload))
            problems.push(`${short(payload)} ${statement}: the text is in the SQL`);
          toRun.push([`${short(payload)} ${statement}`, query]);
        }
      }
      expect(problems).toEqual([]);
      expect(await runAll(toRun)).toEqual([]);
    },
  );
});
