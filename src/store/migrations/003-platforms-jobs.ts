import type { Migration } from './migration.js';

export const m003PlatformsJobs: Migration = {
  version: 3,
  name: 'master accounts, ad platform accounts, links, jobs, sandbox platform state',
  statements: [
    `CREATE SEQUENCE adplatform_master_account_id_seq START 1`,
    `CREATE TABLE adplatform_master_accounts (
       id BIGINT PRIMARY KEY DEFAULT nextval('adplatform_master_account_id_seq'),
       organization_id BIGINT NOT NULL,
       ad_platform_type VARCHAR NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       name VARCHAR NOT NULL,
       kind VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       UNIQUE (organization_id, ad_platform_type, ad_platform_id)
     )`,
    `CREATE SEQUENCE adplatform_account_id_seq START 1`,
    // Every platform account the organization knows: linked, seen under a master, or created.
    `CREATE TABLE adplatform_accounts (
       id BIGINT PRIMARY KEY DEFAULT nextval('adplatform_account_id_seq'),
       organization_id BIGINT NOT NULL,
       ad_platform_type VARCHAR NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       name VARCHAR NOT NULL,
       currency VARCHAR NOT NULL,
       time_zone VARCHAR NOT NULL,
       master_account_id BIGINT,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       UNIQUE (organization_id, ad_platform_type, ad_platform_id)
     )`,
    `CREATE TABLE account_adplatform_links (
       account_id BIGINT NOT NULL,
       adplatform_account_id BIGINT NOT NULL,
       status VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, adplatform_account_id)
     )`,
    `CREATE SEQUENCE job_id_seq START 1`,
    `CREATE TABLE jobs (
       id BIGINT PRIMARY KEY DEFAULT nextval('job_id_seq'),
       organization_id BIGINT NOT NULL,
       type VARCHAR NOT NULL,
       status VARCHAR NOT NULL,
       input VARCHAR NOT NULL,
       result VARCHAR,
       errors VARCHAR NOT NULL DEFAULT '[]',
       attempts INTEGER NOT NULL DEFAULT 0,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       started_at TIMESTAMPTZ,
       finished_at TIMESTAMPTZ,
       next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       idempotency_key VARCHAR,
       request_fingerprint VARCHAR
     )`,
    `CREATE INDEX jobs_organization_idx ON jobs (organization_id)`,
    // The sandbox platforms' own state: what a real platform would keep on its side.
    `CREATE TABLE sandbox_created_accounts (
       organization_id BIGINT NOT NULL,
       platform VARCHAR NOT NULL,
       master_id VARCHAR NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       name VARCHAR NOT NULL,
       currency VARCHAR NOT NULL,
       time_zone VARCHAR NOT NULL,
       request_token VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       PRIMARY KEY (organization_id, platform, ad_platform_id)
     )`,
    `CREATE TABLE sandbox_changes (
       organization_id BIGINT NOT NULL,
       platform VARCHAR NOT NULL,
       account_id VARCHAR NOT NULL,
       entity VARCHAR NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       field VARCHAR NOT NULL,
       value VARCHAR NOT NULL,
       changed_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
  ],
};
