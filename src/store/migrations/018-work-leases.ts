import type { Migration } from './migration.js';

/**
 * Which process runs which claimed job, report job or webhook delivery (issue 37): a replica of
 * the PostgreSQL deployment writes a heartbeat to `replicas`; a RUNNING row whose lease names a
 * replica that stopped beating is taken over by another. The embedded store has one process, so
 * at its start every lease is a dead one.
 */
export const m018WorkLeases: Migration = {
  version: 18,
  name: 'work leases and replica heartbeats',
  statements: [
    `CREATE TABLE replicas (
       id VARCHAR PRIMARY KEY,
       started_at TIMESTAMPTZ NOT NULL,
       seen_at TIMESTAMPTZ NOT NULL
     )`,
    `CREATE TABLE work_leases (
       queue VARCHAR NOT NULL,
       item_id BIGINT NOT NULL,
       replica_id VARCHAR NOT NULL,
       PRIMARY KEY (queue, item_id)
     )`,
  ],
};
