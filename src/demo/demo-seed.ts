import { insertClient, newClientCredentials, type NewClient } from '../auth/clients.js';
import { SCOPES } from '../config/config.js';
import { countOrganizations, createOrganization, type Organization } from '../organizations/organizations.js';
import type { Database } from '../store/database.js';

export type DemoSeed = { created: true; organization: Organization; client: NewClient } | { created: false };

/** On an empty database only: one demo organization and one client holding every scope. */
export async function seedDemo(db: Database): Promise<DemoSeed> {
  if ((await db.read(countOrganizations)) > 0) return { created: false };
  const credentials = await newClientCredentials();
  return db.write(async (tx) => {
    if ((await countOrganizations(tx)) > 0) return { created: false };
    const organization = await createOrganization(tx, 'Demo organization');
    const client = await insertClient(tx, credentials, { organizationId: organization.id, scopes: SCOPES, name: 'demo' });
    return { created: true, organization, client };
  });
}
