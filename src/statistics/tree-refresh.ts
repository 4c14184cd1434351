import type { CampaignTree } from '../platforms/connector.js';
import { recordChange } from '../changes/change-log.js';
import type { Executor } from '../store/database.js';

/** Joins a list of image URLs into one staged string; URLs never contain the unit separator. */
const UNIT_SEPARATOR = '\u001f';

/**
 * Brings stored campaign trees up to date with the platform before statistics are mapped onto
 * them: names and statuses change, ad groups, keywords and ads added at the platform are
 * inserted (matched by platform id within their parent, so our ids never change). Entities the
 * platform no longer lists are kept with their history. Set-based over TEMP staging tables: one
 * statement per entity kind whatever the tree size.
 */
export async function refreshCampaignTrees(
  tx: Executor,
  organizationId: number,
  trees: ReadonlyArray<{ campaignId: number; tree: CampaignTree }>,
): Promise<void> {
  if (trees.length === 0) return;
  await stageTrees(tx, trees);
  let changed = 0;
  changed += await tx.rowsChanged(
    `UPDATE campaigns c SET name = s.name, status = s.status
       FROM stage_tree_campaigns s
      WHERE c.id = s.campaign_id AND c.organization_id = $1 AND (c.name <> s.name OR c.status <> s.status)`,
    [organizationId],
  );
  changed += await tx.rowsChanged(
    `UPDATE ad_groups g SET name = s.name, status = s.status
       FROM stage_tree_groups s
      WHERE g.campaign_id = s.campaign_id AND g.ad_platform_id = s.ad_platform_id AND (g.name <> s.name OR g.status <> s.status)`,
  );
  changed += await tx.rowsChanged(
    `INSERT INTO ad_groups (organization_id, campaign_id, ad_platform_id, name, status)
     SELECT $1, s.campaign_id, s.ad_platform_id, s.name, s.status FROM stage_tree_groups s
      WHERE NOT EXISTS (SELECT 1 FROM ad_groups g WHERE g.campaign_id = s.campaign_id AND g.ad_platform_id = s.ad_platform_id)
      ORDER BY s.position`,
    [organizationId],
  );
  const keywordsWithGroup = `SELECT g.id AS ad_group_id, s.* FROM stage_tree_keywords s
      JOIN ad_groups g ON g.campaign_id = s.campaign_id AND g.ad_platform_id = s.ad_group`;
  changed += await tx.rowsChanged(
    `UPDATE keywords k SET text = x.text, match_type = x.match_type, status = x.status
       FROM (${keywordsWithGroup}) x
      WHERE k.ad_group_id = x.ad_group_id AND k.ad_platform_id = x.ad_platform_id
        AND (k.text <> x.text OR k.match_type <> x.match_type OR k.status <> x.status)`,
  );
  changed += await tx.rowsChanged(
    `INSERT INTO keywords (organization_id, ad_group_id, ad_platform_id, text, match_type, status)
     SELECT $1, x.ad_group_id, x.ad_platform_id, x.text, x.match_type, x.status FROM (${keywordsWithGroup}) x
      WHERE NOT EXISTS (SELECT 1 FROM keywords k WHERE k.ad_group_id = x.ad_group_id AND k.ad_platform_id = x.ad_platform_id)
      ORDER BY x.position`,
    [organizationId],
  );
  const adsWithGroup = `SELECT g.id AS ad_group_id, s.*,
        CASE WHEN s.image_urls = '' THEN []::VARCHAR[] ELSE string_split(s.image_urls, chr(31)) END AS image_list
      FROM stage_tree_ads s JOIN ad_groups g ON g.campaign_id = s.campaign_id AND g.ad_platform_id = s.ad_group`;
  changed += await tx.rowsChanged(
    `UPDATE ads a SET name = x.name, status = x.status, ad_type = x.ad_type, headline = x.headline, description = x.description,
                      final_url = x.final_url, image_urls = x.image_list, specific_fields = x.specific_fields
       FROM (${adsWithGroup}) x
      WHERE a.ad_group_id = x.ad_group_id AND a.ad_platform_id = x.ad_platform_id
        AND (a.name <> x.name OR a.status <> x.status OR a.ad_type <> x.ad_type OR a.headline <> x.headline
             OR a.description <> x.description OR a.final_url <> x.final_url OR a.image_urls <> x.image_list
             OR a.specific_fields IS DISTINCT FROM x.specific_fields)`,
  );
  changed += await tx.rowsChanged(
    `INSERT INTO ads (organization_id, ad_group_id, ad_platform_id, name, status, ad_type, headline, description, final_url, image_urls, specific_fields)
     SELECT $1, x.ad_group_id, x.ad_platform_id, x.name, x.status, x.ad_type, x.headline, x.description, x.final_url, x.image_list, x.specific_fields
       FROM (${adsWithGroup}) x
      WHERE NOT EXISTS (SELECT 1 FROM ads a WHERE a.ad_group_id = x.ad_group_id AND a.ad_platform_id = x.ad_platform_id)
      ORDER BY x.position`,
    [organizationId],
  );
  for (const table of ['stage_tree_campaigns', 'stage_tree_groups', 'stage_tree_keywords', 'stage_tree_ads'])
    await tx.run(`DROP TABLE IF EXISTS temp.${table}`);
  // Names and statuses show on every day of a report: the feed says so only when one changed.
  if (changed > 0) await recordEntityChanges(tx, organizationId, trees);
}

async function recordEntityChanges(
  tx: Executor,
  organizationId: number,
  trees: ReadonlyArray<{ campaignId: number }>,
): Promise<void> {
  const platformAccounts = await tx.all<{ id: number }>(
    `SELECT DISTINCT adplatform_account_id AS id FROM campaigns
      WHERE organization_id = $1 AND id IN (SELECT unnest($2::VARCHAR[])::BIGINT) ORDER BY 1`,
    [organizationId, trees.map((t) => String(t.campaignId))],
  );
  for (const { id } of platformAccounts)
    await recordChange(tx, { organizationId, kind: 'ENTITIES_CHANGED', platformAccountId: id });
}

async function stageTrees(
  tx: Executor,
  trees: ReadonlyArray<{ campaignId: number; tree: CampaignTree }>,
): Promise<void> {
  await tx.run('CREATE OR REPLACE TEMP TABLE stage_tree_campaigns (campaign_id BIGINT, name VARCHAR, status VARCHAR)');
  await tx.append('stage_tree_campaigns', [
    { type: 'BIGINT', values: trees.map((t) => t.campaignId) },
    { type: 'VARCHAR', values: trees.map((t) => t.tree.campaign.name) },
    { type: 'VARCHAR', values: trees.map((t) => t.tree.campaign.status) },
  ]);

  const groups = trees.flatMap(({ campaignId, tree }) => tree.adGroups.map((group) => ({ campaignId, group })));
  await tx.run(
    'CREATE OR REPLACE TEMP TABLE stage_tree_groups (position INTEGER, campaign_id BIGINT, ad_platform_id VARCHAR, name VARCHAR, status VARCHAR)',
  );
  await tx.append('stage_tree_groups', [
    { type: 'INTEGER', values: groups.map((_, i) => i) },
    { type: 'BIGINT', values: groups.map((g) => g.campaignId) },
    { type: 'VARCHAR', values: groups.map((g) => g.group.adPlatformId) },
    { type: 'VARCHAR', values: groups.map((g) => g.group.name) },
    { type: 'VARCHAR', values: groups.map((g) => g.group.status) },
  ]);

  const keywords = groups.flatMap(({ campaignId, group }) =>
    group.keywords.map((keyword) => ({ campaignId, adGroup: group.adPlatformId, keyword })),
  );
  await tx.run(
    'CREATE OR REPLACE TEMP TABLE stage_tree_keywords (position INTEGER, campaign_id BIGINT, ad_group VARCHAR, ad_platform_id VARCHAR, text VARCHAR, match_type VARCHAR, status VARCHAR)',
  );
  await tx.append('stage_tree_keywords', [
    { type: 'INTEGER', values: keywords.map((_, i) => i) },
    { type: 'BIGINT', values: keywords.map((k) => k.campaignId) },
    { type: 'VARCHAR', values: keywords.map((k) => k.adGroup) },
    { type: 'VARCHAR', values: keywords.map((k) => k.keyword.adPlatformId) },
    { type: 'VARCHAR', values: keywords.map((k) => k.keyword.text) },
    { type: 'VARCHAR', values: keywords.map((k) => k.keyword.matchType) },
    { type: 'VARCHAR', values: keywords.map((k) => k.keyword.status) },
  ]);

  const ads = groups.flatMap(({ campaignId, group }) =>
    group.ads.map((ad) => ({ campaignId, adGroup: group.adPlatformId, ad })),
  );
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE stage_tree_ads (position INTEGER, campaign_id BIGINT, ad_group VARCHAR, ad_platform_id VARCHAR, name VARCHAR,
       status VARCHAR, ad_type VARCHAR, headline VARCHAR, description VARCHAR, final_url VARCHAR, image_urls VARCHAR, specific_fields VARCHAR)`,
  );
  await tx.append('stage_tree_ads', [
    { type: 'INTEGER', values: ads.map((_, i) => i) },
    { type: 'BIGINT', values: ads.map((a) => a.campaignId) },
    { type: 'VARCHAR', values: ads.map((a) => a.adGroup) },
    { type: 'VARCHAR', values: ads.map((a) => a.ad.adPlatformId) },
    { type: 'VARCHAR', values: ads.map((a) => a.ad.name) },
    { type: 'VARCHAR', values: ads.map((a) => a.ad.status) },
    { type: 'VARCHAR', values: ads.map((a) => a.ad.adType) },
    { type: 'VARCHAR', values: ads.map((a) => a.ad.headline) },
    { type: 'VARCHAR', values: ads.map((a) => a.ad.description) },
    { type: 'VARCHAR', values: ads.map((a) => a.ad.finalUrl) },
    { type: 'VARCHAR', values: ads.map((a) => (a.ad.imageUrls ?? []).join(UNIT_SEPARATOR)) },
    { type: 'VARCHAR', values: ads.map((a) => (a.ad.specificFields ? JSON.stringify(a.ad.specificFields) : null)) },
  ]);
}
