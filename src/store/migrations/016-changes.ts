import type { Migration } from './migration.js';

/**
 * The change feed (issue 24): what changed in an organization's report data, one row per write
 * that changed it, written in that write's transaction (src/changes/change-log.ts). Ids come from
 * one sequence and the single writer commits in id order, so "rows after id N" is exactly what a
 * client holding a cursor at N has not seen. `organization_id` NULL: a change every organization's
 * reports see (FX rates). `change_purges` remembers, per organization (0 for the shared rows), the
 * last id the seven-day purge removed: a cursor before it would silently skip rows, so it gets 410.
 */
export const m016Changes: Migration = {
  version: 16,
  name: 'changes',
  statements: [
    `CREATE SEQUENCE change_id_seq START 1`,
    `CREATE TABLE changes (
       id BIGINT PRIMARY KEY DEFAULT nextval('change_id_seq'),
       organization_id BIGINT,
       kind VARCHAR NOT NULL,
       adplatform_account_id BIGINT,
       account_id BIGINT,
       first_day DATE,
       last_day DATE,
       changed_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
    `CREATE INDEX changes_organization_idx ON changes (organization_id, id)`,
    `CREATE TABLE change_purges (
       organization_id BIGINT PRIMARY KEY,
       purged_through BIGINT NOT NULL
     )`,
  ],
};
