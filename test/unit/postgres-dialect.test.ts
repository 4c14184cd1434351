import { describe, expect, it } from 'vitest';
import { toPostgresSql } from '../../src/store/postgres/postgres-dialect.js';

/* Each DuckDB spelling the service's own SQL uses, and what PostgreSQL gets instead (one rule each). */
describe('toPostgresSql', () => {
  it('formats timestamps in UTC with to_char and dates without a time zone', () => {
    expect(toPostgresSql(`SELECT strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "createdAt" FROM t`)).toBe(
      `SELECT to_char((created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt" FROM t`,
    );
    expect(toPostgresSql(`SELECT strftime(max(day), '%Y-%m-%d') AS d FROM t`)).toBe(
      `SELECT to_char(max(day), 'YYYY-MM-DD') AS d FROM t`,
    );
  });

  it('rewrites list functions, nested calls innermost first', () => {
    expect(toPostgresSql('SELECT 1 FROM w WHERE list_contains(events, $2)')).toBe(
      'SELECT 1 FROM w WHERE ($2 = ANY(events))',
    );
    expect(toPostgresSql('SELECT coalesce((SELECT list(l.id ORDER BY l.id) FROM l), []) AS ids')).toBe(
      "SELECT coalesce((SELECT array_agg(l.id ORDER BY l.id) FROM l), '{}') AS ids",
    );
    expect(toPostgresSql('SELECT string_split(s, chr(31)) FROM t')).toBe(
      'SELECT string_to_array(s, chr(31))::VARCHAR[] FROM t',
    );
    expect(toPostgresSql('SELECT epoch_ms(created_at) AS ms FROM t')).toBe(
      'SELECT (extract(epoch from created_at) * 1000)::BIGINT AS ms FROM t',
    );
    expect(toPostgresSql('SELECT CAST(s.synced_at - to_days(s.lag) AS DATE) - 1 FROM s')).toBe(
      'SELECT CAST(s.synced_at - make_interval(days => s.lag) AS DATE) - 1 FROM s',
    );
    expect(toPostgresSql('SELECT 1 FROM c WHERE contains(c.name, $2) OR ends_with(c.name, $3)')).toBe(
      'SELECT 1 FROM c WHERE (strpos(c.name, $2) > 0) OR (right(c.name, length($3)) = $3)',
    );
  });

  it('leaves a function name inside a string literal alone, and names list() only as a call', () => {
    expect(toPostgresSql("SELECT 'list(x)' AS s, list_x FROM t")).toBe("SELECT 'list(x)' AS s, list_x FROM t");
  });

  it('maps DuckDB types and temp-table spellings', () => {
    expect(toPostgresSql('CREATE TABLE t (a DOUBLE, b BLOB, c TINYINT, d DOUBLE PRECISION)')).toBe(
      'CREATE TABLE t (a DOUBLE PRECISION, b BYTEA, c SMALLINT, d DOUBLE PRECISION)',
    );
    expect(toPostgresSql('CREATE OR REPLACE TEMP TABLE stage (id BIGINT)')).toBe(
      'DROP TABLE IF EXISTS pg_temp.stage; CREATE TEMP TABLE stage (id BIGINT)',
    );
    expect(toPostgresSql('DROP TABLE IF EXISTS temp.stage')).toBe('DROP TABLE IF EXISTS pg_temp.stage');
    expect(toPostgresSql('SELECT []::VARCHAR[]')).toBe('SELECT ARRAY[]::VARCHAR[]');
  });

  it('names a subquery in FROM that DuckDB lets go unnamed', () => {
    expect(toPostgresSql('SELECT x FROM (SELECT 1 AS x) WHERE x = 1')).toBe(
      'SELECT x FROM (SELECT 1 AS x) AS unnamed_1 WHERE x = 1',
    );
    expect(toPostgresSql('SELECT x FROM (SELECT 1 AS x) s')).toBe('SELECT x FROM (SELECT 1 AS x) s');
  });
});
