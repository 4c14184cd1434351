import type { AdPlatformType, PlatformAccount } from '../../platforms/connector.js';
import type { Executor } from '../../store/database.js';
import type { SqlValue } from '../../store/sql-values.js';

export const LINK_STATUSES = ['READ_WRITE', 'READ_ONLY', 'NO_ACCESS'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** A platform account the organization knows (supplement 3, "Get one"). */
export interface KnownPlatformAccount {
  readonly id: number;
  readonly name: string;
  readonly adPlatformType: AdPlatformType;
  readonly adPlatformId: string;
  readonly currency: string;
  readonly timeZone: string;
  readonly masterAccountId: number | null;
  readonly linkedAccountIds: number[];
}

/** The linked form inside an account (spec 2.2). */
export interface LinkedPlatformAccount {
  readonly id: number;
  readonly name: string;
  readonly adPlatformType: AdPlatformType;
  readonly status: LinkStatus;
  readonly adPlatformId: string;
}

const KNOWN_COLUMNS = `p.id, p.name, p.ad_platform_type AS "adPlatformType", p.ad_platform_id AS "adPlatformId", p.currency,
  p.time_zone AS "timeZone", p.master_account_id AS "masterAccountId",
  coalesce((SELECT list(l.account_id ORDER BY l.account_id) FROM account_adplatform_links l WHERE l.adplatform_account_id = p.id), []) AS "linkedAccountIds"`;

/** Registers (or refreshes) what the platform says about one of its accounts; returns our id. */
export async function upsertPlatformAccount(
  tx: Executor,
  organizationId: number,
  type: AdPlatformType,
  account: PlatformAccount,
  masterAccountId: number | null,
): Promise<number> {
  const existing = await tx.one<{ id: number }>(
    'SELECT id FROM adplatform_accounts WHERE organization_id = $1 AND ad_platform_type = $2 AND ad_platform_id = $3',
    [organizationId, type, account.adPlatformId],
  );
  if (existing) {
    await tx.run(
      'UPDATE adplatform_accounts SET name = $2, currency = $3, time_zone = $4, master_account_id = coalesce($5, master_account_id) WHERE id = $1',
      [existing.id, account.name, account.currency, account.timeZone, masterAccountId],
    );
    return existing.id;
  }
  const row = await tx.one<{ id: number }>(
    `INSERT INTO adplatform_accounts (organization_id, ad_platform_type, ad_platform_id, name, currency, time_zone, master_account_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [organizationId, type, account.adPlatformId, account.name, account.currency, account.timeZone, masterAccountId],
  );
  return row!.id;
}

export async function getKnownPlatformAccount(
  db: Executor,
  organizationId: number,
  id: number,
): Promise<KnownPlatformAccount | undefined> {
  return db.one<KnownPlatformAccount & Record<string, unknown>>(
    `SELECT ${KNOWN_COLUMNS} FROM adplatform_accounts p WHERE p.organization_id = $1 AND p.id = $2`,
    [organizationId, id],
  );
}

export async function listKnownPlatformAccounts(
  db: Executor,
  organizationId: number,
  filter: { type?: AdPlatformType | undefined },
  page: { limit: number; offset: number },
): Promise<{ total: number; accounts: KnownPlatformAccount[] }> {
  const params: SqlValue[] = [organizationId];
  let where = 'p.organization_id = $1';
  if (filter.type) {
    params.push(filter.type);
    where += ` AND p.ad_platform_type = $${params.length}`;
  }
  const total = await db.one<{ n: number }>(`SELECT count(*) AS n FROM adplatform_accounts p WHERE ${where}`, params);
  const accounts = await db.all<KnownPlatformAccount & Record<string, unknown>>(
    `SELECT ${KNOWN_COLUMNS} FROM adplatform_accounts p WHERE ${where} ORDER BY p.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { total: total?.n ?? 0, accounts };
}

/** Platform ids (of one type) that are linked to at least one account of the organization. */
export async function linkedPlatformIds(
  db: Executor,
  organizationId: number,
  type: AdPlatformType,
): Promise<Set<string>> {
  const rows = await db.all<{ adPlatformId: string }>(
    `SELECT DISTINCT p.ad_platform_id AS "adPlatformId" FROM adplatform_accounts p JOIN account_adplatform_links l ON l.adplatform_account_id = p.id
      WHERE p.organization_id = $1 AND p.ad_platform_type = $2`,
    [organizationId, type],
  );
  return new Set(rows.map((row) => row.adPlatformId));
}

export async function insertLink(
  tx: Executor,
  accountId: number,
  platformAccountId: number,
  status: LinkStatus,
): Promise<boolean> {
  const existing = await tx.one(
    'SELECT 1 AS x FROM account_adplatform_links WHERE account_id = $1 AND adplatform_account_id = $2',
    [accountId, platformAccountId],
  );
  if (existing) return false;
  await tx.run('INSERT INTO account_adplatform_links (account_id, adplatform_account_id, status) VALUES ($1, $2, $3)', [
    accountId,
    platformAccountId,
    status,
  ]);
  return true;
}

/** The caller has checked that the account belongs to the organization. */
export async function setLinkStatus(
  tx: Executor,
  accountId: number,
  platformAccountId: number,
  status: LinkStatus,
): Promise<boolean> {
  const rows = await tx.all(
    'UPDATE account_adplatform_links SET status = $3 WHERE account_id = $1 AND adplatform_account_id = $2 RETURNING 1 AS x',
    [accountId, platformAccountId, status],
  );
  return rows.length > 0;
}

/** One link in the linked form of spec 2.2; the caller has checked that the account belongs to the organization. */
export function getLink(
  db: Executor,
  accountId: number,
  platformAccountId: number,
): Promise<LinkedPlatformAccount | undefined> {
  return db.one<LinkedPlatformAccount>(
    `SELECT p.id, p.name, p.ad_platform_type AS "adPlatformType", l.status, p.ad_platform_id AS "adPlatformId"
       FROM account_adplatform_links l JOIN adplatform_accounts p ON p.id = l.adplatform_account_id
      WHERE l.account_id = $1 AND l.adplatform_account_id = $2`,
    [accountId, platformAccountId],
  );
}

export async function deleteLink(tx: Executor, accountId: number, platformAccountId: number): Promise<boolean> {
  const rows = await tx.all(
    'DELETE FROM account_adplatform_links WHERE account_id = $1 AND adplatform_account_id = $2 RETURNING 1 AS x',
    [accountId, platformAccountId],
  );
  return rows.length > 0;
}

/** Links of a set of accounts in the linked form of spec 2.2, in link order. */
export async function linksOf(
  db: Executor,
  accountIds: readonly number[],
): Promise<Map<number, LinkedPlatformAccount[]>> {
  const out = new Map<number, LinkedPlatformAccount[]>();
  if (accountIds.length === 0) return out;
  const rows = await db.all<LinkedPlatformAccount & { accountId: number }>(
    `SELECT l.account_id AS "accountId", p.id, p.name, p.ad_platform_type AS "adPlatformType", l.status, p.ad_platform_id AS "adPlatformId"
       FROM account_adplatform_links l JOIN adplatform_accounts p ON p.id = l.adplatform_account_id
      WHERE l.account_id IN (SELECT unnest($1::VARCHAR[])::BIGINT)
      ORDER BY l.account_id, l.created_at, p.id`,
    [accountIds.map(String)],
  );
  for (const { accountId, ...link } of rows) {
    const list = out.get(accountId) ?? [];
    list.push(link);
    out.set(accountId, list);
  }
  return out;
}
