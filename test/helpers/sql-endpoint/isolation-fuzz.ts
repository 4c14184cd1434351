import {
  MODEL_RELATIONS,
  MODEL_TABLE_FUNCTIONS,
  type ModelRelation,
} from '../../../src/sql-endpoint/model/relations.js';
import { SYNTAX, TEXTS } from '../injection-corpus.js';

/**
 * Statements a hostile or careless client of the SQL endpoint (issue 41) might send, generated
 * from a seed for test/service/sql-endpoint-isolation.test.ts: a grammar over the model's
 * relations and columns (joins, filters, subqueries, set operations, CTEs, windows), the injection
 * corpus in literals and identifiers, catalog probes, names of the internal tables and DuckDB's
 * own functions, comments and several statements in one string, `$n` parameters over the extended
 * protocol, and very long statements.
 *
 * The other organization's values (`probes`: its ids and names) only ever appear where they
 * filter (WHERE, ON, IN, parameters compared with a column), never where a statement could
 * echo them into a row: a row that holds one then came from that organization's data.
 */

export interface FuzzStatement {
  readonly kind: string;
  readonly sql: string;
  /** Set: sent over the extended protocol with these text parameters. */
  readonly params?: readonly (string | null)[];
}

export interface FuzzContext {
  /** The caller's organization. */
  readonly organizationId: number;
  /** The internal tables (DuckDB's catalog of the store), including ones that share a relation's name. */
  readonly internalTables: readonly string[];
  /** Ids of the other organization's entities, any kind. */
  readonly probeIds: readonly number[];
  /** Names, texts and platform ids of the other organization's entities. */
  readonly probeTexts: readonly string[];
}

/** mulberry32: a small seeded generator, so that a failing seed replays. */
export function randomSource(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A PostgreSQL identifier, quoted (NUL cannot be in one: dropped). */
export const identifier = (name: string) => `"${name.replaceAll('\0', '').replaceAll('"', '""')}"`;

/** A PostgreSQL string literal; one with NUL or a backslash is an E'' string with escapes. */
export function literal(text: string): string {
  if (!text.includes('\0') && !text.includes('\\')) return `'${text.replaceAll("'", "''")}'`;
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\0', '\\x01')}'`;
}

const TEXT_TYPES = new Set(['text']);
const NUMBER_TYPES = new Set(['bigint', 'integer', 'smallint', 'numeric', 'double precision']);

/** The relations whose bodies (relations.ts) read each internal table: a CTE of that name is the interesting shadow. */
const SHADOW_COLUMNS =
  'g AS id, g AS account_id, g AS campaign_id, g AS ad_group_id, g AS adplatform_account_id, ' +
  "g AS organization_id, 'x' AS name, 'x' AS value, 'x' AS status, 'EUR' AS currency, DATE '2026-01-01' AS day, " +
  "1 AS rate, DATE '2000-01-01' AS start_date, NULL AS end_date, 1 AS units_per_eur";

const CATALOG_PROBES: readonly string[] = [
  'SELECT * FROM pg_catalog.pg_class',
  "SELECT relname, relkind FROM pg_class WHERE relkind IN ('r', 'v', 'm')",
  'SELECT * FROM pg_settings',
  "SELECT name, setting FROM pg_settings WHERE name LIKE '%dir%' OR name LIKE '%file%'",
  'SELECT * FROM pg_stat_activity',
  'SELECT query, usename, client_addr FROM pg_stat_activity',
  "SELECT current_setting('data_directory')",
  "SELECT current_setting('server_version'), current_setting('search_path')",
  "SELECT set_config('search_path', 'main', false)",
  "SELECT set_config('adreport.organization', '2', false)",
  "SELECT current_setting('adreport.organization', true)",
  'SELECT version()',
  'SELECT current_user, session_user, current_database(), current_schema()',
  'SELECT * FROM information_schema.tables',
  "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog')",
  "SELECT * FROM information_schema.columns WHERE table_name IN ('api_clients', 'fact_ad_daily', 'campaigns')",
  'SELECT * FROM information_schema.views',
  "SELECT pg_get_viewdef('campaign_daily'::regclass)",
  "SELECT definition FROM pg_views WHERE schemaname = 'public'",
  "SELECT pg_read_file('/etc/passwd')",
  "SELECT pg_ls_dir('.')",
  'SELECT * FROM pg_roles',
  'SELECT * FROM pg_user',
  'SELECT * FROM pg_shadow',
  'SELECT * FROM pg_authid',
  'SELECT inet_server_addr(), inet_server_port()',
  'SELECT * FROM pg_database',
  'SHOW ALL',
  'SHOW data_directory',
  'SHOW server_version',
  'SHOW search_path',
  'SET search_path TO main',
  'SET search_path = public, main',
  'SET role postgres',
  'SET SESSION AUTHORIZATION postgres',
  "SELECT lo_import('/etc/passwd')",
  "COPY (SELECT 1) TO PROGRAM 'id'",
  "COPY campaigns TO '/tmp/adreport-fuzz.csv'",
  'SELECT oid, proname FROM pg_catalog.pg_proc LIMIT 5',
  "SELECT * FROM dblink('host=127.0.0.1', 'select 1') AS t(x int)",
  'SELECT pg_sleep(0)',
  'SELECT txid_current()',
  'SELECT * FROM pg_stat_statements',
  "SELECT * FROM pg_catalog.pg_tables WHERE tablename LIKE '%client%'",
  'SELECT * FROM pg_catalog.pg_namespace',
  'SELECT nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid',
  'SELECT * FROM pg_catalog.pg_attribute WHERE attrelid = 0',
  'SELECT * FROM pg_stat_user_tables',
  'SELECT pg_backend_pid(), pg_postmaster_start_time()',
  'SELECT * FROM pg_available_extensions',
  "SELECT * FROM pg_catalog.pg_description WHERE description LIKE '%organization%'",
  'SELECT * FROM campaigns, pg_class',
  'SELECT * FROM campaigns WHERE id IN (SELECT oid FROM pg_class)',
  "SELECT * FROM campaigns WHERE name = current_setting('search_path')",
  "SELECT set_config('x', name, false) FROM campaigns",
  'SELECT 1',
  'SELECT NULL',
  'SELECT now() > now()',
  "SELECT 'a' || 'b'",
  'EXPLAIN SELECT * FROM campaigns',
  'EXPLAIN ANALYZE SELECT * FROM api_clients',
  'PREPARE p AS SELECT * FROM campaigns',
  'EXECUTE p',
  'DEALLOCATE ALL',
  'DISCARD ALL',
  'LISTEN x',
  'NOTIFY x',
  'VACUUM',
  'ANALYZE campaigns',
  'CHECKPOINT',
  'RESET ALL',
  'SHOW transaction_read_only',
];

/** DuckDB's ways to reach a table or a file; `{t}` is an internal table. */
const INTERNAL_TEMPLATES: readonly string[] = [
  'SELECT * FROM {t}',
  'SELECT count(*) FROM main.{t}',
  'SELECT * FROM "{t}" LIMIT 3',
  'SELECT * FROM public.{t} LIMIT 3',
  'SELECT * FROM adreport.main.{t}',
  'SELECT * FROM memory.main.{t}',
  'FROM {t}',
  'TABLE {t}',
  'SELECT * FROM campaigns WHERE id IN (SELECT id FROM {t})',
  'SELECT (SELECT count(*) FROM {t}) AS n FROM campaigns',
  'WITH x AS (SELECT * FROM {t}) SELECT * FROM x',
  'SELECT * FROM campaigns c JOIN {t} t ON true LIMIT 5',
  'SELECT * FROM campaigns UNION ALL SELECT * FROM {t}',
  'SELECT * FROM campaigns WHERE EXISTS (SELECT 1 FROM {t})',
  "SELECT * FROM pragma_table_info('{t}')",
  "SELECT * FROM query_table('{t}')",
  "SELECT * FROM query('SELECT * FROM {t}')",
  'SELECT * FROM generate_series(1, 3) g, {t}',
  'SELECT * FROM LATERAL (SELECT * FROM {t}) s',
  'SELECT * FROM {t} AS campaigns',
  'SELECT {t}.* FROM campaigns AS {t}',
  "COPY {t} TO '/tmp/adreport-fuzz.csv'",
  'DELETE FROM {t}',
  'UPDATE {t} SET organization_id = 1',
  'INSERT INTO {t} SELECT * FROM {t}',
  'DROP TABLE {t}',
  'CREATE TABLE x AS SELECT * FROM {t}',
  'CREATE VIEW v AS SELECT * FROM {t}',
  'SELECT * INTO x FROM {t}',
  'SELECT * FROM {t} FOR UPDATE',
];

const DUCKDB_PROBES: readonly string[] = [
  'SELECT * FROM duckdb_tables()',
  'SELECT * FROM duckdb_columns()',
  'SELECT * FROM duckdb_settings()',
  'SELECT * FROM duckdb_databases()',
  'SELECT * FROM duckdb_functions() LIMIT 1',
  "SELECT * FROM read_csv('/etc/passwd')",
  "SELECT * FROM read_csv_auto('/etc/hostname')",
  "SELECT * FROM read_parquet('/tmp/x.parquet')",
  "SELECT * FROM read_json('/tmp/x.json')",
  "SELECT * FROM read_text('/etc/passwd')",
  "SELECT * FROM read_blob('/etc/passwd')",
  "SELECT * FROM glob('*')",
  "SELECT * FROM '/etc/passwd'",
  "SELECT * FROM 'adreport.duckdb'",
  'SELECT * FROM sqlite_master',
  "SELECT getvariable('x')",
  "SELECT current_setting('threads')",
  'SELECT * FROM pragma_database_list()',
  'SELECT * FROM pragma_version()',
  "ATTACH '/tmp/adreport-fuzz.db' AS x",
  'DETACH x',
  'INSTALL httpfs',
  'LOAD httpfs',
  'PRAGMA database_list',
  'PRAGMA show_tables',
  "EXPORT DATABASE '/tmp/adreport-fuzz'",
  'CALL duckdb_tables()',
  'SUMMARIZE campaigns',
  'DESCRIBE campaigns',
  'SHOW TABLES',
  'SHOW ALL TABLES',
  'SET threads = 1',
  "SELECT * FROM campaigns WHERE name = (SELECT string_agg(table_name, ',') FROM duckdb_tables())",
  'SELECT * FROM campaigns USING SAMPLE 5',
  'SELECT COLUMNS(*) FROM campaigns',
  'SELECT * EXCLUDE (name) FROM campaigns',
  'SELECT * FROM campaigns POSITIONAL JOIN ad_groups',
  'SELECT * FROM campaigns ASOF JOIN ad_groups ON true',
  'SELECT * FROM campaigns QUALIFY true',
  'SELECT list_value(1, 2)',
  'SELECT * FROM campaigns WHERE id IN (SELECT unnest([20, 21, 22]))',
  'SELECT * FROM campaigns WHERE organization_id = 2',
  'SELECT * FROM campaign_daily WHERE organization_id <> 1',
  'SELECT * FROM campaigns c WHERE c.organization_id IS NOT NULL',
];

export function fuzzStatements(context: FuzzContext, count: number, seed: number): FuzzStatement[] {
  const random = randomSource(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => random() < p;
  const relations = MODEL_RELATIONS;
  const textCorpus = TEXTS;
  const probeId = () => String(pick(context.probeIds));
  const probeText = () => pick(context.probeTexts);

  /** A value to compare a column with: a probe of the other organization most of the time. */
  const valueFor = (type: string): string => {
    if (NUMBER_TYPES.has(type))
      return chance(0.7)
        ? probeId()
        : pick(['0', '-1', '1', '1e18', '2.5', 'NULL', ...SYNTAX.slice(0, 10).filter((s) => /^[-0-9.e]+$/.test(s))]);
    if (TEXT_TYPES.has(type)) return chance(0.6) ? literal(probeText()) : literal(pick(textCorpus));
    if (type === 'date') return pick(["DATE '2026-01-01'", "'2099-12-31'", 'current_date', "'not a date'"]);
    return 'NULL';
  };

  interface Scope {
    readonly alias: string;
    readonly relation: ModelRelation;
  }

  const column = (scope: Scope) => pick(scope.relation.columns);
  const ref = (scope: Scope) => {
    const c = column(scope);
    return { sql: `${scope.alias}.${identifier(c.name)}`, type: c.type, name: c.name };
  };

  const predicate = (scopes: readonly Scope[], depth: number): string => {
    const scope = pick(scopes);
    const c = ref(scope);
    switch (int(depth > 1 ? 7 : 10)) {
      case 0:
        return `${c.sql} = ${valueFor(c.type)}`;
      case 1:
        return `${c.sql} IN (${Array.from({ length: 1 + int(5) }, () => valueFor(c.type)).join(', ')})`;
      case 2:
        return TEXT_TYPES.has(c.type)
          ? `${c.sql} ${pick(['LIKE', 'ILIKE', 'NOT LIKE', '~', '~*', '!~'])} ${literal(pick([...textCorpus, `%${probeText()}%`]))}`
          : `${c.sql} BETWEEN ${valueFor(c.type)} AND ${valueFor(c.type)}`;
      case 3:
        return `${c.sql} IS ${pick(['NULL', 'NOT NULL'])}`;
      case 4:
        return `(${predicate(scopes, depth + 1)} ${pick(['AND', 'OR'])} ${predicate(scopes, depth + 1)})`;
      case 5:
        return `NOT (${predicate(scopes, depth + 1)})`;
      case 6:
        return `${c.sql} ${pick(['<', '>', '<>', '<=', '>='])} ${valueFor(c.type)}`;
      case 7: {
        const inner = { alias: `s${depth}`, relation: pick(relations) };
        const innerColumn = inner.relation.columns.find((x) => x.name === c.name) ?? column(inner);
        return `EXISTS (SELECT 1 FROM ${inner.relation.name} ${inner.alias} WHERE ${inner.alias}.${identifier(innerColumn.name)} = ${c.sql} AND ${predicate([inner], depth + 1)})`;
      }
      case 8: {
        const inner = { alias: `s${depth}`, relation: pick(relations) };
        return `${c.sql} ${chance(0.3) ? 'NOT ' : ''}IN (SELECT ${inner.alias}.${identifier(column(inner).name)} FROM ${inner.relation.name} ${inner.alias} WHERE ${predicate([inner], depth + 1)})`;
      }
      default: {
        const inner = { alias: `s${depth}`, relation: pick(relations) };
        return `${c.sql} ${pick(['=', '>', '<'])} (SELECT ${pick(['max', 'min', 'count'])}(${inner.alias}.${identifier(column(inner).name)}) FROM ${inner.relation.name} ${inner.alias})`;
      }
    }
  };

  /**
   * Small relations (the caller's dimensions of a few dozen rows): any join among them stays small.
   * A statement reads at most one other relation (a daily one or ads / keywords), so that a random
   * join never multiplies tens of thousands of rows by tens of thousands.
   */
  const small = relations.filter((r) =>
    [
      'accounts',
      'account_labels',
      'adplatform_accounts',
      'account_adplatform_links',
      'campaigns',
      'campaign_labels',
      'ad_groups',
    ].includes(r.name),
  );
  const large = relations.filter((r) => !small.includes(r));

  /** One SELECT of the grammar; `width` fixes the number of output columns (for set operations). */
  const select = (depth: number, width?: number): string => {
    const first: Scope = { alias: `a${depth}`, relation: pick(relations) };
    const scopes: Scope[] = [first];
    let from = `${first.relation.name} ${first.alias}`;
    let readsLarge = large.includes(first.relation);
    for (let j = 0; j < int(3) && depth < 3; j++) {
      const relation = readsLarge || chance(0.6) ? pick(small) : pick(large);
      readsLarge ||= large.includes(relation);
      const next: Scope = { alias: `j${depth}_${j}`, relation };
      const shared = next.relation.columns.filter(
        (c) => /(^|_)id$|^day$/.test(c.name) && scopes.some((s) => s.relation.columns.some((x) => x.name === c.name)),
      );
      const on = shared.length
        ? (() => {
            const c = pick(shared);
            const other = scopes.find((s) => s.relation.columns.some((x) => x.name === c.name))!;
            return `${next.alias}.${identifier(c.name)} = ${other.alias}.${identifier(c.name)}`;
          })()
        : predicate([...scopes, next], 2);
      // A cross join or a join on anything but a key only among the small relations.
      const join =
        shared.length && !(large.includes(relation) && scopes.some((s) => large.includes(s.relation)))
          ? pick(['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'])
          : small.includes(relation) && scopes.every((s) => small.includes(s.relation))
            ? pick(['JOIN', 'LEFT JOIN', 'CROSS JOIN', ','])
            : 'JOIN';
      from +=
        join === 'CROSS JOIN' || join === ','
          ? `${join === ',' ? ',' : ' CROSS JOIN'} ${next.relation.name} ${next.alias}`
          : ` ${join} ${next.relation.name} ${next.alias} ON ${shared.length ? on : `${on} AND ${next.alias}.${identifier(next.relation.columns[0]!.name)} = ${first.alias}.${identifier(first.relation.columns[0]!.name)}`}`;
      scopes.push(next);
    }
    const aggregate = chance(0.4);
    const n = width ?? 1 + int(4);
    const keys: string[] = [];
    const outputs: string[] = [];
    for (let i = 0; i < n; i++) {
      const c = ref(pick(scopes));
      const shape = int(10);
      if (aggregate && shape < 5) outputs.push(`${pick(['count', 'max', 'min'])}(${c.sql})`);
      else if (aggregate && shape < 6 && NUMBER_TYPES.has(c.type)) outputs.push(`sum(${c.sql})`);
      else if (!aggregate && shape === 6)
        outputs.push(`row_number() OVER (PARTITION BY ${c.sql} ORDER BY ${ref(pick(scopes)).sql})`);
      else if (!aggregate && shape === 7)
        outputs.push(TEXT_TYPES.has(c.type) ? `lower(${c.sql})` : `coalesce(${c.sql}, NULL)`);
      else if (!aggregate && shape === 8 && depth < 2) {
        const inner = { alias: `q${depth}`, relation: pick(small) };
        outputs.push(
          `(SELECT count(*) FROM ${inner.relation.name} ${inner.alias} WHERE ${predicate([inner, ...scopes], 2)})`,
        );
      } else {
        outputs.push(c.sql);
        keys.push(c.sql);
      }
    }
    if (width === undefined && chance(0.1) && !aggregate)
      outputs.splice(0, outputs.length, chance(0.5) ? '*' : `${first.alias}.*`);
    let sql = `SELECT ${chance(0.1) ? 'DISTINCT ' : ''}${outputs.join(', ')} FROM ${from}`;
    if (chance(0.7)) sql += ` WHERE ${predicate(scopes, depth)}`;
    if (aggregate && keys.length) sql += ` GROUP BY ${keys.join(', ')}`;
    if (aggregate && chance(0.2)) sql += ` HAVING count(*) > ${int(3)}`;
    return sql;
  };

  const statement = (depth = 0): string => {
    let sql: string;
    const shape = int(10);
    if (shape === 0) {
      const width = 1 + int(2);
      sql = `(${select(depth + 1, width)}) ${pick(['UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT'])} (${select(depth + 1, width)})`;
    } else if (shape === 1) {
      const name = chance(0.5) ? pick(context.internalTables) : `c${depth}`;
      sql = `WITH ${identifier(name)} AS (${select(depth + 1)}) ${select(depth)}`;
    } else {
      sql = select(depth);
    }
    if (chance(0.3)) sql += ` ORDER BY 1${chance(0.5) ? ' DESC' : ''}`;
    if (chance(0.97)) sql += ` LIMIT ${1 + int(20)}`;
    if (chance(0.1)) sql += ` OFFSET ${int(20)}`;
    return sql;
  };

  /**
   * A CTE named like an internal table that a relation's body (relations.ts) reads, with rows of
   * many ids in the caller's organization, and a statement over that relation: whether the body
   * still reads the table, or the statement's CTE.
   */
  const shadowed = (name: string) =>
    relations.filter((r) => new RegExp(`(FROM|JOIN)\\s+(main\\.)?${name}\\b`).test(r.body));
  const shadowNames = context.internalTables.filter((t) => shadowed(t).some((r) => r.name !== t));
  const shadow = (): string => {
    const name = pick(shadowNames);
    const target = pick(shadowed(name).filter((r) => r.name !== name));
    const body = `SELECT ${SHADOW_COLUMNS.replaceAll('g AS organization_id', `${context.organizationId} AS organization_id`)} FROM generate_series(1, 100) AS t(g)`;
    return `WITH ${chance(0.5) ? name : identifier(name)} AS (${body}) SELECT * FROM ${target.name} LIMIT ${1 + int(200)}`;
  };

  const injectionLiteral = (): string => {
    const text = pick(textCorpus);
    const relation = pick(relations);
    const textColumn = relation.columns.find((c) => TEXT_TYPES.has(c.type))?.name ?? 'currency';
    return pick([
      `SELECT * FROM ${relation.name} WHERE ${identifier(textColumn)} = ${literal(text)} LIMIT 5`,
      `SELECT count(*) FROM ${relation.name} WHERE ${identifier(textColumn)} LIKE ${literal(text)}`,
      `SELECT count(*) FROM ${relation.name} WHERE ${identifier(textColumn)} ~ ${literal(text)}`,
      `SELECT ${literal(text)} AS v FROM accounts`,
      `SELECT lower(${literal(text)}) AS v, length(${literal(text)}) AS n FROM accounts`,
      `SELECT * FROM campaigns WHERE name = ${literal(text)} OR id = ${probeId()}`,
      `SELECT * FROM ${relation.name} WHERE ${identifier(textColumn)} IN (${literal(text)}, ${literal(probeText())}) LIMIT 5`,
      `SELECT * FROM campaigns WHERE name = '${text.replaceAll('\0', '')}' LIMIT 5`,
    ]);
  };

  const injectionIdentifier = (): string => {
    const text = pick([...textCorpus, ...SYNTAX, ...context.internalTables]);
    const relation = pick(relations);
    return pick([
      `SELECT ${identifier(text)} FROM ${relation.name} LIMIT 3`,
      `SELECT * FROM ${identifier(text)}`,
      `SELECT * FROM ${relation.name} AS ${identifier(text)} LIMIT 3`,
      `SELECT ${identifier(text)}.* FROM ${relation.name} LIMIT 3`,
      `WITH ${identifier(text)} AS (SELECT 1 AS x) SELECT * FROM ${identifier(text)}`,
      `WITH ${identifier(text)} AS (SELECT id FROM campaigns) SELECT * FROM campaign_labels LIMIT 5`,
      `SELECT id AS ${identifier(text)} FROM campaigns LIMIT 3`,
      `SELECT * FROM ${relation.name} ORDER BY ${identifier(text)} LIMIT 3`,
      `SELECT ${identifier(text)}(id) FROM campaigns`,
      `SELECT * FROM public.${identifier(text)}`,
      `SELECT * FROM ${identifier(text)}.${relation.name}`,
    ]);
  };

  const comments = (): string => {
    const a = statement();
    const b = pick([
      statement(),
      pick(CATALOG_PROBES),
      pick(DUCKDB_PROBES),
      pick(INTERNAL_TEMPLATES).replaceAll('{t}', pick(context.internalTables)),
    ]);
    return pick([
      `${a}; ${b}`,
      `${a} -- AND organization_id = ${context.organizationId}\n`,
      `${a.replace(' FROM ', ' /* comment */ FROM ')}`,
      `${a.replace(' FROM ', ' /* nested /* comment */ */ FROM ')}`,
      `/* ${b} */ ${a}`,
      `-- ${b}\n${a}`,
      `${a}; DROP TABLE campaigns;`,
      `BEGIN; ${a}; COMMIT;`,
      `BEGIN READ WRITE; ${a}; ROLLBACK;`,
      `${a.replaceAll(' ', '/**/')}`,
      `${a};;; ${b};`,
      `SELECT * FROM campaigns WHERE name = '--' OR id = ${probeId()}`,
      `SELECT * FROM campaigns WHERE name = '/*' OR name = '*/' LIMIT 3`,
      `${a}\n;\n${b}\n;\n${statement()}`,
    ]);
  };

  const withParams = (): FuzzStatement => {
    const id = probeId();
    const text = chance(0.5) ? probeText() : pick(textCorpus).replaceAll('\0', '');
    const relation = pick(relations);
    const idColumn = relation.columns.find((c) => c.name === 'id' || c.name.endsWith('_id'))?.name ?? 'day';
    const choices: FuzzStatement[] = [
      { kind: 'params', sql: 'SELECT * FROM campaigns WHERE id = $1', params: [id] },
      {
        kind: 'params',
        sql: `SELECT * FROM ${relation.name} WHERE ${identifier(idColumn)} = $1::bigint LIMIT 5`,
        params: [id],
      },
      { kind: 'params', sql: 'SELECT * FROM campaigns WHERE name = $1', params: [text] },
      { kind: 'params', sql: 'SELECT * FROM keywords WHERE text = $1 OR id = $2::bigint', params: [text, id] },
      { kind: 'params', sql: 'SELECT count(*) FROM keyword_daily WHERE keyword_id = $1', params: [id] },
      { kind: 'params', sql: 'SELECT * FROM campaign_labels WHERE campaign_id IN ($1, $2)', params: [id, probeId()] },
      {
        kind: 'params',
        sql: 'SELECT * FROM ad_groups WHERE campaign_id = ANY (SELECT id FROM campaigns WHERE id = $1)',
        params: [id],
      },
      { kind: 'params', sql: 'SELECT * FROM campaigns LIMIT $1', params: [String(1 + int(5))] },
      { kind: 'params', sql: 'SELECT * FROM campaigns WHERE id = $2', params: [id] },
      { kind: 'params', sql: 'SELECT * FROM campaigns WHERE id = $1', params: [pick(SYNTAX)] },
      { kind: 'params', sql: 'SELECT * FROM campaigns WHERE id = $1', params: [null] },
      { kind: 'params', sql: 'SELECT length($1) AS n FROM accounts', params: [pick(textCorpus).replaceAll('\0', '')] },
      { kind: 'params', sql: 'SELECT * FROM campaigns WHERE name LIKE $1 LIMIT 3', params: [`%${text}%`] },
      { kind: 'params', sql: 'SELECT * FROM pg_class WHERE relname = $1', params: [pick(context.internalTables)] },
      { kind: 'params', sql: 'SELECT current_setting($1)', params: ['data_directory'] },
      { kind: 'params', sql: 'SELECT * FROM campaigns WHERE id = $1; SELECT 1', params: [id] },
      { kind: 'params', sql: `${statement()} `, params: [] },
    ];
    return pick(choices);
  };

  const long = (): string => {
    const ids = Array.from({ length: 3000 + int(3000) }, () => probeId());
    return pick([
      `SELECT count(*) FROM campaigns WHERE ${ids.map((i) => `id = ${i}`).join(' OR ')}`,
      `SELECT * FROM keywords WHERE id IN (${ids.join(', ')})`,
      `SELECT ${'('.repeat(400)}1${')'.repeat(400)} AS x FROM accounts`,
      `SELECT ${'('.repeat(5000)}1${')'.repeat(5000)} AS x FROM accounts`,
      `SELECT * FROM campaigns WHERE name = ${literal('x'.repeat(200_000))}`,
      `SELECT id AS ${identifier('a'.repeat(10_000))} FROM campaigns`,
      `SELECT * FROM ${identifier('campaigns'.repeat(50))}`,
      Array.from({ length: 300 }, (_, i) => `SELECT id FROM campaigns WHERE id = ${ids[i]}`).join(' UNION ALL '),
      `SELECT count(*) FROM campaigns WHERE ${Array.from({ length: 2000 }, () => 'NOT').join(' ')} id = ${probeId()}`,
      `SELECT ${Array.from({ length: 1500 }, (_, i) => `id + ${i}`).join(', ')} FROM campaigns LIMIT 1`,
      `${Array.from({ length: 60 }, () => 'WITH').join(' ')}`,
      `${'SELECT 1; '.repeat(500)}`,
    ]);
  };

  const garbage = (): string => {
    const tokens = [
      'SELECT',
      'FROM',
      'WHERE',
      ',',
      '(',
      ')',
      '*',
      'campaigns',
      'api_clients',
      'campaign_daily',
      '1',
      "'x'",
      'UNION',
      'JOIN',
      'ON',
      '=',
      'AND',
      'OR',
      '--',
      '/*',
      '*/',
      ';',
      '$1',
      '"id"',
      '::text',
      'LIMIT',
      'WITH',
      'AS',
      'organization_id',
      'NULL',
      "E'\\'",
      '$$',
      'U&"\\0061"',
      'GROUP BY',
      'ORDER',
      'BY',
      'OVER',
      'main.',
      'pg_class',
      'read_csv',
      "'/etc/passwd'",
    ];
    return Array.from({ length: 3 + int(20) }, () => pick(tokens)).join(' ');
  };

  /** The model's table functions (campaign_ratios(start, end), ...), over ranges and filtered by probes. */
  const tableFunction = (): string => {
    const fn = pick(MODEL_TABLE_FUNCTIONS);
    const day = () =>
      pick(["'2026-01-01'", "'2099-12-31'", "DATE '2020-02-29'", 'current_date', "'x'", 'NULL', `'${probeText()}'`]);
    const args = chance(0.9)
      ? `${day()}, ${day()}`
      : pick(['', day(), `${day()}, ${day()}, ${day()}`, `(SELECT max(day) FROM campaign_daily), current_date`]);
    return pick([
      `SELECT * FROM ${fn.name}(${args}) LIMIT ${1 + int(20)}`,
      `SELECT * FROM ${fn.name}(${args}) f WHERE f.campaign_id IN (${probeId()}, ${probeId()})`,
      `SELECT c.name, f.* FROM ${fn.name}(${args}) f JOIN campaigns c ON c.id = f.campaign_id LIMIT 5`,
      `WITH ${pick(context.internalTables)} AS (SELECT 1 AS x) SELECT * FROM ${fn.name}(${args}) LIMIT 5`,
      `SELECT count(*) FROM ${fn.name}(${args}) WHERE campaign_id = ${probeId()}`,
    ]);
  };

  const out: FuzzStatement[] = [];
  while (out.length < count) {
    const roll = random();
    if (roll < 0.33) out.push({ kind: 'grammar', sql: statement() });
    else if (roll < 0.36) out.push({ kind: 'table function', sql: tableFunction() });
    else if (roll < 0.41) out.push({ kind: 'shadowing cte', sql: shadow() });
    else if (roll < 0.5) out.push({ kind: 'injection literal', sql: injectionLiteral() });
    else if (roll < 0.57) out.push({ kind: 'injection identifier', sql: injectionIdentifier() });
    else if (roll < 0.66) out.push({ kind: 'catalog', sql: pick(CATALOG_PROBES) });
    else if (roll < 0.72)
      out.push({
        kind: 'internal table',
        sql: pick(INTERNAL_TEMPLATES).replaceAll('{t}', pick(context.internalTables)),
      });
    else if (roll < 0.77) out.push({ kind: 'duckdb', sql: pick(DUCKDB_PROBES) });
    else if (roll < 0.84) out.push({ kind: 'comments, several statements', sql: comments() });
    else if (roll < 0.93) out.push(withParams());
    else if (roll < 0.94) out.push({ kind: 'long', sql: long() });
    else out.push({ kind: 'garbage', sql: garbage() });
  }
  return out;
}
