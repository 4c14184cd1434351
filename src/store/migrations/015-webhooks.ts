import type { Migration } from './migration.js';

/**
 * Webhooks (issue 24): subscriptions, and the outbox of their deliveries. A delivery row is
 * written by recordEvent in the transaction of the event it carries (src/events/event-log.ts), so
 * a crash loses none; the worker (src/webhooks/delivery-worker.ts) sends it, at least once.
 * The signing secret is stored encrypted (AES-256-GCM) under a key kept outside the database
 * (src/webhooks/secret-box.ts): a copy of the database alone cannot sign deliveries.
 * No foreign keys and no unique keys besides the ids: the worker updates delivery rows often,
 * and DuckDB checks such constraints eagerly within a transaction.
 */
export const m015Webhooks: Migration = {
  version: 15,
  name: 'webhooks and their delivery outbox',
  statements: [
    `CREATE SEQUENCE webhook_id_seq START 1`,
    `CREATE TABLE webhooks (
       id BIGINT PRIMARY KEY DEFAULT nextval('webhook_id_seq'),
       organization_id BIGINT NOT NULL,
       url VARCHAR NOT NULL,
       events VARCHAR[] NOT NULL,
       description VARCHAR,
       secret_sealed VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL
     )`,
    `CREATE INDEX webhooks_organization_idx ON webhooks (organization_id, id)`,
    `CREATE SEQUENCE webhook_delivery_id_seq START 1`,
    `CREATE TABLE webhook_deliveries (
       id BIGINT PRIMARY KEY DEFAULT nextval('webhook_delivery_id_seq'),
       organization_id BIGINT NOT NULL,
       webhook_id BIGINT NOT NULL,
       event_id BIGINT NOT NULL,
       status VARCHAR NOT NULL,
       attempts INTEGER NOT NULL DEFAULT 0,
       created_at TIMESTAMPTZ NOT NULL,
       next_attempt_at TIMESTAMPTZ,
       retry_until TIMESTAMPTZ NOT NULL,
       last_attempt_at TIMESTAMPTZ,
       last_status_code INTEGER,
       last_error VARCHAR,
       delivered_at TIMESTAMPTZ,
       attempt_log VARCHAR NOT NULL DEFAULT '[]'
     )`,
    `CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (organization_id, webhook_id, id)`,
    `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (status, next_attempt_at)`,
  ],
};
