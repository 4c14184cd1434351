import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'chdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTableDdl, tableSchema, type TableSchema } from '../../src/clickhouse/clickhouse-schema.js';
import { remoteServersXml } from '../../src/clickhouse/cluster-ddl.js';
import { REPLICATED_TABLES } from '../../src/clickhouse/replicated-tables.js';
import { BOOKKEEPING_DDL, SCHEMA_TABLE, WATERMARK_TABLE } from '../../src/clickhouse/replicator.js';
import { readSourceColumns } from '../../src/clickhouse/source-columns.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { useTempDatabase } from '../helpers/temp-database.js';

/**
 * The cluster DDL of `adreport clickhouse schema`, checked by ClickHouse itself (embedded chDB
 * 26.7, no ZooKeeper, no DDL queue): every statement through its parser as printed, then run on
 * one node with ON CLUSTER dropped and ReplicatedMergeTree made MergeTree, the Distributed
 * tables kept over a two-shard cluster of the node's config: shard 1 is this node, shard 2 an
 * address nobody listens on. A query that reaches shard 2 fails with its address, so the tests
 * see which shards a query touches.
 */

const CLUSTER = 'adreport_test';
const DATABASE = 'adreport_cluster';
/** Nobody listens on port 1: touching shard 2 fails at once with "Connection refused (127.0.0.1:1)". */
const SHARD_2 = { host: '127.0.0.1', port: 1 };
const SHARD_2_ERROR = /127\.0\.0\.1:1/;

const ORG_TABLES = REPLICATED_TABLES.filter((t) => t.partition !== 'whole');
const WHOLE_TABLES = REPLICATED_TABLES.filter((t) => t.partition === 'whole');

const store = useTempDatabase('adreport-cluster-ddl-');
const chDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-cluster-chdb-'));
let session: Session;
let printed: CliResult;
let statements: string[];
let schemas: TableSchema[];

function statementsOf(text: string): string[] {
  const body = text
    .split('\n')
    .filter((l) => !l.startsWith('--'))
    .join('\n');
  return body
    .split(/;\n/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function query(sql: string): string {
  return String(session.query(sql, 'TSV'));
}

function rows(sql: string): string[] {
  return query(sql)
    .split('\n')
    .filter((l) => l !== '');
}

/**
 * A query that must fail by reaching shard 2. chDB 3.4 keeps the rows the local shard produced
 * before the failure and hands them out with the next query's result: one throwaway query
 * takes them, so the next check sees only its own rows.
 */
function expectShard2(sql: string): void {
  expect(() => query(sql)).toThrow(SHARD_2_ERROR);
  query('SELECT 1');
}

/** The statement as one node without ZooKeeper runs it (Distributed engines left as printed). */
function onOneNode(statement: string): string {
  const local = statement
    .replace(` ON CLUSTER \`${CLUSTER}\``, '')
    .replace(/Replicated(\w*)MergeTree\('[^']*', '[^']*'(?:, ([^)]*))?\)/, (_, kind: string, args?: string) =>
      args === undefined ? `${kind}MergeTree` : `${kind}MergeTree(${args})`,
    );
  if (local === statement) throw new Error(`nothing to make local in: ${statement.slice(0, 80)}`);
  return local;
}

const REPORT_SETTINGS = "SETTINGS optimize_skip_unused_shards = 1, distributed_product_mode = 'local'";

beforeAll(async () => {
  printed = await runCli([
    'clickhouse',
    'schema',
    '--cluster',
    CLUSTER,
    '--shards',
    '3',
    '--replicas',
    '2',
    '--database',
    DATABASE,
  ]);
  statements = statementsOf(printed.stdout);
  const columns = await store.db.read((r) => readSourceColumns(r));
  schemas = REPLICATED_TABLES.map((t) => tableSchema(t, columns.get(t.name) ?? []));
  const config = path.join(chDir, 'cluster.xml');
  const servers = remoteServersXml(CLUSTER, [[{ host: 'localhost', port: 9000 }], [SHARD_2]]);
  // tcp_port: chDB listens on nothing, but a replica at localhost:<tcp_port> counts as this node.
  fs.writeFileSync(config, ['<clickhouse>', '<tcp_port>9000</tcp_port>', ...servers, '</clickhouse>'].join('\n'));
  session = new Session(path.join(chDir, 'data'), { connectionArgs: [`--config-file=${config}`] });
});

afterAll(() => {
  session?.close();
  fs.rmSync(chDir, { recursive: true, force: true });
});

describe('adreport clickhouse schema: the printed DDL', () => {
  it('exits 0 with a header naming the layout, then a database and, per table, a local and a Distributed table', () => {
    expect(printed.code).toBe(0);
    expect(printed.stderr).toBe('');
    expect(printed.stdout).toMatch(/^-- .*cluster adreport_test: 3 shard\(s\) x 2 replica\(s\) = 6 node\(s\)/);
    for (const setting of [
      "distributed_product_mode = 'local'",
      'optimize_skip_unused_shards = 1',
      'prefer_localhost_replica',
      '<remote_servers>',
      '<internal_replication>true</internal_replication>',
    ])
      expect(printed.stdout).toContain(setting);
    // Three shards of two replicas in the remote_servers shape: six replica entries.
    expect(printed.stdout.match(/<replica><host>/g)).toHaveLength(6);
    expect(statements).toHaveLength(1 + 2 * ORG_TABLES.length + WHOLE_TABLES.length + BOOKKEEPING_DDL.length);
    expect(statements[0]).toBe(`CREATE DATABASE IF NOT EXISTS \`${DATABASE}\` ON CLUSTER \`${CLUSTER}\``);
  });

  it("parses, statement by statement, in ClickHouse's own parser, ON CLUSTER included", () => {
    for (const statement of statements) {
      const formatted = String(session.queryBind('SELECT formatQuery({sql:String})', { sql: statement }, 'TSVRaw'));
      expect(formatted, statement).toContain(`ON CLUSTER ${CLUSTER}`);
    }
    // The check can fail: a typo is refused.
    expect(() =>
      session.queryBind('SELECT formatQuery({sql:String})', { sql: `${statements[1]!})` }, 'TSVRaw'),
    ).toThrow(/SYNTAX_ERROR/);
  });

  it('has a ReplicatedMergeTree per shard and a Distributed table by organization_id for every organization table', () => {
    for (const table of ORG_TABLES) {
      const local = statements.find((s) =>
        s.startsWith(`CREATE TABLE IF NOT EXISTS \`${DATABASE}\`.\`${table.name}_local\``),
      );
      expect(local, table.name).toContain(
        `ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/${DATABASE}/${table.name}', '{replica}')`,
      );
      const distributed = statements.find((s) =>
        s.startsWith(`CREATE TABLE IF NOT EXISTS \`${DATABASE}\`.\`${table.name}\``),
      );
      expect(distributed, table.name).toContain(
        `ENGINE = Distributed('${CLUSTER}', '${DATABASE}', '${table.name}_local', organization_id)`,
      );
    }
    for (const name of [SCHEMA_TABLE, WATERMARK_TABLE]) {
      const mine = statements.filter((s) => s.includes(`.\`${name}\``));
      expect(mine, name).toHaveLength(1);
      expect(mine[0]).toMatch(
        new RegExp(
          `Replicated\\w*MergeTree\\('/clickhouse/tables/all/${DATABASE}/${name}', '\\{shard\\}-\\{replica\\}'`,
        ),
      );
    }
    for (const table of WHOLE_TABLES) {
      const mine = statements.filter((s) => s.includes(`.\`${table.name}`));
      expect(mine, table.name).toHaveLength(1);
      expect(mine[0]).toContain(
        `ReplicatedMergeTree('/clickhouse/tables/all/${DATABASE}/${table.name}', '{shard}-{replica}')`,
      );
      expect(mine[0]).not.toContain('Distributed');
    }
  });

  it('--json gives the same statements', async () => {
    const json = await runCli([
      'clickhouse',
      'schema',
      '--cluster',
      CLUSTER,
      '--shards',
      '3',
      '--replicas',
      '2',
      '--database',
      DATABASE,
      '--json',
    ]);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      statements: string[];
      shards: number;
      replicas: number;
      settings: string[];
    };
    expect(parsed.statements).toEqual(statements);
    expect([parsed.shards, parsed.replicas]).toEqual([3, 2]);
    expect(parsed.settings).toContain('optimize_skip_unused_shards = 1');
  });
});

describe('the cluster DDL run on one node (ON CLUSTER dropped, MergeTree for ReplicatedMergeTree)', () => {
  beforeAll(() => {
    for (const statement of statements) query(onOneNode(statement));
    // The one-node tables of the same release, to compare the shapes with.
    query('CREATE DATABASE single');
    for (const schema of schemas) query(localTableDdl('single', schema));
    query('USE single');
    for (const ddl of BOOKKEEPING_DDL) query(ddl);
    query('USE default');
  });

  it("gives the local tables the columns, engine, partition key and sorting key of the one-node tables and the replicator's", () => {
    const shape = (database: string, suffix: string) =>
      rows(
        `SELECT replaceRegexpOne(name, '${suffix}$', ''), engine, partition_key, sorting_key FROM system.tables
          WHERE database = '${database}' AND engine != 'Distributed' ORDER BY 1`,
      );
    const columns = (database: string, suffix: string) =>
      rows(
        `SELECT replaceRegexpOne(table, '${suffix}$', ''), name, type, position FROM system.columns
          WHERE database = '${database}' AND table IN (SELECT name FROM system.tables WHERE database = '${database}' AND engine != 'Distributed')
          ORDER BY 1, position`,
      );
    expect(shape('single', '')).toHaveLength(REPLICATED_TABLES.length + BOOKKEEPING_DDL.length);
    expect(shape(DATABASE, '_local')).toEqual(shape('single', ''));
    expect(columns(DATABASE, '_local')).toEqual(columns('single', ''));
    expect(
      rows(`SELECT name FROM system.tables WHERE database = '${DATABASE}' AND engine = 'Distributed' ORDER BY name`),
    ).toEqual(ORG_TABLES.map((t) => t.name).sort());
  });

  describe('with rows of organizations 2 and 4 (shard 1 of 2: organization_id mod 2 = 0)', () => {
    beforeAll(() => {
      for (const org of [2, 4]) {
        query(`INSERT INTO ${DATABASE}.fact_ad_daily_local (organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id, impressions, cost)
          VALUES (${org}, '2024-12-30', ${org}0, ${org}00, 1, 1, ${org}1, 1.5), (${org}, '2025-01-02', ${org}0, ${org}00, 1, 1, ${org}2, 2.25),
                 (${org}, '2025-01-02', ${org}0, ${org}01, 1, 1, ${org}3, 0)`);
        query(`INSERT INTO ${DATABASE}.campaigns_local (organization_id, adplatform_account_id, id, name)
          VALUES (${org}, ${org}0, ${org}00, 'c${org}a'), (${org}, ${org}0, ${org}01, 'c${org}b')`);
      }
      query(`INSERT INTO ${DATABASE}.fx_rates (currency, day, units_per_eur) VALUES ('EUR', '2024-12-30', 0.5)`);
    });

    it('a one-organization SELECT through the Distributed table returns the local rows, touching only shard 1', () => {
      const columns = 'organization_id, day, campaign_id, impressions, cost';
      const local = rows(
        `SELECT ${columns} FROM ${DATABASE}.fact_ad_daily_local WHERE organization_id = 2 ORDER BY day, campaign_id`,
      );
      expect(local).toHaveLength(3);
      const distributed = rows(
        `SELECT ${columns} FROM ${DATABASE}.fact_ad_daily WHERE organization_id = 2 ORDER BY day, campaign_id ${REPORT_SETTINGS}`,
      );
      expect(distributed).toEqual(local);
      // Without optimize_skip_unused_shards the same query goes to every shard, shard 2 included.
      expectShard2(`SELECT ${columns} FROM ${DATABASE}.fact_ad_daily WHERE organization_id = 2`);
    });

    it('organization 3 is on shard 2: its query goes there and only there', () => {
      expectShard2(`SELECT count() FROM ${DATABASE}.fact_ad_daily WHERE organization_id = 3 ${REPORT_SETTINGS}`);
    });

    it("a JOIN of two Distributed tables and FX runs on the organization's shard with distributed_product_mode = 'local'", () => {
      const join = (facts: string, campaigns: string, settings: string) =>
        `SELECT c.name, f.day, sum(f.impressions), sum(f.cost * x.units_per_eur)
           FROM ${DATABASE}.${facts} AS f
           JOIN ${DATABASE}.${campaigns} AS c ON c.organization_id = f.organization_id AND c.id = f.campaign_id
           LEFT JOIN ${DATABASE}.fx_rates AS x ON x.currency = 'EUR' AND x.day = f.day
          WHERE f.organization_id = 4
          GROUP BY c.name, f.day ORDER BY c.name, f.day
          ${settings}`;
      const local = rows(join('fact_ad_daily_local', 'campaigns_local', 'SETTINGS join_use_nulls = 1'));
      expect(local).toEqual(['c4a\t2024-12-30\t41\t0.75', 'c4a\t2025-01-02\t42\t\\N', 'c4b\t2025-01-02\t43\t\\N']);
      expect(rows(join('fact_ad_daily', 'campaigns', `${REPORT_SETTINGS}, join_use_nulls = 1`))).toEqual(local);
      // ClickHouse's default refuses it: the setting is needed.
      expect(() =>
        query(
          join(
            'fact_ad_daily',
            'campaigns',
            "SETTINGS optimize_skip_unused_shards = 1, distributed_product_mode = 'deny'",
          ),
        ),
      ).toThrow(/DISTRIBUTED_IN_JOIN_SUBQUERY_DENIED/);
    });

    it("replication must REPLACE PARTITION on the shard's <table>_local: the Distributed table refuses it", () => {
      const staging = `${DATABASE}.fact_ad_daily_staging`;
      query(`CREATE TABLE ${staging} AS ${DATABASE}.fact_ad_daily_local`);
      query(`INSERT INTO ${staging} (organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id, impressions)
        VALUES (4, '2025-01-03', 40, 400, 1, 1, 7)`);
      expect(() =>
        query(`ALTER TABLE ${DATABASE}.fact_ad_daily REPLACE PARTITION (4, 202501) FROM ${staging}`),
      ).toThrow(/Distributed doesn't support partitioning/);
      query(`ALTER TABLE ${DATABASE}.fact_ad_daily_local REPLACE PARTITION (4, 202501) FROM ${staging}`);
      // January of organization 4 is the staged row alone now; December (2024-12-30) is untouched.
      expect(
        rows(
          `SELECT day, impressions FROM ${DATABASE}.fact_ad_daily WHERE organization_id = 4 ORDER BY day ${REPORT_SETTINGS}`,
        ),
      ).toEqual(['2024-12-30\t41', '2025-01-03\t7']);
    });

    it('an insert through a Distributed table lands on the shard of its organization', () => {
      query(
        `INSERT INTO ${DATABASE}.campaigns (organization_id, adplatform_account_id, id, name) SETTINGS distributed_foreground_insert = 1 VALUES (4, 40, 402, 'c4c')`,
      );
      expect(rows(`SELECT name FROM ${DATABASE}.campaigns_local WHERE organization_id = 4 ORDER BY id`)).toEqual([
        'c4a',
        'c4b',
        'c4c',
      ]);
      expectShard2(
        `INSERT INTO ${DATABASE}.campaigns (organization_id, adplatform_account_id, id, name) SETTINGS distributed_foreground_insert = 1 VALUES (5, 50, 500, 'c5a')`,
      );
    });
  });
});

describe('adreport clickhouse schema: usage', () => {
  const base = ['clickhouse', 'schema', '--cluster', CLUSTER, '--shards', '3', '--replicas', '2'];
  const without = (flag: string) => {
    const i = base.indexOf(flag);
    return [...base.slice(0, i), ...base.slice(i + 2)];
  };
  const withValue = (flag: string, value: string) => {
    const i = base.indexOf(flag);
    return [...base.slice(0, i + 1), value, ...base.slice(i + 2)];
  };

  it.each([
    [without('--cluster'), /--cluster is required/],
    [without('--shards'), /--shards is required/],
    [without('--replicas'), /--replicas is required/],
    [withValue('--shards', '0'), /--shards must be an integer from 1 to 1000, not "0"/],
    [withValue('--shards', '1001'), /--shards must be an integer from 1 to 1000, not "1001"/],
    [withValue('--shards', '2.5'), /--shards must be an integer/],
    [withValue('--shards', '03'), /--shards must be an integer/],
    [withValue('--replicas', 'two'), /--replicas must be an integer from 1 to 1000, not "two"/],
    [withValue('--replicas', '-1'), /--replicas/],
    [withValue('--cluster', 'prod-eu'), /--cluster must be a ClickHouse identifier/],
    [withValue('--cluster', '1st'), /--cluster must be a ClickHouse identifier/],
    [[...base, '--database', 'x`; DROP DATABASE y'], /--database must be a ClickHouse identifier/],
    [[...base, '--nodes', '3'], /Unknown option '--nodes'/],
    [[...base, 'extra'], /unexpected argument "extra"/],
  ])('%j exits 2 with one line saying what is wrong', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^adreport: /);
    expect(lines[0]).toMatch(message);
  });

  it('--help prints the usage and exits 0', async () => {
    const result = await runCli(['clickhouse', 'schema', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: adreport clickhouse schema --cluster NAME --shards N --replicas R/);
    expect(result.stdout).toMatch(/--replicas R +replicas per shard, 1-1000/);
  });

  it('prints 1000 x 1000 nodes with the remote_servers shape shortened, the same statements', async () => {
    const result = await runCli(['clickhouse', 'schema', '--cluster', 'big', '--shards', '1000', '--replicas', '1000']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1000 shard(s) x 1000 replica(s) = 1000000 node(s)');
    expect(result.stdout.match(/<replica><host>/g)).toHaveLength(9);
    expect(result.stdout).toContain('<host>ch-s1000-r1000</host>');
    expect(statementsOf(result.stdout)).toHaveLength(statements.length);
  });
});
