import { insertClient, newClientCredentials, type NewClient } from '../auth/clients.js';
import { SCOPES } from '../config/config.js';
import { countOrganizations, createOrganization, type Organization } from '../organizations/organizations.js';
import type { PlatformDirectory } from '../platforms/connector.js';
import { linkMasterAccount } from '../provisioning/platform-accounts/master-account-linking.js';
import type { MasterAccount } from '../provisioning/platform-accounts/master-account-store.js';
import type { Store } from '../store/store.js';

export type DemoSeed =
  | { created: true; organization: Organization; client: NewClient; masterAccounts: MasterAccount[] }
  | { created: false };

/** Sandbox master ids of the demo organization: any well-formed id works in the sandbox. */
export const DEMO_MASTERS = [
  { platform: 'GOOGLE_ADS', adPlatformId: '512-384-9061' },
  { platform: 'MICROSOFT_ADVERTISING', adPlatformId: '24681357' },
] as const;

/**
 * On an empty database only: one demo organization, one client holding every scope, and one
 * master account of each search platform.
 */
export async function seedDemo(db: Store, platforms: PlatformDirectory): Promise<DemoSeed> {
  if ((await db.read(countOrganizations)) > 0) return { created: false };
  const credentials = await newClientCredentials();
  const seeded = await db.write('no-report-data', async (tx) => {
    if ((await countOrganizations(tx)) > 0) return undefined;
    const organization = await createOrganization(tx, 'Demo organization');
    const client = await insertClient(tx, credentials, {
      organizationId: organization.id,
      scopes: SCOPES,
      name: 'demo',
    });
    return { organization, client };
  });
  if (!seeded) return { created: false };
  const masterAccounts: MasterAccount[] = [];
  for (const master of DEMO_MASTERS) {
    masterAccounts.push(
      await linkMasterAccount(db, platforms, {
        organizationId: seeded.organization.id,
        platform: master.platform,
        adPlatformId: master.adPlatformId,
      }),
    );
  }
  return { created: true, ...seeded, masterAccounts };
}
