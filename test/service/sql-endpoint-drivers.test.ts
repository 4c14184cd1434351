import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableClient, insertClient, newClientCredentials } from '../../src/auth/clients.js';
import { poll } from '../helpers/poll.js';
import {
  addDays,
  fetchAll,
  startReportingFixture,
  type GeneratedOrg,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';
import { dataRowOf, errorOf, RawClient, types, type BackendMessage } from './sql-wire-fixture.js';

/*
 * The SQL endpoint (issue 41, `serve --sql-port`) through real drivers, end to end (the issue's
 * item 4): psql 15, pgJDBC from Java, psycopg2, psqlODBC through unixODBC and node-postgres, each
 * against a service on a generated world. Numbers are judged against the REST API's answer to the
 * same question (per-campaign clicks, impressions and cost over a date range), catalog answers
 * against the model the issue lists, isolation against oracle SQL on the internal tables. The
 * drivers are Debian's, installed by .ci/run; a missing one fails its tests with the command that
 * installs it. The Java and Python sides are single-file programs in test/helpers/sql-drivers/
 * that print what the driver saw as JSON; the verdicts are here.
 */

const DRIVERS_DIR = path.join(import.meta.dirname, '../helpers/sql-drivers');
const PSQL = '/usr/bin/psql';
const PYTHON = '/usr/bin/python3';
const ISQL = '/usr/bin/isql';
const JDBC_JAR = '/usr/share/java/postgresql.jar';
const ODBC_DRIVER_DIRS = ['/usr/lib/x86_64-linux-gnu/odbc', '/usr/lib/aarch64-linux-gnu/odbc', '/usr/lib/odbc'];

const INSTALL = {
  psql: 'psql missing: apt-get install -y --no-install-recommends postgresql-client',
  jdbc: 'pgJDBC missing: apt-get install -y --no-install-recommends libpostgresql-jdbc-java openjdk-17-jdk-headless',
  psycopg2: 'psycopg2 missing: apt-get install -y --no-install-recommends python3-psycopg2',
  odbc: 'psqlODBC missing: apt-get install -y --no-install-recommends odbc-postgresql unixodbc',
};

/** The relations of the reporting model, as issue 41 lists them. */
const MODEL_VIEWS = [
  'accounts',
  'account_labels',
  'adplatform_accounts',
  'account_adplatform_links',
  'campaigns',
  'campaign_labels',
  'ad_groups',
  'ads',
  'keywords',
  'account_daily',
  'adplatform_account_daily',
  'campaign_daily',
  'ad_group_daily',
  'ad_daily',
  'keyword_daily',
  'campaign_hourly',
  'campaign_audience_daily',
  'campaign_placement_daily',
  'campaign_geo_daily',
  'campaign_conversion_action_daily',
].sort();

/** campaign_daily's columns and their PostgreSQL types (issue 41's model, src/sql-endpoint/model/relations.ts). */
const CAMPAIGN_DAILY: readonly (readonly [name: string, type: 'date' | 'bigint' | 'text' | 'numeric'])[] = [
  ['day', 'date'],
  ['adplatform_account_id', 'bigint'],
  ['campaign_id', 'bigint'],
  ['device', 'text'],
  ['network', 'text'],
  ['impressions', 'bigint'],
  ['clicks', 'bigint'],
  ['cost', 'numeric'],
  ['cost_with_markup', 'numeric'],
  ['conversions', 'numeric'],
  ['conversion_value', 'numeric'],
  ['calls', 'bigint'],
  ['call_conversions', 'bigint'],
  ['call_conversions_fractional', 'numeric'],
  ['currency', 'text'],
];
/** PostgreSQL's internal type names (pg_type.typname), what pgJDBC and psqlODBC report. */
const TYPNAME = { date: 'date', bigint: 'int8', text: 'text', numeric: 'numeric' } as const;

/** What a driver answers for a campaign over the period, in the REST API's terms. */
interface CampaignFigures {
  readonly id: number;
  readonly name: string;
  readonly clicks: number;
  readonly impressions: number;
  readonly cost: number;
}

let fx: ReportingFixture;
let home: string;
let org0: GeneratedOrg;
let org1: GeneratedOrg;
/** The period every numeric comparison asks about: days 20 to 3 before yesterday. */
let START: string;
let END: string;
/** GET /reporting/v0/campaigns over the period, org 0: every campaign with its figures. */
let rest: Map<number, CampaignFigures>;

beforeAll(async () => {
  fx = await startReportingFixture({
    world: 'small-2orgs-30d',
    // The cancel and timeout tests run deliberately long statements; the database-time budget
    // (fair scheduling, tested elsewhere) would then refuse the other drivers' statements.
    service: { sqlPort: 0, rateLimit: { ratePerSecond: 100_000, burst: 100_000, dbTimeMsPerSecond: 0 } },
  });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'sql-drivers-home-'));
  [org0, org1] = fx.orgs as [GeneratedOrg, GeneratedOrg];
  START = addDays(fx.yesterday, -20);
  END = addDays(fx.yesterday, -3);
  const { rows } = await fetchAll(
    fx,
    'campaigns',
    org0.token,
    { startDate: START, endDate: END, statistics: 'clicks,impressions,cost' },
    'campaigns',
  );
  rest = new Map(
    rows.map((row) => [
      Number(row.id),
      {
        id: Number(row.id),
        name: row.name as string,
        clicks: row.statistics.clicks as number,
        impressions: row.statistics.impressions as number,
        cost: row.statistics.cost as number,
      },
    ]),
  );
  // The catalog sandbox (PGlite) starts with the endpoint; the first catalog statement may still wait for it.
  const client = await connect(org0);
  await client.query('SELECT 1');
  await client.end();
});
afterAll(async () => {
  await fx?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** Oracle: the organization's campaigns, counted in the internal table. */
async function campaignCount(org: GeneratedOrg): Promise<number> {
  const rows = await fx.sql<{ n: number }>('SELECT count(*)::INTEGER AS n FROM campaigns WHERE organization_id = $1', [
    org.id,
  ]);
  return rows[0]!.n;
}

const active = (row: CampaignFigures) => row.clicks !== 0 || row.impressions !== 0 || row.cost !== 0;
const byId = (a: CampaignFigures, b: CampaignFigures) => a.id - b.id;

/**
 * A driver's per-campaign answer equals REST's: the same figures for every campaign with any,
 * and no campaign REST does not know. (A campaign with rows of zeros is in SQL's GROUP BY and
 * is a zero row in REST: both sides drop it.)
 */
function expectSameAsRest(answer: readonly CampaignFigures[]): void {
  const expected = [...rest.values()].filter(active).sort(byId);
  expect(expected.length).toBeGreaterThan(3);
  for (const row of answer) expect(rest.has(row.id), `campaign ${row.id} is not in REST's answer`).toBe(true);
  expect([...answer].filter(active).sort(byId)).toEqual(expected);
}

/** The per-campaign question in SQL with the period written in, for the drivers that take text. */
const perCampaignSql = (start: string, end: string) =>
  `SELECT c.id, c.name, sum(d.clicks) AS clicks, sum(d.impressions) AS impressions, round(sum(d.cost), 6) AS cost ` +
  `FROM campaign_daily d JOIN campaigns c ON c.id = d.campaign_id ` +
  `WHERE d.day BETWEEN DATE '${start}' AND DATE '${end}' GROUP BY c.id, c.name ORDER BY c.id`;

const figures = (row: readonly string[]): CampaignFigures => ({
  id: Number(row[0]),
  name: row[1]!,
  clicks: Number(row[2]),
  impressions: Number(row[3]),
  cost: Number(row[4]),
});

/** Oracle: each campaign's first day with a row in the period (org 0), from the internal rollup. */
async function firstActiveDays(): Promise<Map<number, string>> {
  const rows = await fx.sql<{ id: number; d: string }>(
    `SELECT campaign_id AS id, strftime(min(day), '%Y-%m-%d') AS d FROM rollup_campaign_daily
      WHERE organization_id = $1 AND day BETWEEN $2::DATE AND $3::DATE GROUP BY campaign_id`,
    [org0.id, START, END],
  );
  return new Map(rows.map((row) => [Number(row.id), row.d]));
}

/** Campaigns of org 0 with figures in the period (REST's), at least `count` of them, repeated if need be. */
function activeCampaignIds(count: number): number[] {
  const ids = [...rest.values()]
    .filter(active)
    .sort(byId)
    .map((row) => row.id);
  expect(ids.length).toBeGreaterThan(0);
  return Array.from({ length: count }, (_, i) => ids[i % ids.length]!);
}

// ---------------------------------------------------------------------------------------------
// Running the drivers' programs

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(
  file: string,
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Fails the test with the install command when a driver's file is not there. */
function need(files: readonly string[], install: string): void {
  for (const file of files) if (!fs.existsSync(file)) throw new Error(`${install} (${file} not found)`);
}

/** Fails the test with the install command when a program does not run. */
function needRunning(file: string, args: readonly string[], install: string): void {
  const probe = spawnSync(file, args, { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new Error(`${install} (${file} ${args.join(' ')}: ${probe.error?.message ?? probe.stderr.trim()})`);
}

function odbcDriver(): string {
  const found = ODBC_DRIVER_DIRS.map((dir) => path.join(dir, 'psqlodbcw.so')).find((file) => fs.existsSync(file));
  if (!found) throw new Error(`${INSTALL.odbc} (psqlodbcw.so not found under ${ODBC_DRIVER_DIRS.join(', ')})`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// psql 15

const SEP = '\x1f';

function psql(org: GeneratedOrg, args: readonly string[], input?: string): Promise<Run> {
  need([PSQL], INSTALL.psql);
  return run(
    PSQL,
    [`host=127.0.0.1 port=${fx.service.sqlPort} sslmode=require user=${org.clientId} dbname=adreport`, '-X', ...args],
    { input, env: { PGPASSWORD: org.clientSecret, PGCONNECT_TIMEOUT: '30' } },
  );
}

/** psql's unaligned, tuples-only output as rows of fields. */
const psqlRows = (result: Run) =>
  result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(SEP));

describe.concurrent('psql 15', () => {
  const table = ['-A', '-t', '-F', SEP];

  it('psql: \\dv and \\d list the 20 model relations as views of public', async () => {
    const views = await psql(org0, [...table, '-c', '\\dv']);
    expect(views.stderr).toBe('');
    expect(psqlRows(views)).toEqual(MODEL_VIEWS.map((name) => ['public', name, 'view', expect.any(String)]));
    const everything = await psql(org0, [...table, '-c', '\\d']);
    expect(psqlRows(everything).map((row) => row.slice(0, 3))).toEqual(
      MODEL_VIEWS.map((name) => ['public', name, 'view']),
    );
  });

  it('psql: \\d campaign_daily shows its columns and types', async () => {
    const described = await psql(org0, [...table, '-c', '\\d campaign_daily']);
    expect(described.stderr).toBe('');
    expect(psqlRows(described).map((row) => row.slice(0, 2))).toEqual(CAMPAIGN_DAILY.map(([n, t]) => [n, t]));
  });

  it('psql: a SELECT with a join and GROUP BY answers what REST answers', async () => {
    const result = await psql(org0, [...table, '-v', 'ON_ERROR_STOP=1', '-c', perCampaignSql(START, END)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectSameAsRest(psqlRows(result).map(figures));
  });

  it('psql: with ON_ERROR_STOP a failing INSERT stops the script, exit 3, "read-only"', async () => {
    const result = await psql(
      org0,
      ['-v', 'ON_ERROR_STOP=1', '-f', '-'],
      "INSERT INTO campaigns (id, name) VALUES (1, 'x');\nSELECT 'not reached';\n",
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('ERROR:  cannot execute INSERT in a read-only transaction');
    expect(result.stdout).not.toContain('not reached');
  });
});

// ---------------------------------------------------------------------------------------------
// pgJDBC (Debian's libpostgresql-jdbc-java) from a single-file Java program

interface JdbcExecution {
  readonly execution: number;
  readonly campaignId: number;
  readonly serverPrepared: boolean;
  readonly formats: number[];
  readonly types: string[];
  readonly rows: {
    campaignId: number;
    name: string;
    clicks: number;
    impressions: number;
    cost: string;
    firstDay: string;
    clicksFloat: number;
  }[];
}

let jdbcRun: Promise<{ lines: Record<string, any>[]; ids: number[] }> | undefined;
/** Probe.java, once for the file: its JSON lines. */
function jdbcProbe() {
  jdbcRun ??= (async () => {
    need([JDBC_JAR], INSTALL.jdbc);
    // The source launcher (java Probe.java) is Java 11+, and needs the JDK's compiler.
    needRunning('java', ['--version'], INSTALL.jdbc);
    needRunning('javac', ['-version'], INSTALL.jdbc);
    // Eight executions: pgJDBC prepares on the server and turns to binary results after prepareThreshold (5).
    const ids = activeCampaignIds(8);
    const result = await run(
      'java',
      [
        `-Duser.home=${home}`,
        '-cp',
        JDBC_JAR,
        path.join(DRIVERS_DIR, 'Probe.java'),
        String(fx.service.sqlPort),
        org0.clientId,
        org0.clientSecret,
        START,
        END,
        ...ids.map(String),
      ],
      { timeoutMs: 120_000 },
    );
    const lines = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
    const failed = lines.find((line) => line.step === 'error');
    if (result.code !== 0 || failed)
      throw new Error(`Probe.java failed (exit ${result.code}): ${JSON.stringify(failed)} ${result.stderr}`);
    return { lines, ids };
  })();
  return jdbcRun;
}

describe.concurrent('pgJDBC', () => {
  it('pgJDBC: connects with sslmode=require; getTables lists the 20 views', async () => {
    const { lines } = await jdbcProbe();
    expect(lines.find((line) => line.step === 'connected')).toMatchObject({ product: 'PostgreSQL' });
    const tables = lines.filter((line) => line.step === 'table');
    expect(tables.map((line) => [line.schema, line.name, line.type])).toEqual(
      MODEL_VIEWS.map((name) => ['public', name, 'VIEW']),
    );
  });

  it('pgJDBC: getColumns gives campaign_daily its columns, types and positions', async () => {
    const { lines } = await jdbcProbe();
    const columns = lines.filter((line) => line.step === 'column');
    // java.sql.Types: DATE 91, BIGINT -5, VARCHAR 12 (pgJDBC's text), NUMERIC 2.
    const sqlType = { date: 91, bigint: -5, text: 12, numeric: 2 } as const;
    expect(columns.map((c) => [c.position, c.name, c.typeName, c.dataType])).toEqual(
      CAMPAIGN_DAILY.map(([name, type], i) => [i + 1, name, TYPNAME[type], sqlType[type]]),
    );
  });

  it('pgJDBC: a PreparedStatement (date and id parameters) run 8 times, text then server-prepared binary, equals REST', async () => {
    const { lines, ids } = await jdbcProbe();
    const executions = lines.filter((line) => line.step === 'execution') as unknown as JdbcExecution[];
    expect(executions.map((e) => e.campaignId)).toEqual(ids);
    // The first executions are unnamed statements with text results; past prepareThreshold pgJDBC
    // keeps a named statement and asks binary for every column but the text one.
    expect(executions[0]!.formats).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(executions.at(-1)!.serverPrepared).toBe(true);
    expect(executions.at(-1)!.formats).toEqual([1, 0, 1, 1, 1, 1, 1]);
    // PostgreSQL's result types: sum(bigint) and round(numeric) are numeric, min(date) a date.
    expect(executions.at(-1)!.types).toEqual(['int8', 'text', 'numeric', 'numeric', 'numeric', 'date', 'float8']);
    const firstDays = await firstActiveDays();
    for (const execution of executions) {
      const expected = rest.get(execution.campaignId)!;
      expect(
        execution.rows.map((row) => ({
          campaignId: row.campaignId,
          name: row.name,
          clicks: row.clicks,
          impressions: row.impressions,
          cost: Number(row.cost),
          firstDay: row.firstDay,
          clicksFloat: row.clicksFloat,
        })),
        `execution ${execution.execution} (campaign ${execution.campaignId})`,
      ).toEqual([
        {
          campaignId: expected.id,
          name: expected.name,
          clicks: expected.clicks,
          impressions: expected.impressions,
          cost: expected.cost,
          firstDay: firstDays.get(expected.id),
          clicksFloat: expected.clicks,
        },
      ]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// psycopg2 (Debian's python3-psycopg2)

let psycopg2Run: Promise<{ out: Record<string, any>; campaign: CampaignFigures }> | undefined;
function psycopg2Probe() {
  psycopg2Run ??= (async () => {
    need([PYTHON], INSTALL.psycopg2);
    needRunning(PYTHON, ['-c', 'import psycopg2'], INSTALL.psycopg2);
    const campaign = rest.get(activeCampaignIds(1)[0]!)!;
    const result = await run(PYTHON, [
      path.join(DRIVERS_DIR, 'psycopg2_probe.py'),
      JSON.stringify({
        port: fx.service.sqlPort,
        user: org0.clientId,
        password: org0.clientSecret,
        start: START,
        end: END,
        campaignId: campaign.id,
      }),
    ]);
    const last = result.stdout.trim().split('\n').at(-1) ?? '';
    const out = (last.startsWith('{') ? JSON.parse(last) : { error: 'no output' }) as Record<string, any>;
    if (result.code !== 0 || out.error)
      throw new Error(`psycopg2_probe.py failed (exit ${result.code}): ${JSON.stringify(out.error)} ${result.stderr}`);
    return { out, campaign };
  })();
  return psycopg2Run;
}

describe.concurrent('psycopg2', () => {
  it('psycopg2: a %s-parameterised query, fetchall and cursor.description; numbers equal REST', async () => {
    const { out, campaign } = await psycopg2Probe();
    expect(out.statusAfterConnect).toBe('idle');
    expect(out.rows).toEqual([
      [
        campaign.id,
        campaign.name,
        String(campaign.clicks),
        String(campaign.impressions),
        expect.any(String),
        (await firstActiveDays()).get(campaign.id),
      ],
    ]);
    expect(Number(out.rows[0][4])).toBe(campaign.cost);
    expect(out.rowcount).toBe(1);
    // PostgreSQL's types: int8 20, text 25, numeric 1700 (sum(bigint), round), date 1082.
    expect(out.description).toEqual([
      { name: 'campaign_id', typeCode: 20 },
      { name: 'name', typeCode: 25 },
      { name: 'clicks', typeCode: 1700 },
      { name: 'impressions', typeCode: 1700 },
      { name: 'cost', typeCode: 1700 },
      { name: 'first_day', typeCode: 1082 },
    ]);
    expect(out.pythonTypes).toEqual(['int', 'str', 'Decimal', 'Decimal', 'Decimal', 'date']);
  });

  it('psycopg2: the implicit BEGIN, commit, an error failing the block (25P02), rollback, autocommit', async () => {
    const { out, campaign } = await psycopg2Probe();
    expect(out.statusAfterSelect).toBe('intrans');
    expect(out.statusAfterCommit).toBe('idle');
    expect(out.statusAfterError).toBe('inerror');
    expect(out.inFailedBlock).toMatchObject({ pgcode: '25P02', type: 'InFailedSqlTransaction' });
    expect(out.statusAfterRollback).toBe('idle');
    const n = await campaignCount(org0);
    expect(out.countAfterRollback).toBe(n);
    expect(out.insert).toMatchObject({ pgcode: '25006', type: 'ReadOnlySqlTransaction' });
    expect(out.insert.message).toContain('cannot execute INSERT in a read-only transaction');
    expect(out.autocommitCount).toBe(1);
    expect(out.statusAutocommit).toBe('idle');
    expect(campaign.id).toBeGreaterThan(0);
  });

  it('psycopg2: an unknown column is 42703 (UndefinedColumn), as PostgreSQL answers it', async () => {
    const { out } = await psycopg2Probe();
    // First line of the message, without psycopg2's "ERROR:  " (what a tool shows its user).
    const seen = (failure: { pgcode: string; type: string; message: string }) => ({
      pgcode: failure.pgcode,
      type: failure.type,
      message: failure.message.replace(/^ERROR:\s+/, '').split('\n')[0],
    });
    expect([seen(out.badColumn), seen(out.badQualifiedColumn)]).toEqual([
      { pgcode: '42703', type: 'UndefinedColumn', message: 'column "no_such_column" does not exist' },
      { pgcode: '42703', type: 'UndefinedColumn', message: 'column c.no_such_column does not exist' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// psqlODBC through unixODBC (Debian's odbc-postgresql, unixodbc)

/** isql -k (SQLDriverConnect, DSN-less) with psqlODBC's Unicode driver; one statement per line of input. */
function isql(org: GeneratedOrg, input: string): Promise<Run> {
  const driver = odbcDriver();
  need([ISQL], INSTALL.odbc);
  const connection = [
    `Driver=${driver}`,
    'Server=127.0.0.1',
    `Port=${fx.service.sqlPort}`,
    'Database=adreport',
    `Uid=${org.clientId}`,
    `Pwd=${org.clientSecret}`,
    'SSLmode=require',
  ].join(';');
  return run(ISQL, ['-k', '-b', '-x0x1f', '-c', connection], { input: `${input}\n` });
}

/** isql's delimited output of one statement: the header, then the rows. */
const isqlRows = (result: Run) =>
  result.stdout
    .split('\n')
    .filter((line) => line.includes(SEP))
    .map((line) => line.split(SEP));

describe.concurrent('psqlODBC', () => {
  it('psqlODBC: a DSN-less connection (sslmode=require); SQLTables and SQLColumns see the model', async () => {
    // isql's help runs SQLTables, help <table> SQLColumns.
    const [tablesRun, columnsRun] = await Promise.all([isql(org0, 'help'), isql(org0, 'help campaign_daily')]);
    for (const result of [tablesRun, columnsRun]) expect([result.code, result.stderr]).toEqual([0, '']);
    const [header, ...tables] = isqlRows(tablesRun!);
    const rows = tables.map((row) => ({
      owner: row[header!.indexOf('TABLE_OWNER')],
      name: row[header!.indexOf('TABLE_NAME')],
      type: row[header!.indexOf('TABLE_TYPE')],
    }));
    expect(rows).toEqual(MODEL_VIEWS.map((name) => ({ owner: 'public', name, type: 'VIEW' })));
    const [columnHeader, ...columns] = isqlRows(columnsRun!);
    expect(
      columns.map((row) => [row[columnHeader!.indexOf('COLUMN_NAME')], row[columnHeader!.indexOf('TYPE_NAME')]]),
    ).toEqual(CAMPAIGN_DAILY.map(([name, type]) => [name, TYPNAME[type]]));
  });

  it('psqlODBC: a SELECT with a join and GROUP BY answers what REST answers', async () => {
    const result = await isql(org0, perCampaignSql(START, END));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [header, ...rows] = isqlRows(result);
    expect(header).toEqual(['id', 'name', 'clicks', 'impressions', 'cost']);
    expectSameAsRest(rows.map(figures));
  });
});

// ---------------------------------------------------------------------------------------------
// node-postgres

const clients: pg.Client[] = [];
function pgConfig(org: GeneratedOrg, overrides: Partial<pg.ClientConfig> = {}): pg.ClientConfig {
  return {
    host: '127.0.0.1',
    port: fx.service.sqlPort,
    user: org.clientId,
    password: org.clientSecret,
    database: 'adreport',
    // sslmode=require: encrypted, the certificate not verified (the service's own self-signed one).
    ssl: { rejectUnauthorized: false },
    connectionTimeoutMillis: 30_000,
    ...overrides,
  };
}
async function connect(org: GeneratedOrg, overrides: Partial<pg.ClientConfig> = {}): Promise<pg.Client> {
  const client = new pg.Client(pgConfig(org, overrides));
  client.on('error', () => {});
  await client.connect();
  clients.push(client);
  return client;
}
afterAll(async () => {
  await Promise.all(clients.map((client) => client.end().catch(() => {})));
});

async function connectError(config: pg.ClientConfig): Promise<pg.DatabaseError> {
  const client = new pg.Client(config);
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    return error as pg.DatabaseError;
  } finally {
    await client.end().catch(() => {});
  }
  throw new Error(`${String(config.user)} connected`);
}

/**
 * A statement that runs far longer than any test waits: every pair of the organization's ad rows
 * with every campaign (~20,000^2 x 41 on this world: ~45 s on 2 cores), so a timeout or a cancel
 * is what ends it, never its own end.
 */
const LONG =
  'SELECT count(*) AS n FROM ad_daily a CROSS JOIN ad_daily b CROSS JOIN campaigns c WHERE a.clicks + b.clicks + c.id = -1';
/** Every pair of ad rows: ~1 s here, far longer than the 1 ms timeout it is given. */
const SECOND = 'SELECT count(*) AS n FROM ad_daily a CROSS JOIN ad_daily b WHERE a.clicks + b.clicks = -1';

const PARAMETERISED = `SELECT c.id, c.name, sum(d.clicks) AS clicks, sum(d.impressions) AS impressions, round(sum(d.cost), 6) AS cost
  FROM campaign_daily d JOIN campaigns c ON c.id = d.campaign_id
 WHERE d.day BETWEEN $1 AND $2 AND d.campaign_id = $3
 GROUP BY c.id, c.name`;

/** One value of each binary type: int8 (an id and a count), numeric, date, float8. */
const BINARY_TYPES = `SELECT d.campaign_id, count(*) AS day_rows, round(sum(d.cost), 6) AS cost, min(d.day) AS first_day,
       sum(d.clicks)::double precision AS clicks_float, -sum(d.cost) AS negative_cost
  FROM campaign_daily d
 WHERE d.day BETWEEN $1 AND $2
 GROUP BY d.campaign_id ORDER BY d.campaign_id`;

/** PostgreSQL's binary send formats, decoded here (not by a driver's parsers) into its text forms. */
function decodeBinary(typeOid: number, bytes: Buffer): string {
  switch (typeOid) {
    case 20:
      return bytes.readBigInt64BE(0).toString();
    case 701:
      return String(bytes.readDoubleBE(0));
    case 1082: {
      const day = new Date(Date.UTC(2000, 0, 1) + bytes.readInt32BE(0) * 86_400_000);
      return day.toISOString().slice(0, 10);
    }
    case 1700: {
      // ndigits, weight (of the first base-10000 digit), sign, dscale, then the digits.
      const ndigits = bytes.readInt16BE(0);
      const weight = bytes.readInt16BE(2);
      const sign = bytes.readUInt16BE(4);
      const dscale = bytes.readInt16BE(6);
      if (sign === 0xc000) return 'NaN';
      const digits = Array.from({ length: ndigits }, (_, i) => bytes.readInt16BE(8 + 2 * i));
      let integer = '';
      for (let w = 0; w <= weight; w++) integer += String(digits[w] ?? 0).padStart(4, '0');
      let fraction = '';
      for (let w = weight + 1; w < ndigits; w++) fraction += String(digits[w] ?? 0).padStart(4, '0');
      // Leading fractional zeros when the first digit is below the point (weight < -1).
      fraction = '0000'.repeat(Math.max(0, -weight - 1)) + fraction;
      integer = integer.replace(/^0+(?=\d)/, '') || '0';
      fraction = fraction.padEnd(dscale, '0').slice(0, dscale);
      return `${sign === 0x4000 ? '-' : ''}${integer}${dscale > 0 ? `.${fraction}` : ''}`;
    }
    default:
      throw new Error(`no binary decoder for type ${typeOid}`);
  }
}

const oidOf = (rowDescription: BackendMessage): number[] => {
  const count = rowDescription.body.readInt16BE(0);
  const oids: number[] = [];
  let offset = 2;
  for (let i = 0; i < count; i++) {
    offset = rowDescription.body.indexOf(0, offset) + 1;
    oids.push(rowDescription.body.readInt32BE(offset + 6));
    offset += 18;
  }
  return oids;
};

describe.concurrent('node-postgres', () => {
  it('node-postgres: the extended protocol with parameters (untyped text $1 $2 dates, $3 id) equals REST', async () => {
    const client = await connect(org0);
    const answers: CampaignFigures[] = [];
    for (const id of activeCampaignIds(3)) {
      const result = await client.query({ text: PARAMETERISED, values: [START, END, id], rowMode: 'array' });
      expect(result.rows).toHaveLength(1);
      answers.push(figures(result.rows[0] as string[]));
      expect(answers.at(-1)).toEqual(rest.get(id));
    }
    // The same statement with a parameter naming another organization's campaign answers nothing.
    const [foreign] = await fx.sql<{ id: number }>('SELECT min(id) AS id FROM campaigns WHERE organization_id = $1', [
      org1.id,
    ]);
    const none = await client.query(PARAMETERISED, [START, END, Number(foreign!.id)]);
    expect(none.rows).toEqual([]);
  });

  it('node-postgres: binary results for int8, numeric, date and float8 (Bind asks binary; values decoded here equal the text ones)', async () => {
    const client = await connect(org0);
    // Every value as the bytes or the text the server sent: no driver parsers in between.
    const raw = { getTypeParser: () => (value: unknown) => value } as unknown as pg.CustomTypesConfig;
    const text = await client.query({ text: BINARY_TYPES, values: [START, END], rowMode: 'array', types: raw });
    expect(text.fields.map((f) => [f.name, f.dataTypeID, f.format])).toEqual([
      ['campaign_id', 20, 'text'],
      ['day_rows', 20, 'text'],
      ['cost', 1700, 'text'],
      ['first_day', 1082, 'text'],
      ['clicks_float', 701, 'text'],
      ['negative_cost', 1700, 'text'],
    ]);
    expect(text.rows.length).toBeGreaterThan(3);
    // The text answer is REST's.
    for (const row of text.rows as string[][]) {
      const expected = rest.get(Number(row[0]))!;
      expect([Number(row[2]), Number(row[4])]).toEqual([expected.cost, expected.clicks]);
    }

    // node-postgres's binary: true asks binary for every column (one format code in Bind): the
    // RowDescription must say binary. Its values are not read here: pg 8 decodes a DataRow as
    // UTF-8 before handing binary bytes to its parsers, which corrupts them
    // (https://github.com/brianc/node-postgres/issues/3495).
    // `binary` is a QueryConfig member of pg 8 that @types/pg does not declare.
    const binary = await client.query({
      text: BINARY_TYPES,
      values: [START, END],
      binary: true,
      types: raw,
    } as pg.QueryConfig);
    expect(binary.fields.map((f) => [f.name, f.dataTypeID, f.format])).toEqual(
      text.fields.map((f) => [f.name, f.dataTypeID, 'binary']),
    );
    expect(binary.rows).toHaveLength(text.rows.length);

    // The bytes themselves, through the raw protocol: Parse/Bind (binary results, per column)/Execute.
    const wire = await RawClient.session(fx.service.sqlPort!, org0.clientId, org0.clientSecret);
    try {
      wire.parse('', BINARY_TYPES);
      wire.bind('', '', [START, END], [], [1, 1, 1, 1, 1, 1]);
      wire.describe('P', '');
      wire.execute('');
      wire.sync();
      const messages = await wire.untilReady();
      const failure = messages.find((m) => m.type === 'E');
      expect(failure && errorOf(failure)).toBeUndefined();
      expect(types(messages)).toMatch(/^12TD+CZ$/);
      const oids = oidOf(messages.find((m) => m.type === 'T')!);
      const decoded = messages
        .filter((m) => m.type === 'D')
        .map((m) =>
          dataRowOf(m, true).map((hex, i) => (hex === null ? null : decodeBinary(oids[i]!, Buffer.from(hex, 'hex')))),
        );
      expect(decoded).toEqual(
        (text.rows as (string | null)[][]).map((row) =>
          // float8 text: PostgreSQL's shortest round trip, which is what String(number) gives.
          row.map((value, i) => (value === null || oids[i] !== 701 ? value : String(Number(value)))),
        ),
      );
    } finally {
      wire.end();
    }
  });

  it('node-postgres: statement_timeout = 200 ms cancels a long statement with 57014; the session goes on', async () => {
    const client = await connect(org0);
    await client.query('SET statement_timeout = 200');
    expect((await client.query('SHOW statement_timeout')).rows).toEqual([{ statement_timeout: '200ms' }]);
    const started = Date.now();
    const error = (await client.query(LONG).catch((failure: unknown) => failure)) as pg.DatabaseError;
    expect({ code: error.code, message: error.message }).toEqual({
      code: '57014',
      message: 'canceling statement due to statement timeout',
    });
    // Far from the ~45 s the statement takes to finish.
    expect(Date.now() - started).toBeLessThan(10_000);
    await client.query('RESET statement_timeout');
    const n = await campaignCount(org0);
    expect((await client.query('SELECT count(*)::int AS n FROM campaigns')).rows).toEqual([{ n }]);
  });

  it('node-postgres: statement_timeout = 1 ms, shorter than the statement takes to plan, still ends it with 57014', async () => {
    // PostgreSQL's timeout covers the whole statement, planning included. Here a timeout (or a
    // cancel) that fires while DuckDB prepares the statement is lost: DuckDB drops an interrupt
    // that comes before execution starts, and the statement runs to its end.
    const client = await connect(org0);
    await client.query('SET statement_timeout = 1');
    const outcomes: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      outcomes.push(
        await client.query(SECOND).then(
          (result) => ({ rows: result.rows }),
          (failure: pg.DatabaseError) => ({ code: failure.code, message: failure.message }),
        ),
      );
    }
    const timedOut = { code: '57014', message: 'canceling statement due to statement timeout' };
    expect(outcomes).toEqual([timedOut, timedOut, timedOut]);
  });

  it('node-postgres: a CancelRequest from a second connection (pg.Client#cancel) cancels a running statement with 57014', async () => {
    const client = await connect(org0);
    const running = client.query(LONG).then(
      () => undefined,
      (failure: unknown) => failure as pg.DatabaseError,
    );
    // The statement in flight on the wire (node-postgres's own bookkeeping: the query it sent).
    const activeQuery = (client as unknown as { activeQuery: unknown }).activeQuery;
    expect(activeQuery).toBeTruthy();
    let settled = false;
    void running.then(() => (settled = true));
    // A cancel that arrives before the statement runs is ignored (as PostgreSQL ignores it): one
    // is sent at once and another every half second until the statement ends. (While a cancel
    // that lands as DuckDB prepares the statement is lost, and the endpoint ignores every later
    // one, this fails whenever the first cancel lands there, as it does on a busy machine: the
    // cause the 1 ms statement_timeout test above shows every time.) pg.Client#cancel is
    // node-postgres's internal CancelRequest sender (pg 8, not in @types/pg): it connects to the
    // port and sends the key the server gave the client, without TLS, as libpq does.
    const sendCancel = () => {
      const canceller = new pg.Client({ host: '127.0.0.1', port: fx.service.sqlPort });
      canceller.on('error', () => {});
      (canceller as unknown as { cancel(client: pg.Client, query: unknown): void }).cancel(client, activeQuery);
    };
    sendCancel();
    let ticks = 0;
    await poll(
      'the cancelled statement to end',
      () => {
        if (settled) return true;
        if (++ticks % 20 === 0) sendCancel();
        return undefined;
      },
      60_000,
    );
    const error = await running;
    expect({ code: error?.code, message: error?.message }).toEqual({
      code: '57014',
      message: 'canceling statement due to user request',
    });
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('node-postgres: a wrong password, an unknown client, a client without the reporting scope and a disabled one all get FATAL 28P01', async () => {
    const refused = async (user: string, password: string) => {
      const error = await connectError(pgConfig(org0, { user, password }));
      return { code: error.code, severity: error.severity, message: error.message };
    };
    const expected = (user: string) => ({
      code: '28P01',
      severity: 'FATAL',
      message: `password authentication failed for user "${user}"`,
    });
    expect(await refused(org0.clientId, `${org0.clientSecret}x`)).toEqual(expected(org0.clientId));
    expect(await refused('adr_000000000000000000000000', org0.clientSecret)).toEqual(
      expected('adr_000000000000000000000000'),
    );

    const provisioningOnly = await newClientCredentials();
    const reporting = await newClientCredentials();
    await fx.service.db.write('all-organizations', async (tx) => {
      await insertClient(tx, provisioningOnly, { organizationId: org0.id, scopes: ['provisioning'] });
      await insertClient(tx, reporting, { organizationId: org0.id, scopes: ['reporting'] });
    });
    expect(await refused(provisioningOnly.clientId, provisioningOnly.clientSecret)).toEqual(
      expected(provisioningOnly.clientId),
    );
    // The reporting client connects; disabled, it is refused like the rest.
    const before = await connect(org0, { user: reporting.clientId, password: reporting.clientSecret });
    expect((await before.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await before.end();
    await fx.service.db.write('all-organizations', (tx) => disableClient(tx, reporting.clientId));
    expect(await refused(reporting.clientId, reporting.clientSecret)).toEqual(expected(reporting.clientId));
  });

  it("node-postgres: org 0's session sees its own campaigns and none of org 1's, whatever database it names", async () => {
    const oracle = (organizationId: number) =>
      fx.sql<{ id: number; name: string }>(
        'SELECT id::BIGINT AS id, name FROM campaigns WHERE organization_id = $1 ORDER BY id',
        [organizationId],
      );
    const own = (await oracle(org0.id)).map((row) => ({ id: String(row.id), name: row.name }));
    const other = await oracle(org1.id);
    const otherOnlyNames = other.map((row) => row.name).filter((name) => !own.some((o) => o.name === name));
    expect(otherOnlyNames.length).toBeGreaterThan(0);

    for (const database of ['adreport', `org_${org1.id}`]) {
      const client = await connect(org0, { database });
      const seen = await client.query('SELECT id, name FROM campaigns ORDER BY id');
      expect(seen.rows, `database ${database}`).toEqual(own);
      const names = new Set(seen.rows.map((row: { name: string }) => row.name));
      expect(otherOnlyNames.filter((name) => names.has(name))).toEqual([]);
      // Asked for by id, org 1's campaigns are not there either.
      const ids = other.map((row) => Number(row.id)).join(', ');
      const reached = await client.query(`SELECT count(*)::int AS n FROM campaign_daily WHERE campaign_id IN (${ids})`);
      expect(reached.rows).toEqual([{ n: 0 }]);
      await client.end();
    }
    // And org 1's session sees org 1's.
    const client1 = await connect(org1);
    expect((await client1.query('SELECT id, name FROM campaigns ORDER BY id')).rows).toEqual(
      other.map((row) => ({ id: String(row.id), name: row.name })),
    );
  });
});
