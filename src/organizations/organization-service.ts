import type { Store } from '../store/store.js';
import { getOrganization, renameOrganization, type Organization } from './organizations.js';

/** The caller's organization as the HTTP routes see it: read and renamed through the store's paths. */
export class OrganizationService {
  constructor(private readonly db: Store) {}

  get(id: number): Promise<Organization | undefined> {
    return this.db.read((r) => getOrganization(r, id));
  }

  rename(id: number, name: string): Promise<Organization | undefined> {
    return this.db.write('no-report-data', (tx) => renameOrganization(tx, id, name));
  }
}
