import type { Migration } from './migration.js';

/**
 * The organization's event log (issue 24): what happened (a job ended, statistics were synced, a
 * link lost access), written in the transaction of the change it reports, so that no event is
 * lost or invented by a crash. Webhook deliveries are made from it.
 */
export const m013Events: Migration = {
  version: 13,
  name: 'events',
  statements: [
    `CREATE SEQUENCE event_id_seq START 1`,
    `CREATE TABLE events (
       id BIGINT PRIMARY KEY DEFAULT nextval('event_id_seq'),
       organization_id BIGINT NOT NULL,
       type VARCHAR NOT NULL,
       data VARCHAR NOT NULL,
       occurred_at TIMESTAMPTZ NOT NULL
     )`,
    `CREATE INDEX events_organization_idx ON events (organization_id, id)`,
  ],
};
