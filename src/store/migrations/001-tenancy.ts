import type { Migration } from './migration.js';

export const m001Tenancy: Migration = {
  version: 1,
  name: 'organizations, API clients, server keys',
  statements: [
    `CREATE SEQUENCE organization_id_seq START 1`,
    `CREATE TABLE organizations (
       id BIGINT PRIMARY KEY DEFAULT nextval('organization_id_seq'),
       name VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
    `CREATE TABLE api_clients (
       client_id VARCHAR PRIMARY KEY,
       organization_id BIGINT NOT NULL,
       name VARCHAR,
       secret_hash VARCHAR NOT NULL,
       scopes VARCHAR[] NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       disabled_at TIMESTAMPTZ
     )`,
    `CREATE INDEX api_clients_organization_idx ON api_clients (organization_id)`,
    // Secrets the server generates for itself (token signing key); never shown to anyone.
    `CREATE TABLE server_keys (
       name VARCHAR PRIMARY KEY,
       key_hex VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
  ],
};
