import { bindClickhouseParams, clickhouseDialect, CLICKHOUSE_QUERY_SETTINGS } from '../sql/compile-report.js';
import type { ClickHouseSql } from './clickhouse-engine.js';

/** The ClickHouse dialect of src/sql/clickhouse as the engine uses it. */
export const clickhouseSql: ClickHouseSql = {
  dialect: clickhouseDialect,
  bind(sql, params) {
    const bound = bindClickhouseParams(sql, params);
    return { sql: bound.sql, params: bound.query_params };
  },
  settings: CLICKHOUSE_QUERY_SETTINGS,
};
