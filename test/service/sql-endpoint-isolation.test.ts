import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';
import { watchEndpointLog, type EndpointLog } from '../helpers/sql-endpoint/endpoint-log.js';
import { fuzzStatements, type FuzzStatement } from '../helpers/sql-endpoint/isolation-fuzz.js';
import { otherOrganization, type OtherOrganization } from '../helpers/sql-endpoint/other-organization.js';
import { PipelinedClient, type WireAnswer } from '../helpers/sql-endpoint/pipelined-client.js';
import { connectEndpoint } from '../helpers/sql-endpoint/text-results.js';

/*
 * Tenant isolation of the SQL endpoint (issue 41), by fuzz: 10,000 generated statements
 * (helpers/sql-endpoint/isolation-fuzz.ts) sent as the first organization's client over a few
 * pipelined connections, simple and extended protocol. Whatever they ask, no row may hold a value
 * only the second organization has (its names, texts and ids: helpers/sql-endpoint/other-organization.ts),
 * no error message either (beyond what the statement itself said); every refusal is an
 * ErrorResponse with a SQLSTATE, never XX000 (internal error) nor a dropped connection; and the
 * service logs no error. SQL_FUZZ_SEED=<seed> replays a run.
 */

const STATEMENTS = 10_000;
const CONNECTIONS = 4;
const WINDOW = 16;
const STATEMENT_TIMEOUT = '10s';
const SEED =
  process.env.SQL_FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.SQL_FUZZ_SEED);

let fx: ReportingFixture;
let endpointLog: EndpointLog;
let other: OtherOrganization;
let internalTables: string[];

interface Finding {
  readonly kind: string;
  readonly sql: string;
  readonly params?: readonly (string | null)[] | undefined;
  readonly what: string;
}

const run = {
  sent: 0,
  answered: 0,
  rows: 0,
  ms: 0,
  lost: [] as Finding[],
  leaks: [] as Finding[],
  withoutSqlState: [] as Finding[],
  internal: [] as Finding[],
  fatal: [] as Finding[],
  codes: new Map<string, number>(),
  kinds: new Map<string, { sent: number; refused: number; answered: number }>(),
};

beforeAll(async () => {
  endpointLog = watchEndpointLog();
  fx = await startReportingFixture({
    world: 'small-2orgs-30d',
    // No database-time budget: the fuzz asks what a statement may read, not how often.
    service: { sqlPort: 0, rateLimit: { ratePerSecond: 1_000_000, burst: 1_000_000, dbTimeMsPerSecond: 0 } },
  });
  const caller: pg.Client = await connectEndpoint(fx, fx.orgs[0]!);
  try {
    other = await otherOrganization(fx, caller, fx.orgs[1]!.id);
  } finally {
    await caller.end();
  }
  internalTables = (
    await fx.sql<{ name: string }>('SELECT DISTINCT table_name AS name FROM duckdb_tables() ORDER BY 1')
  ).map((r) => r.name);
});

afterAll(async () => {
  await fx?.close();
  endpointLog?.stop();
});

function check(statement: FuzzStatement, answer: WireAnswer): void {
  const finding = (what: string): Finding => ({
    kind: statement.kind,
    sql: statement.sql,
    params: statement.params,
    what,
  });
  const kind = run.kinds.get(statement.kind) ?? { sent: 0, refused: 0, answered: 0 };
  run.kinds.set(statement.kind, kind);
  kind.sent++;
  if (answer.errors.length) kind.refused++;
  else kind.answered++;
  if (answer.lost) run.lost.push(finding('the connection ended before ReadyForQuery'));
  for (const error of answer.errors) {
    run.codes.set(error.code ?? '(none)', (run.codes.get(error.code ?? '(none)') ?? 0) + 1);
    if (!error.code || !/^[0-9A-Z]{5}$/.test(error.code)) run.withoutSqlState.push(finding(error.message));
    if (error.code === 'XX000') run.internal.push(finding(error.message));
    if (error.severity === 'FATAL') run.fatal.push(finding(`${error.code} ${error.message}`));
    // An error's text may quote the statement, not the other organization's data.
    const said = `${statement.sql}\n${(statement.params ?? []).join('\n')}`;
    for (const value of other.valuesIn(error.message))
      if (!said.includes(value))
        run.leaks.push(finding(`error message holds ${JSON.stringify(value)}: ${error.message}`));
  }
  for (const result of answer.results) {
    const idColumns = result.columns.map((name) => name === 'id' || name.endsWith('_id'));
    for (const row of result.rows) {
      run.rows++;
      row.forEach((value, i) => {
        if (value === null) return;
        for (const found of other.valuesIn(value))
          run.leaks.push(
            finding(
              `row ${JSON.stringify(row).slice(0, 300)} holds ${JSON.stringify(found)} (column ${result.columns[i]})`,
            ),
          );
        if (idColumns[i] && other.onlyIds.has(value))
          run.leaks.push(
            finding(
              `row ${JSON.stringify(row).slice(0, 300)} holds the other organization's id ${value} in ${result.columns[i]}`,
            ),
          );
      });
    }
  }
}

const show = (findings: readonly Finding[]) =>
  findings
    .slice(0, 8)
    .map(
      (f) =>
        `[${f.kind}] ${f.what.slice(0, 300)}\n    ${f.sql.slice(0, 400)}${f.params ? ` -- params ${JSON.stringify(f.params).slice(0, 200)}` : ''}`,
    );

describe(`tenant isolation under ${STATEMENTS} generated statements (SQL_FUZZ_SEED=${SEED})`, () => {
  it('the probes are values only the other organization has', () => {
    expect(other.onlyTexts.size).toBeGreaterThan(100);
    expect(other.onlyIds.size).toBeGreaterThan(100);
    expect(internalTables).toEqual(expect.arrayContaining(['api_clients', 'fact_ad_daily', 'rollup_campaign_daily']));
  });

  it('sends every statement, pipelined over a few connections', async () => {
    const statements = fuzzStatements(
      {
        organizationId: fx.orgs[0]!.id,
        internalTables,
        probeIds: other.probeIds,
        probeTexts: other.probeTexts,
      },
      STATEMENTS,
      SEED,
    );
    const org = fx.orgs[0]!;
    const connect = async () => {
      const client = await PipelinedClient.connect({
        port: fx.service.sqlPort!,
        user: org.clientId,
        password: org.clientSecret,
        window: WINDOW,
      });
      // A client's own ceiling: a statement past it is refused (57014), the fuzz goes on.
      const set = await client.query(`SET statement_timeout = '${STATEMENT_TIMEOUT}'`);
      if (set.errors.length) throw new Error(`SET statement_timeout: ${JSON.stringify(set.errors)}`);
      return client;
    };
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, lane) => {
        let client = await connect();
        const inFlight: Promise<void>[] = [];
        for (let i = lane; i < statements.length; i += CONNECTIONS) {
          const statement = statements[i]!;
          if (client.closed) client = await connect();
          // A transaction block in the string: alone on its connection, so that a failure inside it
          // (25P02 until ROLLBACK) does not fail the statements pipelined behind it.
          const block = /\b(BEGIN|START\s+TRANSACTION)\b/i.test(statement.sql);
          if (block) await Promise.all(inFlight.splice(0));
          run.sent++;
          const sent = statement.params
            ? client.extended(statement.sql, statement.params)
            : client.query(statement.sql);
          const current = client;
          inFlight.push(
            sent.then(async (answer) => {
              run.answered++;
              check(statement, answer);
              // A block left open (or failed) by BEGIN in a string: end it, so the statements after it run.
              if (!answer.lost && answer.status !== 'I' && !current.closed) await current.query('ROLLBACK');
            }),
          );
          // Keep the pipeline full without holding every promise of the run.
          if (block || inFlight.length >= WINDOW * 4) await Promise.all(inFlight.splice(0));
        }
        await Promise.all(inFlight);
        await client.close();
      }),
    );
    run.ms = Date.now() - started;
    const byKind = [...run.kinds].map(([k, v]) => `${k}: ${v.sent} (${v.answered} answered, ${v.refused} refused)`);
    // What the XX000 were, by the endpoint's log (the client sees "internal error" only).
    const causes = new Map<string, number>();
    for (const line of endpointLog.lines) {
      const cause = line.replace(/^.*? from [^:]+: /, '').replace(/\d{4} \d\d:\d\d:\d\d GMT.*$/, '…');
      causes.set(cause, (causes.get(cause) ?? 0) + 1);
    }
    const logged = [...causes].sort((a, b) => b[1] - a[1]).map(([cause, n]) => `${n} × ${cause}`);
    const codes = [...run.codes].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`);
    console.log(
      [
        `SQL endpoint isolation fuzz, seed ${SEED}: ${run.sent} statements in ${(run.ms / 1000).toFixed(1)} s over ${CONNECTIONS} connections, ${run.rows} rows`,
        `  by kind: ${byKind.join('; ')}`,
        `  SQLSTATEs: ${codes.join(', ')}`,
        `  leaks ${run.leaks.length}, XX000 ${run.internal.length}, without SQLSTATE ${run.withoutSqlState.length}, lost connections ${run.lost.length}, FATAL ${run.fatal.length}`,
        `  the endpoint's log: ${logged.join('; ') || 'nothing'}`,
      ].join('\n'),
    );
    expect(run.answered).toBe(run.sent);
    expect(run.sent).toBeGreaterThanOrEqual(STATEMENTS);
  }, 600_000);

  it('answers no row (and no error message) holding a value only the other organization has', () => {
    expect(show(run.leaks), `${run.leaks.length} leaks`).toEqual([]);
  });

  it('refuses with a SQLSTATE, never XX000 (internal error)', () => {
    expect(show(run.withoutSqlState), 'errors without a SQLSTATE').toEqual([]);
    expect(show(run.internal), `${run.internal.length} XX000`).toEqual([]);
  });

  it('never drops a connection, nor ends one with FATAL', () => {
    expect(show(run.lost), `${run.lost.length} lost`).toEqual([]);
    expect(show(run.fatal), `${run.fatal.length} FATAL`).toEqual([]);
  });

  it('the service logged no errors', () => {
    expect(fx.errors).toEqual([]);
    expect(endpointLog.lines.slice(0, 5), `${endpointLog.lines.length} lines`).toEqual([]);
  });
});
