import type { AdPlatformType, CampaignTree } from '../../platforms/connector.js';
import type { Executor } from '../../store/database.js';
import type { SqlValue } from '../../store/sql-values.js';
import { labelsFromRows, type Labels } from '../labels.js';

/** The system label that holds a campaign's group (supplement 3). */
export const CAMPAIGN_GROUP_LABEL = 'sys.campaignGroup';

export interface ImportedCampaign {
  readonly id: number;
  readonly name: string;
  readonly adPlatformId: string;
  readonly adPlatformAccountId: number;
  readonly adPlatformType: AdPlatformType;
  readonly status: string;
  readonly campaignGroup: string | null;
  readonly labels: Labels;
  readonly importedAt: string;
}

export interface TreeCounts {
  readonly adGroups: number;
  readonly keywords: number;
  readonly ads: number;
}

const COLUMNS = `c.id, c.name, c.ad_platform_id AS "adPlatformId", c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformType",
  c.status, strftime(c.imported_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "importedAt"`;

type CampaignRow = Omit<ImportedCampaign, 'campaignGroup' | 'labels'>;

async function withLabels(db: Executor, rows: CampaignRow[]): Promise<ImportedCampaign[]> {
  if (rows.length === 0) return [];
  const labelRows = await db.all<{ campaignId: number; name: string; value: string }>(
    `SELECT campaign_id AS "campaignId", name, value FROM campaign_labels WHERE campaign_id IN (SELECT unnest($1::VARCHAR[])::BIGINT) ORDER BY name`,
    [rows.map((row) => String(row.id))],
  );
  return rows.map((row) => {
    const own = labelRows.filter((label) => label.campaignId === row.id);
    const group = own.find((label) => label.name === CAMPAIGN_GROUP_LABEL);
    const { importedAt, ...identity } = row;
    // Field order of supplement 3: ..., status, campaignGroup, labels, importedAt.
    return {
      ...identity,
      campaignGroup: group?.value ?? null,
      labels: labelsFromRows(own.filter((label) => !label.name.startsWith('sys.'))),
      importedAt,
    };
  });
}

export async function findCampaign(
  db: Executor,
  organizationId: number,
  platformAccountId: number,
  adPlatformId: string,
): Promise<ImportedCampaign | undefined> {
  const rows = await db.all<CampaignRow>(
    `SELECT ${COLUMNS} FROM campaigns c WHERE c.organization_id = $1 AND c.adplatform_account_id = $2 AND c.ad_platform_id = $3`,
    [organizationId, platformAccountId, adPlatformId],
  );
  return (await withLabels(db, rows))[0];
}

export async function getCampaign(
  db: Executor,
  organizationId: number,
  id: number,
): Promise<ImportedCampaign | undefined> {
  const rows = await db.all<CampaignRow>(
    `SELECT ${COLUMNS} FROM campaigns c WHERE c.organization_id = $1 AND c.id = $2`,
    [organizationId, id],
  );
  return (await withLabels(db, rows))[0];
}

export async function importedPlatformIds(
  db: Executor,
  organizationId: number,
  platformAccountId: number,
): Promise<Set<string>> {
  const rows = await db.all<{ adPlatformId: string }>(
    'SELECT ad_platform_id AS "adPlatformId" FROM campaigns WHERE organization_id = $1 AND adplatform_account_id = $2',
    [organizationId, platformAccountId],
  );
  return new Set(rows.map((row) => row.adPlatformId));
}

export async function listImportedCampaigns(
  db: Executor,
  organizationId: number,
  filter: { accountId?: number | undefined; adPlatformAccountId?: number | undefined },
  page: { limit: number; offset: number },
): Promise<{ total: number; campaigns: ImportedCampaign[] }> {
  const params: SqlValue[] = [organizationId];
  let where = 'c.organization_id = $1';
  if (filter.adPlatformAccountId !== undefined) {
    params.push(filter.adPlatformAccountId);
    where += ` AND c.adplatform_account_id = $${params.length}`;
  }
  if (filter.accountId !== undefined) {
    params.push(filter.accountId);
    where += ` AND c.adplatform_account_id IN (SELECT adplatform_account_id FROM account_adplatform_links WHERE account_id = $${params.length})`;
  }
  const total = await db.one<{ n: number }>(`SELECT count(*) AS n FROM campaigns c WHERE ${where}`, params);
  const rows = await db.all<CampaignRow>(
    `SELECT ${COLUMNS} FROM campaigns c WHERE ${where} ORDER BY c.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { total: total?.n ?? 0, campaigns: await withLabels(db, rows) };
}

/** Stores a whole campaign tree in the caller's transaction; returns the new campaign id. */
export async function insertCampaignTree(
  tx: Executor,
  organizationId: number,
  platformAccount: { id: number; type: AdPlatformType },
  tree: CampaignTree,
  campaignGroup: string,
): Promise<{ campaignId: number; counts: TreeCounts }> {
  const campaign = await tx.one<{ id: number }>(
    `INSERT INTO campaigns (organization_id, adplatform_account_id, ad_platform_type, ad_platform_id, name, status) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      organizationId,
      platformAccount.id,
      platformAccount.type,
      tree.campaign.adPlatformId,
      tree.campaign.name,
      tree.campaign.status,
    ],
  );
  const campaignId = campaign!.id;
  await tx.run('INSERT INTO campaign_labels (campaign_id, name, value) VALUES ($1, $2, $3)', [
    campaignId,
    CAMPAIGN_GROUP_LABEL,
    campaignGroup,
  ]);
  let keywords = 0;
  let ads = 0;
  for (const group of tree.adGroups) {
    const adGroup = await tx.one<{ id: number }>(
      'INSERT INTO ad_groups (organization_id, campaign_id, ad_platform_id, name, status) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [organizationId, campaignId, group.adPlatformId, group.name, group.status],
    );
    if (group.keywords.length > 0) {
      // Parallel unnests zip row by row: one statement for all keywords of the ad group.
      await tx.run(
        `INSERT INTO keywords (organization_id, ad_group_id, ad_platform_id, text, match_type, status)
         SELECT $1, $2, unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), unnest($5::VARCHAR[]), unnest($6::VARCHAR[])`,
        [
          organizationId,
          adGroup!.id,
          group.keywords.map((k) => k.adPlatformId),
          group.keywords.map((k) => k.text),
          group.keywords.map((k) => k.matchType),
          group.keywords.map((k) => k.status),
        ],
      );
      keywords += group.keywords.length;
    }
    for (const ad of group.ads) {
      await tx.run(
        `INSERT INTO ads (organization_id, ad_group_id, ad_platform_id, name, status, ad_type, headline, description, final_url, image_urls, specific_fields)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          organizationId,
          adGroup!.id,
          ad.adPlatformId,
          ad.name,
          ad.status,
          ad.adType,
          ad.headline,
          ad.description,
          ad.finalUrl,
          ad.imageUrls ?? [],
          ad.specificFields ? JSON.stringify(ad.specificFields) : null,
        ],
      );
      ads++;
    }
  }
  return { campaignId, counts: { adGroups: tree.adGroups.length, keywords, ads } };
}
