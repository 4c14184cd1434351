import type { Migration } from './migration.js';

export const m005SandboxCampaigns: Migration = {
  version: 5,
  name: 'campaigns created at the sandbox platforms',
  statements: [
    // The sandbox platforms' own state (see src/platforms/sandbox/README.md): the whole tree of
    // a campaign made by createCampaign, as the platform returns it, ids included.
    `CREATE TABLE sandbox_created_campaigns (
       organization_id BIGINT NOT NULL,
       platform VARCHAR NOT NULL,
       account_id VARCHAR NOT NULL,
       request_token VARCHAR NOT NULL,
       campaign_id VARCHAR NOT NULL,
       created_on VARCHAR NOT NULL,
       tree_json VARCHAR NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       PRIMARY KEY (organization_id, platform, campaign_id),
       UNIQUE (organization_id, platform, account_id, request_token)
     )`,
  ],
};
