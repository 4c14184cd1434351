import type { AdPlatformType, CampaignTree } from '../connector.js';
import type { Executor } from '../../store/database.js';
import type { CreatedAccountRecord } from './accounts.js';
import { localDay } from './dates.js';

/**
 * What the sandbox platforms keep on "their side": the accounts createAccount made and the
 * changes pushed to campaigns (migration 003), the campaigns createCampaign made (migration
 * 005). Everything else the sandbox derives from seeds.
 */
export type ChangeField = 'status' | 'name';

export interface StoredChange {
  readonly entity: string;
  readonly adPlatformId: string;
  readonly field: ChangeField;
  readonly value: string;
}

interface Scope {
  readonly organizationId: number;
  readonly platform: AdPlatformType;
}

const SELECT_CREATED = `SELECT master_id, ad_platform_id, name, currency, time_zone, request_token, epoch_ms(created_at) AS created_ms
  FROM sandbox_created_accounts WHERE organization_id = $1 AND platform = $2`;

function fromRow(row: Record<string, unknown>): CreatedAccountRecord {
  const timeZone = row.time_zone as string;
  return {
    masterId: row.master_id as string,
    adPlatformId: row.ad_platform_id as string,
    name: row.name as string,
    currency: row.currency as string,
    timeZone,
    requestToken: row.request_token as string,
    createdOn: localDay(new Date(Number(row.created_ms)), timeZone),
  };
}

export async function findCreatedAccount(
  db: Executor,
  scope: Scope,
  adPlatformId: string,
): Promise<CreatedAccountRecord | undefined> {
  const row = await db.one(`${SELECT_CREATED} AND ad_platform_id = $3`, [
    scope.organizationId,
    scope.platform,
    adPlatformId,
  ]);
  return row && fromRow(row);
}

export async function findCreatedAccountByToken(
  db: Executor,
  scope: Scope,
  requestToken: string,
): Promise<CreatedAccountRecord | undefined> {
  const row = await db.one(`${SELECT_CREATED} AND request_token = $3`, [
    scope.organizationId,
    scope.platform,
    requestToken,
  ]);
  return row && fromRow(row);
}

export async function createdAccountsUnderMaster(
  db: Executor,
  scope: Scope,
  masterId: string,
): Promise<CreatedAccountRecord[]> {
  const rows = await db.all(`${SELECT_CREATED} AND master_id = $3 ORDER BY created_at, ad_platform_id`, [
    scope.organizationId,
    scope.platform,
    masterId,
  ]);
  return rows.map(fromRow);
}

export async function insertCreatedAccount(
  tx: Executor,
  scope: Scope,
  record: Omit<CreatedAccountRecord, 'createdOn'>,
  createdAt: Date,
): Promise<void> {
  await tx.run(
    `INSERT INTO sandbox_created_accounts (organization_id, platform, master_id, ad_platform_id, name, currency, time_zone, request_token, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::TIMESTAMPTZ)`,
    [
      scope.organizationId,
      scope.platform,
      record.masterId,
      record.adPlatformId,
      record.name,
      record.currency,
      record.timeZone,
      record.requestToken,
      createdAt,
    ],
  );
}

export async function insertChange(
  tx: Executor,
  scope: Scope,
  accountId: string,
  change: StoredChange,
  changedAt: Date,
): Promise<void> {
  await tx.run(
    `INSERT INTO sandbox_changes (organization_id, platform, account_id, entity, ad_platform_id, field, value, changed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::TIMESTAMPTZ)`,
    [
      scope.organizationId,
      scope.platform,
      accountId,
      change.entity,
      change.adPlatformId,
      change.field,
      change.value,
      changedAt,
    ],
  );
}

/** In the order they were pushed (rowid: the table is append-only), so the last change wins. */
export async function changesOf(db: Executor, scope: Scope, accountId: string): Promise<StoredChange[]> {
  const rows = await db.all(
    'SELECT entity, ad_platform_id, field, value FROM sandbox_changes WHERE organization_id = $1 AND platform = $2 AND account_id = $3 ORDER BY rowid',
    [scope.organizationId, scope.platform, accountId],
  );
  return rows.map((row) => ({
    entity: row.entity as string,
    adPlatformId: row.ad_platform_id as string,
    field: row.field as ChangeField,
    value: row.value as string,
  }));
}

/** A campaign createCampaign made (migration 005): its tree as the platform holds it now. */
export interface CreatedCampaignRecord {
  readonly accountId: string;
  readonly requestToken: string;
  readonly campaignId: string;
  readonly tree: CampaignTree;
}

const SELECT_CREATED_CAMPAIGN = `SELECT account_id, request_token, campaign_id, tree_json
  FROM sandbox_created_campaigns WHERE organization_id = $1 AND platform = $2`;

function campaignFromRow(row: Record<string, unknown>): CreatedCampaignRecord {
  return {
    accountId: row.account_id as string,
    requestToken: row.request_token as string,
    campaignId: row.campaign_id as string,
    tree: JSON.parse(row.tree_json as string) as CampaignTree,
  };
}

/** By id alone: ids are unique per organization and platform, whichever account holds them. */
export async function findCreatedCampaign(
  db: Executor,
  scope: Scope,
  campaignId: string,
): Promise<CreatedCampaignRecord | undefined> {
  const row = await db.one(`${SELECT_CREATED_CAMPAIGN} AND campaign_id = $3`, [
    scope.organizationId,
    scope.platform,
    campaignId,
  ]);
  return row && campaignFromRow(row);
}

export async function findCreatedCampaignByToken(
  db: Executor,
  scope: Scope,
  accountId: string,
  requestToken: string,
): Promise<CreatedCampaignRecord | undefined> {
  const row = await db.one(`${SELECT_CREATED_CAMPAIGN} AND account_id = $3 AND request_token = $4`, [
    scope.organizationId,
    scope.platform,
    accountId,
    requestToken,
  ]);
  return row && campaignFromRow(row);
}

export async function createdCampaignsOf(
  db: Executor,
  scope: Scope,
  accountId: string,
): Promise<CreatedCampaignRecord[]> {
  const rows = await db.all(`${SELECT_CREATED_CAMPAIGN} AND account_id = $3 ORDER BY created_at, campaign_id`, [
    scope.organizationId,
    scope.platform,
    accountId,
  ]);
  return rows.map(campaignFromRow);
}

export async function insertCreatedCampaign(
  tx: Executor,
  scope: Scope,
  record: Omit<CreatedCampaignRecord, 'campaignId'>,
  createdAt: Date,
): Promise<void> {
  await tx.run(
    `INSERT INTO sandbox_created_campaigns (organization_id, platform, account_id, request_token, campaign_id, created_on, tree_json, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::TIMESTAMPTZ, $8::TIMESTAMPTZ)`,
    [
      scope.organizationId,
      scope.platform,
      record.accountId,
      record.requestToken,
      record.tree.campaign.adPlatformId,
      record.tree.campaign.createdOn,
      JSON.stringify(record.tree),
      createdAt,
    ],
  );
}

export async function replaceCreatedCampaignTree(
  tx: Executor,
  scope: Scope,
  tree: CampaignTree,
  updatedAt: Date,
): Promise<void> {
  await tx.run(
    `UPDATE sandbox_created_campaigns SET tree_json = $4, updated_at = $5::TIMESTAMPTZ
     WHERE organization_id = $1 AND platform = $2 AND campaign_id = $3`,
    [scope.organizationId, scope.platform, tree.campaign.adPlatformId, JSON.stringify(tree), updatedAt],
  );
}
