import { parse } from 'libpg-query';
import { describe, expect, it } from 'vitest';
import { MODEL_RELATIONS, MODEL_TABLE_FUNCTIONS, modelRelation } from '../../src/sql-endpoint/model/relations.js';
import { parseStatements } from '../../src/sql-endpoint/statements.js';
import { translateSelect, type TranslatedSelect } from '../../src/sql-endpoint/translate/translate-select.js';
import { SqlError } from '../../src/sql-endpoint/wire/session.js';
import { TEXTS } from '../helpers/injection-corpus.js';

/*
 * The SQL endpoint's pure parts (issue 41), no database: parseStatements' classification of a
 * client's text (what may read the model, the catalog, a setting; what is refused, with which
 * SQLSTATE), and translateSelect from PostgreSQL's parse tree (libpg-query) to DuckDB SQL: the
 * shape each allowed node kind becomes, the SQLSTATE of each refused one, strings as bound
 * parameters, the organization bound into every relation, PostgreSQL's NULL order and `~`.
 */

/** An organization id no statement or relation spells: it may only reach the SQL as a bound value. */
const ORG = 424_242;

async function selectOf(sql: string): Promise<Record<string, unknown>> {
  const tree = (await parse(sql)) as { stmts: { stmt: Record<string, Record<string, unknown>> }[] };
  const stmt = tree.stmts[0]!.stmt;
  if (!stmt.SelectStmt) throw new Error(`not a SELECT: ${sql}`);
  return stmt.SelectStmt;
}

async function translate(
  sql: string,
  clientParams = 0,
  casts: readonly (string | undefined)[] = [],
): Promise<TranslatedSelect> {
  return translateSelect(await selectOf(sql), clientParams, ORG, casts);
}

/** Each relation's body as the translator inlines it, the organization's placeholder any $n. */
const BODIES = MODEL_RELATIONS.map((r) => {
  const body = modelRelation(r.name)!.body;
  const pattern = body.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\\{org\\}', 'CAST\\(\\$\\d+ AS BIGINT\\)');
  return new RegExp(`\\(${pattern}\\) AS "((?:[^"]|"")*)"`, 'g');
});

/** The SQL of a statement with each relation's body shown as <alias>: what the statement itself became. */
async function shape(sql: string, clientParams = 0): Promise<string> {
  const t = await translate(sql, clientParams);
  return BODIES.reduce((text, body) => text.replace(body, '<$1>'), t.sql);
}

/** The SQLSTATE a thrown SqlError carries (or a failure when nothing, or something else, is thrown). */
async function refusal(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    if (error instanceof SqlError) return error.code;
    throw error;
  }
  throw new Error('not refused');
}

const refusedTranslation = (sql: string, clientParams = 0) => refusal(() => translate(sql, clientParams));
const refusedStatement = (sql: string) => refusal(() => parseStatements(sql));

describe('parseStatements: what a text is', () => {
  it('a SELECT over a relation of the model reads the model; one over nothing or the catalog reads the catalog', async () => {
    expect((await parseStatements('SELECT * FROM campaigns'))[0]!.kind).toBe('model');
    expect((await parseStatements('SELECT c.name FROM public.campaigns c'))[0]!.kind).toBe('model');
    expect((await parseStatements('SELECT * FROM campaign_ratios(current_date, current_date)'))[0]!.kind).toBe('model');
    for (const sql of [
      'SELECT 1',
      'SELECT version()',
      'SELECT * FROM pg_catalog.pg_class',
      'SELECT * FROM pg_class',
      'SELECT * FROM information_schema.tables',
      "SELECT current_setting('server_version')",
    ])
      expect((await parseStatements(sql))[0]!.kind, sql).toBe('catalog');
  });

  it('a SELECT naming what is neither goes to the translator (which refuses it), never to the catalog', async () => {
    for (const sql of ['SELECT * FROM api_clients', 'SELECT * FROM main.campaigns', 'SELECT 1 FROM fact_ad_daily'])
      expect((await parseStatements(sql))[0]!.kind, sql).toBe('model');
  });

  it('a SELECT reading both the model and the catalog is refused (0A000)', async () => {
    expect(await refusedStatement('SELECT * FROM campaigns, pg_class')).toBe('0A000');
    expect(await refusedStatement('SELECT * FROM campaigns WHERE id IN (SELECT oid FROM pg_catalog.pg_class)')).toBe(
      '0A000',
    );
  });

  it.each([
    ['INSERT INTO campaigns (id) VALUES (1)', 'INSERT'],
    ["UPDATE campaigns SET name = 'x'", 'UPDATE'],
    ['DELETE FROM campaigns', 'DELETE'],
    ['MERGE INTO campaigns c USING ads a ON a.id = c.id WHEN MATCHED THEN DELETE', 'MERGE'],
    ["COPY campaigns TO '/tmp/x'", 'COPY'],
    ['TRUNCATE campaigns', 'TRUNCATE TABLE'],
    ['CREATE TABLE x (id int)', 'CREATE TABLE'],
    ['CREATE TABLE x AS SELECT * FROM campaigns', 'CREATE TABLE AS'],
    ['CREATE VIEW v AS SELECT 1', 'CREATE VIEW'],
    ['CREATE INDEX i ON campaigns (id)', 'CREATE INDEX'],
    ['DROP TABLE campaigns', 'DROP'],
    ['ALTER TABLE campaigns ADD COLUMN x int', 'ALTER TABLE'],
    ["CREATE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql", 'CREATE FUNCTION'],
    ['CREATE SCHEMA s', 'CREATE SCHEMA'],
    ['CREATE SEQUENCE s', 'CREATE SEQUENCE'],
    ['GRANT SELECT ON campaigns TO public', 'GRANT'],
    ['VACUUM', 'VACUUM'],
    ['LOCK TABLE campaigns', 'LOCK TABLE'],
    ['CALL p()', 'CALL'],
    ["DO 'begin end'", 'DO'],
    ['ALTER TABLE campaigns RENAME TO c', 'ALTER'],
    ["COMMENT ON TABLE campaigns IS 'x'", 'COMMENT'],
  ])('a write is refused as on a read-only server (25006): %s', async (sql, name) => {
    const error = await parseStatements(sql).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqlError);
    expect((error as SqlError).code).toBe('25006');
    expect((error as SqlError).message).toBe(`cannot execute ${name} in a read-only transaction`);
  });

  it.each([
    'EXPLAIN SELECT * FROM campaigns',
    'PREPARE p AS SELECT 1',
    'EXECUTE p',
    'LOAD $$x$$',
    'SAVEPOINT s',
    'RELEASE SAVEPOINT s',
    'PREPARE TRANSACTION $$x$$',
    'CHECKPOINT',
  ])('what is neither read nor write is not supported (0A000): %s', async (sql) => {
    expect(await refusedStatement(sql)).toBe('0A000');
  });

  it('a syntax error is 42601 with the position PostgreSQL reports (1-based)', async () => {
    const error = (await parseStatements('SELECT * FORM campaigns').catch((e: unknown) => e)) as SqlError;
    expect(error).toBeInstanceOf(SqlError);
    expect(error.code).toBe('42601');
    expect(error.details.position).toBe(10);
  });

  it('settings, SHOW, transaction blocks and no-ops', async () => {
    expect(await parseStatements("SET application_name = 'tool'")).toEqual([
      { kind: 'set', name: 'application_name', value: 'tool', local: false, text: "SET application_name = 'tool'" },
    ]);
    expect((await parseStatements('SET LOCAL statement_timeout TO 5000'))[0]).toMatchObject({
      kind: 'set',
      name: 'statement_timeout',
      value: '5000',
      local: true,
    });
    expect((await parseStatements('RESET ALL'))[0]).toMatchObject({ kind: 'set', name: 'all', value: undefined });
    expect((await parseStatements('SET search_path TO DEFAULT'))[0]).toMatchObject({
      name: 'search_path',
      value: undefined,
    });
    expect(await parseStatements('SHOW TimeZone')).toEqual([{ kind: 'show', name: 'timezone' }]);
    expect(await parseStatements('BEGIN; START TRANSACTION; COMMIT; ROLLBACK')).toEqual([
      { kind: 'transaction', action: 'begin' },
      { kind: 'transaction', action: 'begin' },
      { kind: 'transaction', action: 'commit' },
      { kind: 'transaction', action: 'rollback' },
    ]);
    expect(await parseStatements('DISCARD ALL; DEALLOCATE ALL')).toEqual([
      { kind: 'noop', tag: 'DISCARD ALL' },
      { kind: 'noop', tag: 'DEALLOCATE' },
    ]);
  });

  it('several statements: each with its own text, multi-byte characters before it included', async () => {
    const statements = await parseStatements("SELECT 'é😀' AS a; SELECT name FROM campaigns ; ; SELECT 2");
    expect(statements.map((s) => s.kind)).toEqual(['catalog', 'model', 'catalog']);
    expect(statements.map((s) => ('text' in s ? s.text.trim() : ''))).toEqual([
      "SELECT 'é😀' AS a",
      'SELECT name FROM campaigns',
      'SELECT 2',
    ]);
  });

  it('an empty text is an empty statement, as PostgreSQL answers it (EmptyQueryResponse), not an error', async () => {
    expect(await parseStatements(' ; ')).toEqual([{ kind: 'empty' }]);
    expect(await parseStatements(' -- nothing\n')).toEqual([{ kind: 'empty' }]);
    expect(await parseStatements('')).toEqual([{ kind: 'empty' }]);
  });
});

describe('translateSelect: the organization', () => {
  it.each(MODEL_RELATIONS.map((r) => [r.name, r] as const))(
    'relation %s: its body with the organization bound as a parameter wherever the body scopes',
    async (name, relation) => {
      const t = await translate(`SELECT * FROM ${name}`);
      const scopes = relation.body.split('{org}').length - 1;
      expect(scopes).toBeGreaterThan(0);
      expect(t.sql.split('CAST($1 AS BIGINT)').length - 1).toBe(scopes);
      expect(t.boundValues[0]).toBe(String(ORG));
      expect(t.sql).not.toContain('{org}');
      expect(t.sql).not.toContain(String(ORG));
      expect(t.sql).toMatch(new RegExp(`\\) AS "${name}"$`));
      expect(t.readsModel).toBe(true);
    },
  );

  it.each(MODEL_TABLE_FUNCTIONS.map((f) => [f.name, f] as const))(
    'table function %s: the organization and both dates bound, nothing of the body left unfilled',
    async (name) => {
      const t = await translate(`SELECT * FROM ${name}('2026-01-01', DATE '2026-01-31') AS f`);
      expect(t.sql).not.toMatch(/\{(org|start|end)\}/);
      expect([...t.boundValues].sort()).toEqual(['2026-01-01', '2026-01-31', String(ORG)].sort());
      const placeholder = (value: string) => `$${t.boundValues.indexOf(value) + 1}`;
      expect(t.sql).toContain(`organization_id = CAST(${placeholder(String(ORG))} AS BIGINT)`);
      expect(t.sql).toContain(
        `BETWEEN CAST(${placeholder('2026-01-01')} AS DATE) AND CAST(CAST(${placeholder('2026-01-31')} AS DATE) AS DATE)`,
      );
      expect(t.sql).not.toContain(String(ORG));
      expect(t.readsModel).toBe(true);
    },
  );

  it('a table function with the wrong arguments is 42883', async () => {
    expect(await refusedTranslation("SELECT * FROM campaign_ratios('2026-01-01')")).toBe('42883');
    expect(await refusedTranslation('SELECT * FROM campaign_ratios(1, 2, 3)')).toBe('42883');
  });

  it('every relation a statement names is scoped, in joins, subqueries, CTEs, set operations and EXISTS alike, by one placeholder', async () => {
    const t = await translate(`WITH top AS (SELECT campaign_id FROM campaign_daily)
      SELECT c.id FROM campaigns c JOIN ad_groups g ON g.campaign_id = c.id
       WHERE EXISTS (SELECT 1 FROM keywords k WHERE k.ad_group_id = g.id) AND c.id IN (SELECT campaign_id FROM top)
      UNION SELECT account_id FROM account_labels`);
    for (const name of ['campaign_daily', 'campaigns', 'ad_groups', 'keywords', 'account_labels'])
      expect(t.sql, name).toMatch(
        new RegExp(`WHERE [^)]*organization_id = CAST\\(\\$1 AS BIGINT\\)[^"]*\\) AS "(${name}|c|g|k)"`),
      );
    expect(t.boundValues).toEqual([String(ORG)]);
    expect(t.sql).toContain('IN (SELECT "campaign_id" AS "campaign_id" FROM "top")');
  });

  it("the organization's placeholder follows the client's: $1..$n are the statement's own", async () => {
    const t = await translate('SELECT * FROM campaigns WHERE id = $1 AND name = $2', 2, ['BIGINT', undefined]);
    expect(t.sql).toContain('("id" = CAST($1 AS BIGINT))');
    expect(t.sql).toContain('("name" = $2)');
    expect(t.sql).toContain('organization_id = CAST($3 AS BIGINT)');
    expect(t.boundValues).toEqual([String(ORG)]);
    expect(t.clientParams).toBe(2);
    expect(await refusedTranslation('SELECT * FROM campaigns WHERE id = $2', 1)).toBe('42P02');
    expect(await refusedTranslation('SELECT * FROM campaigns WHERE id = $0', 1)).toBe('42P02');
  });

  it("a relation's body names the internal tables schema-qualified, so a WITH query of the statement cannot stand in for one", async () => {
    const t = await translate('WITH accounts AS (SELECT 2 AS id, 1 AS organization_id) SELECT * FROM account_labels');
    expect(t.sql).toContain('JOIN main.accounts a ON a.id = l.account_id');
    expect(t.sql).toContain('FROM main.account_labels l');
    for (const relation of MODEL_RELATIONS) {
      const body = (await translate(`SELECT * FROM ${relation.name}`)).sql;
      const unqualified = [...body.matchAll(/\b(?:FROM|JOIN)\s+(?!\(|main\.)(\w+)/g)].map((m) => m[1]);
      expect(unqualified, relation.name).toEqual([]);
    }
  });
});

describe('translateSelect: strings are bound parameters, never SQL text', () => {
  // PostgreSQL's protocol carries no NUL in a statement: those texts cannot be a literal.
  const texts = TEXTS.filter((text) => !text.includes('\0'));
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

  it.each(texts.map((text) => [JSON.stringify(text).slice(0, 60), text] as const))(
    '%s in a literal: bound as it is, and the SQL the same as for any other string',
    async (_, text) => {
      const statement = (value: string) =>
        `SELECT name, ${value} AS v FROM campaigns WHERE name = ${value} OR name LIKE ${value} OR name ~ ${value}`;
      const hostile = await translate(statement(literal(text)));
      const plain = await translate(statement("'plain'"));
      expect(hostile.sql).toBe(plain.sql);
      expect(hostile.boundValues).toEqual([text, String(ORG), text, text, text]);
    },
  );

  it('typed literals, CTE and subquery strings, function arguments and LIMIT values too', async () => {
    const t = await translate(
      `WITH x AS (SELECT 'in a cte' AS s) SELECT DATE '2026-01-01', '7'::int, lower('Ab'), (SELECT 'sub') FROM campaigns, x`,
    );
    expect(t.boundValues).toEqual(['in a cte', '2026-01-01', '7', 'Ab', 'sub', String(ORG)]);
    expect(t.sql).toContain('WITH "x" AS (SELECT $1 AS "s")');
    expect(t.sql).toContain('CAST($2 AS DATE)');
    expect(t.sql).toContain('CAST($3 AS INTEGER)');
    expect(t.sql).toContain('lower($4)');
    expect(t.sql).toContain('(SELECT $5 AS "?column?")');
    expect(t.sql).not.toMatch(/'(in a cte|2026-01-01|Ab|sub)'/);
  });

  it("identifiers are quoted, a quote in one doubled: the client's names are never SQL syntax", async () => {
    const t = await translate('SELECT "we""ird", "x; DROP TABLE accounts --" FROM campaigns AS "c""d"');
    expect(t.sql).toContain('"we""ird" AS "we""ird"');
    expect(t.sql).toContain('"x; DROP TABLE accounts --" AS "x; DROP TABLE accounts --"');
    expect(t.sql).toMatch(/\) AS "c""d"$/);
  });

  it('numbers are re-spelled from the parsed value', async () => {
    expect(await shape('SELECT 42, 1.50, 0, -7, 1e3, TRUE, FALSE, NULL FROM campaigns')).toBe(
      'SELECT 42 AS "?column?", 1.50 AS "?column?", 0 AS "?column?", -7 AS "?column?", 1e3 AS "?column?", TRUE AS "?column?", FALSE AS "?column?", NULL AS "?column?" FROM <campaigns>',
    );
  });
});

describe('translateSelect: the SQL each allowed node kind becomes', () => {
  it.each([
    [
      'column references, qualified and star',
      'SELECT c.name, c.*, * FROM campaigns c',
      'SELECT "c"."name" AS "name", "c".*, * FROM <c>',
    ],
    ['a column alias list on a relation', 'SELECT a FROM campaigns AS c(a, b)', 'SELECT "a" AS "a" FROM <c>("a", "b")'],
    [
      'comparison and arithmetic operators; != is <>',
      'SELECT id FROM campaigns WHERE id = 1 AND id <> 2 AND id != 3 AND id < 4 AND id > 0 AND id <= 5 AND id >= 0 AND id + 1 - 2 * 3 / 4 % 5 > -id',
      'SELECT "id" AS "id" FROM <campaigns> WHERE ((("id" = 1)) AND (("id" <> 2)) AND (("id" <> 3)) AND (("id" < 4)) AND (("id" > 0)) AND (("id" <= 5)) AND (("id" >= 0)) AND (((("id" + 1) - (((2 * 3) / 4) % 5)) > (-"id"))))',
    ],
    [
      'string concatenation',
      'SELECT name || status FROM campaigns',
      'SELECT ("name" || "status") AS "?column?" FROM <campaigns>',
    ],
    [
      'IN, NOT IN, BETWEEN, NOT BETWEEN',
      'SELECT id FROM campaigns WHERE id IN (1, 2) AND id NOT IN (3) AND id BETWEEN 1 AND 9 AND id NOT BETWEEN 5 AND 6',
      'SELECT "id" AS "id" FROM <campaigns> WHERE ((("id" IN (1, 2))) AND (("id" NOT IN (3))) AND (("id" BETWEEN 1 AND 9)) AND (("id" NOT BETWEEN 5 AND 6)))',
    ],
    [
      'LIKE, NOT LIKE, ILIKE, NOT ILIKE',
      "SELECT id FROM campaigns WHERE name LIKE 'a' OR name NOT LIKE 'b' OR name ILIKE 'c' OR name NOT ILIKE 'd'",
      'SELECT "id" AS "id" FROM <campaigns> WHERE ((("name" LIKE $2)) OR (("name" NOT LIKE $3)) OR (("name" ILIKE $4)) OR (("name" NOT ILIKE $5)))',
    ],
    [
      'IS [NOT] DISTINCT FROM, NULLIF',
      'SELECT nullif(id, 0) FROM campaigns WHERE id IS DISTINCT FROM 1 OR id IS NOT DISTINCT FROM 2',
      'SELECT nullif("id", 0) AS "nullif" FROM <campaigns> WHERE ((("id" IS DISTINCT FROM 1)) OR (("id" IS NOT DISTINCT FROM 2)))',
    ],
    [
      'NOT, IS [NOT] NULL, boolean tests (IS UNKNOWN is IS NULL)',
      'SELECT id FROM campaigns WHERE NOT (id IS NULL) AND name IS NOT NULL AND (id > 1) IS TRUE AND (id > 2) IS NOT FALSE AND (id > 3) IS UNKNOWN',
      'SELECT "id" AS "id" FROM <campaigns> WHERE (((NOT (("id" IS NULL)))) AND (("name" IS NOT NULL)) AND ((("id" > 1) IS TRUE)) AND ((("id" > 2) IS NOT FALSE)) AND ((("id" > 3) IS NULL)))',
    ],
    [
      'CASE with and without an operand, COALESCE, GREATEST, LEAST',
      'SELECT CASE id WHEN 1 THEN 2 ELSE 3 END, CASE WHEN id > 1 THEN 4 END, coalesce(id, 0), greatest(id, 1), least(id, 2) FROM campaigns',
      'SELECT (CASE "id" WHEN 1 THEN 2 ELSE 3 END) AS "case", (CASE WHEN ("id" > 1) THEN 4 END) AS "case", coalesce("id", 0) AS "coalesce", greatest("id", 1) AS "greatest", least("id", 2) AS "least" FROM <campaigns>',
    ],
    [
      'casts to the DuckDB types; a bare numeric keeps 10 decimals',
      'SELECT id::int, id::bigint, id::smallint, id::numeric, id::numeric(12, 2), id::float8, id::real, id::text, id::varchar, day::date, day::timestamp, day::timestamptz, id::boolean FROM campaign_daily',
      'SELECT CAST("id" AS INTEGER) AS "id", CAST("id" AS BIGINT) AS "id", CAST("id" AS SMALLINT) AS "id", CAST("id" AS DECIMAL(38,10)) AS "id", CAST("id" AS DECIMAL(12,2)) AS "id", CAST("id" AS DOUBLE) AS "id", CAST("id" AS REAL) AS "id", CAST("id" AS VARCHAR) AS "id", CAST("id" AS VARCHAR) AS "id", CAST("day" AS DATE) AS "day", CAST("day" AS TIMESTAMP) AS "day", CAST("day" AS TIMESTAMPTZ) AS "day", CAST("id" AS BOOLEAN) AS "id" FROM <campaign_daily>',
    ],
    ['current_date', 'SELECT current_date FROM campaigns', 'SELECT current_date AS "current_date" FROM <campaigns>'],
    [
      'aggregates: count(*), DISTINCT, ORDER BY inside, FILTER; PostgreSQL names (stddev is stddev_samp)',
      "SELECT count(*), count(DISTINCT id), string_agg(name, ',' ORDER BY name DESC), sum(id) FILTER (WHERE id > 1), stddev(id), variance(id) FROM campaigns",
      'SELECT count(*) AS "count", count(DISTINCT "id") AS "count", string_agg("name", $1 ORDER BY "name" DESC NULLS FIRST) AS "string_agg", sum("id") FILTER (WHERE ("id" > 1)) AS "sum", stddev_samp("id") AS "stddev", var_samp("id") AS "variance" FROM <campaigns>',
    ],
    [
      'scalar functions by their DuckDB names (log is log10, btrim trim, char_length length)',
      'SELECT log(id), btrim(name), char_length(name), ceiling(id), pow(id, 2), substring(name FROM 2 FOR 3), position($$a$$ IN name) FROM campaigns',
      'SELECT log10("id") AS "log", trim("name") AS "btrim", length("name") AS "char_length", ceil("id") AS "ceiling", power("id", 2) AS "pow", substring("name", 2, 3) AS "substring", strpos("name", $1) AS "position" FROM <campaigns>',
    ],
    [
      "date_trunc and date_part with the part as our constant; extract as PostgreSQL's numeric",
      "SELECT date_trunc('month', day), date_part('dow', day), extract(year FROM day) FROM campaign_daily",
      `SELECT CAST(date_trunc('month', "day") AS TIMESTAMPTZ) AS "date_trunc", date_part('dow', "day") AS "date_part", CAST(date_part('year', "day") AS DECIMAL(38,6)) AS "extract" FROM <campaign_daily>`,
    ],
    [
      'window functions: PARTITION BY, ORDER BY, frames, a named window',
      'SELECT rank() OVER (PARTITION BY device ORDER BY clicks DESC), sum(clicks) OVER (ORDER BY day ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), lag(clicks, 1, 0) OVER w FROM campaign_daily WINDOW w AS (PARTITION BY campaign_id ORDER BY day)',
      'SELECT rank() OVER (PARTITION BY "device" ORDER BY "clicks" DESC NULLS FIRST) AS "rank", sum("clicks") OVER (ORDER BY "day" ASC NULLS LAST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS "sum", lag("clicks", 1, 0) OVER "w" AS "lag" FROM <campaign_daily> WINDOW "w" AS (PARTITION BY "campaign_id" ORDER BY "day" ASC NULLS LAST)',
    ],
    [
      'RANGE frames with UNBOUNDED bounds',
      'SELECT sum(clicks) OVER (ORDER BY day RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM campaign_daily',
      'SELECT sum("clicks") OVER (ORDER BY "day" ASC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS "sum" FROM <campaign_daily>',
    ],
    [
      'EXISTS, IN (subquery), = ANY, > ALL, a scalar subquery',
      'SELECT (SELECT max(id) FROM ads) FROM campaigns WHERE EXISTS (SELECT 1 FROM ads) AND id IN (SELECT id FROM ads) AND id = ANY (SELECT id FROM ads) AND id > ALL (SELECT id FROM ads)',
      'SELECT (SELECT max("id") AS "max" FROM <ads>) AS "max" FROM <campaigns> WHERE (((EXISTS (SELECT 1 AS "?column?" FROM <ads>))) AND (("id" IN (SELECT "id" AS "id" FROM <ads>))) AND (("id" IN (SELECT "id" AS "id" FROM <ads>))) AND (("id" > ALL (SELECT "id" AS "id" FROM <ads>))))',
    ],
    [
      '= ANY over an array',
      'SELECT id FROM campaigns WHERE id = ANY (ARRAY[1, 2])',
      'SELECT "id" AS "id" FROM <campaigns> WHERE ("id" = ANY([1, 2]))',
    ],
    [
      'joins: inner, left, right, full, cross, natural, USING',
      'SELECT 1 FROM campaigns c JOIN ad_groups g ON g.campaign_id = c.id LEFT JOIN ads a ON a.ad_group_id = g.id RIGHT JOIN keywords k ON k.ad_group_id = g.id FULL JOIN accounts x ON true CROSS JOIN adplatform_accounts p NATURAL JOIN account_labels JOIN campaign_labels USING (campaign_id)',
      'SELECT 1 AS "?column?" FROM (((((((<c> JOIN <g> ON ("g"."campaign_id" = "c"."id")) LEFT JOIN <a> ON ("a"."ad_group_id" = "g"."id")) RIGHT JOIN <k> ON ("k"."ad_group_id" = "g"."id")) FULL JOIN <x> ON TRUE) CROSS JOIN <p>) NATURAL JOIN <account_labels>) JOIN <campaign_labels> USING ("campaign_id"))',
    ],
    [
      'a subquery in FROM, LATERAL, generate_series',
      'SELECT * FROM (SELECT id FROM campaigns) s, LATERAL (SELECT s.id) t, generate_series(1, 3) g',
      'SELECT * FROM (SELECT "id" AS "id" FROM <campaigns>) AS "s", LATERAL (SELECT "s"."id" AS "id") AS "t", generate_series(1, 3) AS "g"("generate_series")',
    ],
    [
      'DISTINCT, DISTINCT ON',
      'SELECT DISTINCT id FROM campaigns UNION ALL SELECT DISTINCT ON (status) id FROM campaigns ORDER BY 1',
      '(SELECT DISTINCT "id" AS "id" FROM <campaigns>) UNION ALL (SELECT DISTINCT ON ("status") "id" AS "id" FROM <campaigns>) ORDER BY 1 ASC NULLS LAST',
    ],
    [
      'GROUP BY with ROLLUP, CUBE, GROUPING SETS, (); HAVING',
      'SELECT status, count(*) FROM campaigns GROUP BY ROLLUP (status), CUBE (status, name), GROUPING SETS ((status), ()) HAVING count(*) > 1',
      'SELECT "status" AS "status", count(*) AS "count" FROM <campaigns> GROUP BY ROLLUP ("status"), CUBE ("status", "name"), GROUPING SETS ("status", ()) HAVING (count(*) > 1)',
    ],
    [
      'UNION, INTERSECT, EXCEPT (ALL)',
      'SELECT id FROM campaigns UNION SELECT id FROM ads INTERSECT ALL SELECT id FROM keywords EXCEPT SELECT id FROM ad_groups',
      '((SELECT "id" AS "id" FROM <campaigns>) UNION ((SELECT "id" AS "id" FROM <ads>) INTERSECT ALL (SELECT "id" AS "id" FROM <keywords>))) EXCEPT (SELECT "id" AS "id" FROM <ad_groups>)',
    ],
    [
      'WITH: column names, MATERIALIZED, a later CTE reading an earlier one',
      'WITH a(x) AS MATERIALIZED (SELECT id FROM campaigns), b AS NOT MATERIALIZED (SELECT x FROM a) SELECT * FROM b',
      'WITH "a"("x") AS MATERIALIZED (SELECT "id" AS "id" FROM <campaigns>), "b" AS NOT MATERIALIZED (SELECT "x" AS "x" FROM "a") SELECT * FROM "b"',
    ],
    [
      'LIMIT, OFFSET, FETCH FIRST, LIMIT ALL',
      'SELECT id FROM campaigns LIMIT 5 OFFSET 10',
      'SELECT "id" AS "id" FROM <campaigns> LIMIT 5 OFFSET 10',
    ],
    ['FETCH FIRST', 'SELECT id FROM campaigns FETCH FIRST 3 ROWS ONLY', 'SELECT "id" AS "id" FROM <campaigns> LIMIT 3'],
    ['LIMIT ALL', 'SELECT id FROM campaigns LIMIT ALL', 'SELECT "id" AS "id" FROM <campaigns> LIMIT NULL'],
    [
      'VALUES',
      'SELECT * FROM (VALUES (1, 2)) AS v(a, b), campaigns',
      'SELECT * FROM (VALUES (1, 2)) AS "v"("a", "b"), <campaigns>',
    ],
  ])('%s', async (_, sql, expected) => {
    expect(await shape(sql)).toBe(expected);
  });

  it('ORDER BY sorts NULL as PostgreSQL does: last ascending, first descending, unless the statement says', async () => {
    expect(
      await shape('SELECT id FROM campaigns ORDER BY id DESC, name, status ASC NULLS FIRST, day DESC NULLS LAST'),
    ).toBe(
      'SELECT "id" AS "id" FROM <campaigns> ORDER BY "id" DESC NULLS FIRST, "name" ASC NULLS LAST, "status" ASC NULLS FIRST, "day" DESC NULLS LAST',
    );
  });

  it('`~` is a match anywhere (regexp_matches), !~ its negation, ~* and !~* case-insensitive', async () => {
    expect(
      await shape("SELECT id FROM campaigns WHERE name ~ 'a' AND name !~ 'b' AND name ~* 'c' AND name !~* 'd'"),
    ).toBe(
      `SELECT "id" AS "id" FROM <campaigns> WHERE (((regexp_matches("name", $2))) AND ((NOT regexp_matches("name", $3))) AND ((regexp_matches("name", $4, 'i'))) AND ((NOT regexp_matches("name", $5, 'i'))))`,
    );
  });

  it('output names are PostgreSQL’s: the column, the function, ?column?, a cast literal its type', async () => {
    expect(
      await shape(
        "SELECT id, sum(id), id + 1, '1'::int, '2'::bigint, 1::double precision, EXISTS (SELECT 1 FROM ads), (SELECT name FROM ads) FROM campaigns GROUP BY id",
      ),
    ).toBe(
      'SELECT "id" AS "id", sum("id") AS "sum", ("id" + 1) AS "?column?", CAST($1 AS INTEGER) AS "int4", CAST($2 AS BIGINT) AS "int8", CAST(1 AS DOUBLE) AS "float8", (EXISTS (SELECT 1 AS "?column?" FROM <ads>)) AS "exists", (SELECT "name" AS "name" FROM <ads>) AS "name" FROM <campaigns> GROUP BY "id"',
    );
  });
});

describe('translateSelect: what is refused, and with which SQLSTATE', () => {
  it.each([
    ['an internal table', 'SELECT * FROM api_clients', '42P01'],
    ['an internal fact table', 'SELECT * FROM fact_ad_daily', '42P01'],
    ['a rollup', 'SELECT count(*) FROM rollup_campaign_daily', '42P01'],
    ['a schema-qualified internal name', 'SELECT * FROM main.campaigns', '42P01'],
    ['a catalog-qualified name', 'SELECT * FROM adreport.main.campaigns', '42P01'],
    ['a quoted name of another case', 'SELECT * FROM "Campaigns"', '42P01'],
    ['an internal table in a subquery', 'SELECT * FROM campaigns WHERE id IN (SELECT id FROM organizations)', '42P01'],
    ['a CTE of one scope from another', 'SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) a, x', '42P01'],
    ['an unknown function', 'SELECT foo(id) FROM campaigns', '42883'],
    ['reading a file', "SELECT * FROM campaigns WHERE name = read_text('/etc/passwd')", '42883'],
    ['a setting', "SELECT current_setting('threads') FROM campaigns", '42883'],
    ['a file in FROM', "SELECT * FROM read_csv('/etc/passwd')", '42883'],
    ["DuckDB's catalog in FROM", 'SELECT * FROM duckdb_tables()', '42883'],
    ['a function of another schema', 'SELECT main.lower(name) FROM campaigns', '42883'],
    ['a function with too many arguments', 'SELECT lower(name, name) FROM campaigns', '42883'],
    ['an unknown operator', 'SELECT id FROM campaigns WHERE id @> 1', '42883'],
    ['WITH RECURSIVE', 'WITH RECURSIVE r AS (SELECT 1 AS n) SELECT * FROM r, campaigns', '0A000'],
    ['a write in WITH', 'WITH d AS (DELETE FROM campaigns RETURNING id) SELECT * FROM d', '25006'],
    ['SELECT INTO', 'SELECT * INTO x FROM campaigns', '0A000'],
    ['FOR UPDATE', 'SELECT * FROM campaigns FOR UPDATE', '25006'],
    ['FETCH WITH TIES', 'SELECT id FROM campaigns ORDER BY id FETCH FIRST 1 ROWS WITH TIES', '0A000'],
    ['a GROUPS frame', 'SELECT sum(id) OVER (ORDER BY id GROUPS 1 PRECEDING) FROM campaigns', '0A000'],
    [
      'a frame exclusion',
      'SELECT sum(id) OVER (ORDER BY id ROWS 1 PRECEDING EXCLUDE CURRENT ROW) FROM campaigns',
      '0A000',
    ],
    ['ORDER BY USING', 'SELECT id FROM campaigns ORDER BY id USING <', '0A000'],
    ['SIMILAR TO', "SELECT id FROM campaigns WHERE name SIMILAR TO 'a%'", '0A000'],
    ['an unknown type', 'SELECT id::money FROM campaigns', '42704'],
    ['an array type', 'SELECT id::int[] FROM campaigns', '0A000'],
    ['numeric past 38 digits', 'SELECT id::numeric(40, 2) FROM campaigns', '22023'],
    ['a window function without OVER', 'SELECT rank() FROM campaigns', '42809'],
    ['DISTINCT in a scalar function', 'SELECT lower(DISTINCT name) FROM campaigns', '42809'],
    ['an unknown date part', "SELECT date_trunc('fortnight', day) FROM campaign_daily", '22023'],
    ['a date part from a column', 'SELECT date_trunc(name, day) FROM campaign_daily, campaigns', '22023'],
    ['current_user', 'SELECT current_user FROM campaigns', '0A000'],
    ['an alias on a join', 'SELECT * FROM (campaigns c JOIN ads a ON true) AS j', '0A000'],
    ['WITH ORDINALITY', 'SELECT * FROM generate_series(1, 2) WITH ORDINALITY', '0A000'],
    ['ROWS FROM', 'SELECT * FROM ROWS FROM (generate_series(1, 2))', '0A000'],
    ['TABLESAMPLE', 'SELECT * FROM campaigns TABLESAMPLE SYSTEM (10)', '0A000'],
    ['COLLATE', 'SELECT name COLLATE "C" FROM campaigns', '0A000'],
    ['a row constructor', 'SELECT (id, name) FROM campaigns', '0A000'],
    ['an array subscript', 'SELECT (ARRAY[id])[1] FROM campaigns', '0A000'],
    ['GROUPING()', 'SELECT grouping(status) FROM campaigns GROUP BY ROLLUP (status)', '0A000'],
    ["a parameter beyond the client's", 'SELECT * FROM campaigns WHERE id = $1', '42P02'],
  ])('%s: %s → %s', async (_, sql, code) => {
    expect(await refusedTranslation(sql)).toBe(code);
  });

  it('an unknown relation is refused with its position (1-based, as PostgreSQL reports it)', async () => {
    const error = (await translate('SELECT * FROM api_clients').catch((e: unknown) => e)) as SqlError;
    expect(error.code).toBe('42P01');
    expect(error.message).toBe('relation "api_clients" does not exist');
    expect(error.details.position).toBe(15);
  });
});
