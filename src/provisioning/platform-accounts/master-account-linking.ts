import type { AdPlatformType, PlatformDirectory } from '../../platforms/connector.js';
import { PlatformError } from '../../platforms/connector.js';
import { MASTER_KIND } from '../../platforms/platform-types.js';
import { getOrganization } from '../../organizations/organizations.js';
import type { Store } from '../../store/store.js';
import { findMasterAccountByPlatformId, insertMasterAccount, type MasterAccount } from './master-account-store.js';

/** An operator's request that cannot be done; the CLI prints the message as its one line. */
export class MasterAccountLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MasterAccountLinkError';
  }
}

/**
 * Links a manager (GOOGLE_ADS) or reseller (MICROSOFT_ADVERTISING) account to an organization:
 * operators only (supplement 3), after the platform confirms the id.
 */
export async function linkMasterAccount(
  db: Store,
  platforms: PlatformDirectory,
  request: { organizationId: number; platform: AdPlatformType; adPlatformId: string; name?: string | undefined },
): Promise<MasterAccount> {
  const kind = MASTER_KIND[request.platform];
  if (!kind)
    throw new MasterAccountLinkError(
      `${request.platform} has no master accounts; link its ad accounts to accounts directly`,
    );
  if (!(await db.read((r) => getOrganization(r, request.organizationId))))
    throw new MasterAccountLinkError(`organization ${request.organizationId} does not exist`);
  let platformName: string;
  try {
    platformName = (
      await platforms.connector(request.organizationId, request.platform).getMasterAccount(request.adPlatformId)
    ).name;
  } catch (error) {
    if (error instanceof PlatformError)
      throw new MasterAccountLinkError(
        `${request.platform} refused master account ${request.adPlatformId}: ${error.message}`,
      );
    throw error;
  }
  return db.write('no-report-data', async (tx) => {
    const existing = await findMasterAccountByPlatformId(
      tx,
      request.organizationId,
      request.platform,
      request.adPlatformId,
    );
    if (existing)
      throw new MasterAccountLinkError(
        `${request.platform} ${request.adPlatformId} is already linked to organization ${request.organizationId} as master account ${existing.id}`,
      );
    return insertMasterAccount(tx, request.organizationId, {
      adPlatformType: request.platform,
      adPlatformId: request.adPlatformId,
      name: request.name ?? platformName,
      kind,
    });
  });
}
