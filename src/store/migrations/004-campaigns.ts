import type { Migration } from './migration.js';

export const m004Campaigns: Migration = {
  version: 4,
  name: 'imported campaign trees and campaign labels',
  statements: [
    `CREATE SEQUENCE campaign_id_seq START 1`,
    `CREATE TABLE campaigns (
       id BIGINT PRIMARY KEY DEFAULT nextval('campaign_id_seq'),
       organization_id BIGINT NOT NULL,
       adplatform_account_id BIGINT NOT NULL,
       ad_platform_type VARCHAR NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       name VARCHAR NOT NULL,
       status VARCHAR NOT NULL,
       imported_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       UNIQUE (adplatform_account_id, ad_platform_id)
     )`,
    `CREATE INDEX campaigns_organization_idx ON campaigns (organization_id)`,
    // Names of system labels carry the "sys." prefix (sys.campaignGroup); client labels cannot.
    `CREATE TABLE campaign_labels (
       campaign_id BIGINT NOT NULL,
       name VARCHAR NOT NULL,
       value VARCHAR NOT NULL,
       PRIMARY KEY (campaign_id, name)
     )`,
    `CREATE SEQUENCE ad_group_id_seq START 1`,
    `CREATE TABLE ad_groups (
       id BIGINT PRIMARY KEY DEFAULT nextval('ad_group_id_seq'),
       organization_id BIGINT NOT NULL,
       campaign_id BIGINT NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       name VARCHAR NOT NULL,
       status VARCHAR NOT NULL
     )`,
    `CREATE SEQUENCE keyword_id_seq START 1`,
    `CREATE TABLE keywords (
       id BIGINT PRIMARY KEY DEFAULT nextval('keyword_id_seq'),
       organization_id BIGINT NOT NULL,
       ad_group_id BIGINT NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       text VARCHAR NOT NULL,
       match_type VARCHAR NOT NULL,
       status VARCHAR NOT NULL
     )`,
    `CREATE SEQUENCE ad_id_seq START 1`,
    `CREATE TABLE ads (
       id BIGINT PRIMARY KEY DEFAULT nextval('ad_id_seq'),
       organization_id BIGINT NOT NULL,
       ad_group_id BIGINT NOT NULL,
       ad_platform_id VARCHAR NOT NULL,
       name VARCHAR NOT NULL,
       status VARCHAR NOT NULL,
       ad_type VARCHAR NOT NULL,
       headline VARCHAR NOT NULL,
       description VARCHAR NOT NULL,
       final_url VARCHAR NOT NULL,
       image_urls VARCHAR[] NOT NULL,
       specific_fields VARCHAR
     )`,
  ],
};
