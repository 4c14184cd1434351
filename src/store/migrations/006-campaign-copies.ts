import type { Migration } from './migration.js';

export const m006CampaignCopies: Migration = {
  version: 6,
  name: 'campaign copies between the search platforms',
  statements: [
    // One row per copy: the imported source campaign and the imported campaign it became at the target.
    `CREATE TABLE campaign_copies (
       organization_id BIGINT NOT NULL,
       source_campaign_id BIGINT NOT NULL,
       target_campaign_id BIGINT NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       synced_at TIMESTAMPTZ,
       PRIMARY KEY (source_campaign_id, target_campaign_id)
     )`,
  ],
};
