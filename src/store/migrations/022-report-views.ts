import type { Migration } from './migration.js';

/**
 * Saved report views (issue 43): a named statistics request (endpoint, its GET parameters, the
 * statistic a chart draws) that every client of the organization lists and opens. The query is
 * stored as the JSON text the API shows (every value text, a repeated parameter a list), validated
 * by the GET's parser before the row exists. Names are unique per organization; the service checks
 * it in the write's transaction (one writer on DuckDB, SERIALIZABLE on PostgreSQL), without a
 * unique key (as migration 015: DuckDB checks such constraints eagerly within a transaction).
 */
export const m022ReportViews: Migration = {
  version: 22,
  name: 'saved report views',
  statements: [
    `CREATE SEQUENCE report_view_id_seq START 1`,
    `CREATE TABLE report_views (
       id BIGINT PRIMARY KEY DEFAULT nextval('report_view_id_seq'),
       organization_id BIGINT NOT NULL,
       name VARCHAR NOT NULL,
       endpoint VARCHAR NOT NULL,
       query VARCHAR NOT NULL,
       chart VARCHAR,
       created_by VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL
     )`,
    `CREATE INDEX report_views_organization_idx ON report_views (organization_id, name, id)`,
  ],
};
