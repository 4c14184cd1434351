import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { addDays, fetchAll, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';
import { yesterdayUtc } from '../helpers/worlds.js';
import { compareResults, decimalsEqual } from '../helpers/sql-endpoint/compare-results.js';
import {
  differentialCorpus,
  type DifferentialStatement,
  type RestRow,
} from '../helpers/sql-endpoint/differential-corpus.js';
import { watchEndpointLog, type EndpointLog } from '../helpers/sql-endpoint/endpoint-log.js';
import { mirrorEndpoint, type Mirror } from '../helpers/sql-endpoint/mirror.js';
import { connectEndpoint, textQuery, type TextResult } from '../helpers/sql-endpoint/text-results.js';

/*
 * The SQL endpoint (issue 41) against a real PostgreSQL 15: the first organization's rows of
 * every relation are read through the endpoint (SELECT * FROM <relation>) and loaded into
 * PostgreSQL as tables of the catalog's types (information_schema.columns, through the endpoint);
 * then every statement of the corpus (helpers/sql-endpoint/differential-corpus.ts) runs on both
 * and the answers must be equal: the same column names, the same rows (in order when the ORDER BY
 * is total), integers exactly, decimals to 1e-9 relative. A dozen of them ask what a REST report
 * answers, and their numbers must be the report's. Integer / integer is asked on its own.
 *
 * Before the copy, the organization's account is switched to USD (its ad platform account reports
 * AUD) and gets two markup periods, so that FX per day and markups do something in account_daily,
 * cost_with_markup and the REST reports.
 */

const LAST_DAY = yesterdayUtc();
const CORPUS = differentialCorpus(LAST_DAY);

let fx: ReportingFixture;
let postgres: TestPostgres;
let endpoint: pg.Client;
let mirror: Mirror;
let endpointLog: EndpointLog;

beforeAll(async () => {
  endpointLog = watchEndpointLog();
  fx = await startReportingFixture({ world: 'small-2orgs-30d', service: { sqlPort: 0 } });
  const org = fx.orgs[0]!;
  const [account] = await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id', [
    org.id,
  ]);
  const patched = await fx.json(
    'PATCH',
    `/provisioning/v0/accounts/id/${account!.id}`,
    org.token,
    { account: { currency: 'USD' } },
    'application/merge-patch+json',
  );
  if (patched.status !== 200) throw new Error(`PATCH currency: ${patched.status} ${patched.text}`);
  for (const markup of [
    { rate: 0.25, startDate: addDays(LAST_DAY, -20), endDate: addDays(LAST_DAY, -10) },
    { rate: 0.1, startDate: addDays(LAST_DAY, -4), endDate: null },
  ]) {
    const res = await fx.json('POST', `/provisioning/v0/accounts/id/${account!.id}/markups`, org.token, { markup });
    if (res.status !== 201) throw new Error(`POST markup: ${res.status} ${res.text}`);
  }
  postgres = await startTestPostgres('adreport-pg-sql-differential-');
  endpoint = await connectEndpoint(fx, org);
  mirror = await mirrorEndpoint(endpoint, postgres, 'organization_model');
});

afterAll(async () => {
  await mirror?.close();
  await endpoint?.end().catch(() => undefined);
  await fx?.close();
  await postgres?.close();
  endpointLog?.stop();
});

/** The endpoint's answer and PostgreSQL's, or the error each gave (as "<SQLSTATE> message"). */
async function both(sql: string): Promise<{ endpoint: TextResult | string; postgres: TextResult | string }> {
  const attempt = (client: pg.Client) =>
    textQuery(client, sql).catch(
      (error: { code?: string; message?: string }) => `${error.code ?? 'no SQLSTATE'} ${error.message}`,
    );
  return { endpoint: await attempt(endpoint), postgres: await attempt(mirror.client) };
}

describe('the corpus', () => {
  it('has at least 200 statements, over every family the issue names', () => {
    const families = new Map<string, number>();
    for (const s of CORPUS) families.set(s.family, (families.get(s.family) ?? 0) + 1);
    expect(CORPUS.length).toBeGreaterThanOrEqual(200);
    expect([...families.keys()].sort()).toEqual(
      [
        'aggregate',
        'case-coalesce',
        'cast',
        'cte',
        'date',
        'distinct',
        'filter',
        'group-having-order',
        'join',
        'limit-offset',
        'order-nulls',
        'rest',
        'set-op',
        'string',
        'subquery',
        'window',
      ].sort(),
    );
    expect(CORPUS.filter((s) => s.rest).length).toBeGreaterThanOrEqual(10);
    expect(new Set(CORPUS.map((s) => s.sql)).size, 'no statement twice').toBe(CORPUS.length);
  });

  it('PostgreSQL holds every relation of the catalog, and rows of the first organization in the daily ones', () => {
    const rows = Object.fromEntries(mirror.relations.map((r) => [r.name, r.rows]));
    for (const name of ['campaign_daily', 'ad_group_daily', 'ad_daily', 'keyword_daily', 'account_daily', 'campaigns'])
      expect(rows[name], name).toBeGreaterThan(0);
    expect(mirror.relations.length).toBeGreaterThanOrEqual(20);
  });
});

/** Columns whose type OID differs (endpoint vs PostgreSQL) while the values are equal: reported, not judged. */
const typeDifferences = new Map<string, string[]>();

describe('each statement answers as PostgreSQL over the same rows', () => {
  for (const [index, statement] of CORPUS.entries()) {
    it(`${index} ${statement.family}: ${statement.sql}`, async () => {
      const answers = await both(statement.sql);
      expect(typeof answers.postgres, `PostgreSQL refused it: ${String(answers.postgres)}`).toBe('object');
      expect(answers.endpoint, 'the endpoint answers it').toEqual(expect.objectContaining({ rows: expect.anything() }));
      const comparison = compareResults(
        answers.endpoint as TextResult,
        answers.postgres as TextResult,
        statement.ordered,
      );
      for (const difference of comparison.typeDifferences) {
        const kind = difference.replace(/^.*?: /, '');
        typeDifferences.set(kind, [...(typeDifferences.get(kind) ?? []), `${index}`]);
      }
      expect(comparison.differences, comparison.typeDifferences.join('; ')).toEqual([]);
    });
  }
});

describe('texts without a statement', () => {
  for (const text of ['', ' ; ', '-- nothing']) {
    it(`${JSON.stringify(text)} answers as PostgreSQL does (no rows, no error)`, async () => {
      const outcome = async (client: pg.Client) =>
        client.query(text).then(
          (result) => `rows ${JSON.stringify((result as pg.QueryResult).rows ?? [])}`,
          (error: { code?: string }) => `error ${error.code}`,
        );
      expect(await outcome(endpoint)).toBe(await outcome(mirror.client));
    });
  }
});

describe('integer / integer (the known difference: PostgreSQL truncates)', () => {
  // Each with a total ORDER BY, so that the endpoint's rows, PostgreSQL's and the exact quotients line up.
  const statements = [
    'SELECT clicks / 2 AS half, impressions / nullif(clicks, 0) AS per_click, -clicks / 3 AS negative, clicks % 3 AS rest FROM campaign_daily ORDER BY campaign_id, day, device, network',
    'SELECT campaign_id, sum(clicks) / count(*) AS per_row FROM campaign_daily GROUP BY campaign_id ORDER BY campaign_id',
    'SELECT 7 / 2 AS q, -7 / 2 AS n, 7 % 2 AS r FROM accounts',
  ];
  for (const sql of statements) {
    it(`answers each quotient as PostgreSQL's truncation or as the exact quotient: ${sql}`, async () => {
      const answers = await both(sql);
      expect(typeof answers.endpoint, String(answers.endpoint)).toBe('object');
      const got = answers.endpoint as TextResult;
      const truncated = answers.postgres as TextResult;
      // The exact quotients, from PostgreSQL: the same statement over numeric.
      const exact = await textQuery(mirror.client, sql.replace(/(\w|\)) \/ /g, '$1::numeric / '));
      expect(got.rows.length).toBe(truncated.rows.length);
      const semantics = new Set<string>();
      got.rows.forEach((row, r) =>
        row.forEach((value, c) => {
          const [t, e] = [truncated.rows[r]![c]!, exact.rows[r]![c]!];
          if (value === null || t === null) expect(value, `row ${r}`).toBe(t);
          else if (decimalsEqual(value, t)) semantics.add(decimalsEqual(value, e) ? 'both' : 'truncated');
          else if (decimalsEqual(value, e)) semantics.add('exact');
          else semantics.add(`neither: ${value}, PostgreSQL ${t}, exact ${e}`);
        }),
      );
      console.log(`integer / integer over the model: ${[...semantics].sort().join(', ')} (${sql})`);
      expect([...semantics].filter((s) => s.startsWith('neither'))).toEqual([]);
    });
  }
});

describe("the REST API's numbers", () => {
  const INTEGERS = new Set(['impressions', 'clicks', 'calls', 'callConversions']);
  /**
   * REST answers Money and Decimal statistics rounded to 6 decimals (statisticOutput in
   * src/sql/expressions.ts); the relations are exact to 1e-9. Equal: the SQL number within half a
   * micro of REST's (and 1e-9 relative for sums past 1e3, where REST's double has fewer digits).
   */
  const asRest = (sql: number, rest: number) =>
    Math.abs(sql - rest) <= 5e-7 + 1e-12 || decimalsEqual(String(sql), String(rest));
  const restStatements = CORPUS.filter(
    (s): s is DifferentialStatement & { rest: NonNullable<DifferentialStatement['rest']> } => Boolean(s.rest),
  );
  for (const statement of restStatements) {
    const { rest } = statement;
    it(`GET /reporting/v0/${rest.path}?${new URLSearchParams(rest.query).toString()} equals ${statement.sql}`, async () => {
      const org = fx.orgs[0]!;
      const sql = await textQuery(endpoint, statement.sql);
      const column = (name: string) => sql.columns.findIndex((c) => c.name === name);
      for (const [name] of rest.keys) expect(column(name), `column ${name}`).toBeGreaterThanOrEqual(0);
      const keyOf = (values: readonly string[]) => values.join('|');
      const byKey = new Map(sql.rows.map((row) => [keyOf(rest.keys.map(([name]) => row[column(name)] ?? '')), row]));
      const { rows } = await fetchAll(fx, rest.path, org.token, rest.query, rest.plural);
      const problems: string[] = [];
      for (const row of rows as RestRow[]) {
        const key = keyOf(rest.keys.map(([, of]) => of(row)));
        const found = byKey.get(key);
        byKey.delete(key);
        for (const [name, statistic] of Object.entries(rest.statistics)) {
          const want = row.statistics[statistic];
          // An entity without rows in the range: REST answers it with zeros, SQL has no group.
          const got = found ? Number(found[column(name)]) : 0;
          const equal = typeof want === 'number' && (INTEGERS.has(statistic) ? got === want : asRest(got, want));
          if (!equal)
            problems.push(`${key} ${statistic}: SQL ${found ? found[column(name)] : '(no row)'}, REST ${want}`);
        }
      }
      // REST leaves out a segment's row whose asked statistics are all 0; SQL has the group.
      for (const [key, row] of byKey) {
        const numbers = Object.keys(rest.statistics).map((name) => Number(row[column(name)]));
        if (numbers.some((n) => n !== 0)) problems.push(`${key}: SQL answers ${JSON.stringify(row)}, REST has no row`);
      }
      expect(rows.length, 'REST answered rows').toBeGreaterThan(0);
      expect(problems.slice(0, 20)).toEqual([]);
    });
  }
});

describe('the service', () => {
  it('reports the type OIDs that differ from PostgreSQL’s', () => {
    console.log(
      `type OIDs of the endpoint vs PostgreSQL (statements by index):\n${[...typeDifferences]
        .map(([kind, statements]) => `  ${kind}: ${statements.length} (${statements.slice(0, 12).join(', ')})`)
        .join('\n')}`,
    );
  });

  it('logged no errors, and the endpoint no internal error', () => {
    expect(fx.errors).toEqual([]);
    expect(endpointLog.lines).toEqual([]);
  });
});
