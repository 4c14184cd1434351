import type { Migration } from './migration.js';

const custom = [
  ...Array.from({ length: 20 }, (_, i) => `field${i + 1} VARCHAR`),
  ...Array.from({ length: 10 }, (_, i) => `field${i + 21} DOUBLE`),
].join(',\n       ');

export const m002Accounts: Migration = {
  version: 2,
  name: 'accounts and account labels',
  statements: [
    `CREATE SEQUENCE account_id_seq START 1`,
    `CREATE TABLE accounts (
       id BIGINT PRIMARY KEY DEFAULT nextval('account_id_seq'),
       organization_id BIGINT NOT NULL,
       name VARCHAR NOT NULL,
       language_code VARCHAR NOT NULL,
       country_code VARCHAR NOT NULL,
       currency VARCHAR NOT NULL,
       notes VARCHAR,
       auto_import BOOLEAN NOT NULL DEFAULT false,
       ${custom},
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
    `CREATE INDEX accounts_organization_idx ON accounts (organization_id)`,
    `CREATE TABLE account_labels (
       account_id BIGINT NOT NULL,
       name VARCHAR NOT NULL,
       value VARCHAR NOT NULL,
       PRIMARY KEY (account_id, name)
     )`,
  ],
};
