import type { AdPlatformType } from '../../platforms/connector.js';
import type { Executor } from '../../store/database.js';

export interface MasterAccount {
  readonly id: number;
  readonly name: string;
  readonly adPlatformType: AdPlatformType;
  readonly adPlatformId: string;
  readonly kind: 'MANAGER' | 'RESELLER';
}

const COLUMNS = `id, name, ad_platform_type AS "adPlatformType", ad_platform_id AS "adPlatformId", kind`;

export async function insertMasterAccount(
  tx: Executor,
  organizationId: number,
  master: Omit<MasterAccount, 'id'>,
): Promise<MasterAccount> {
  const row = await tx.one<MasterAccount & Record<string, unknown>>(
    `INSERT INTO adplatform_master_accounts (organization_id, ad_platform_type, ad_platform_id, name, kind) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [organizationId, master.adPlatformType, master.adPlatformId, master.name, master.kind],
  );
  return row!;
}

export async function findMasterAccountByPlatformId(
  db: Executor,
  organizationId: number,
  type: AdPlatformType,
  adPlatformId: string,
): Promise<MasterAccount | undefined> {
  return db.one<MasterAccount & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM adplatform_master_accounts WHERE organization_id = $1 AND ad_platform_type = $2 AND ad_platform_id = $3`,
    [organizationId, type, adPlatformId],
  );
}

export async function getMasterAccount(
  db: Executor,
  organizationId: number,
  id: number,
): Promise<MasterAccount | undefined> {
  return db.one<MasterAccount & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM adplatform_master_accounts WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
}

export async function listMasterAccounts(
  db: Executor,
  organizationId: number,
  filter: { type?: AdPlatformType | undefined },
  page?: { limit: number; offset: number },
): Promise<{ total: number; masters: MasterAccount[] }> {
  const params: Array<string | number> = [organizationId];
  let where = 'organization_id = $1';
  if (filter.type) {
    params.push(filter.type);
    where += ` AND ad_platform_type = $${params.length}`;
  }
  const total = await db.one<{ n: number }>(
    `SELECT count(*) AS n FROM adplatform_master_accounts WHERE ${where}`,
    params,
  );
  const paging = page ? ` LIMIT $${params.length + 1} OFFSET $${params.length + 2}` : '';
  const masters = await db.all<MasterAccount & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM adplatform_master_accounts WHERE ${where} ORDER BY id${paging}`,
    page ? [...params, page.limit, page.offset] : params,
  );
  return { total: total?.n ?? 0, masters };
}
