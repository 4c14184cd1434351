import { DataVersions, type WriteScope } from '../data-versions.js';

/** Reads the shared counters of `data_versions`: every organization-0 row is the all-organizations counter. */
export type ReadSharedVersions = (organizationId: number) => Promise<{ global: number; organization: number }>;

/**
 * Data versions of a PostgreSQL deployment (issue 38): every replica's write bumps the
 * organization's row of `data_versions` in its own transaction, and a request reads the row
 * (`follow`) before it computes an ETag or looks in a cache, so a report on any replica after an
 * acknowledged write on another never answers 304 or a cached page of the data before it. The
 * version text is the same on every replica (no per-process epoch): ETags hold across replicas.
 */
export class SharedDataVersions extends DataVersions {
  private readonly known = new Map<number, string>();
  /** Bumped by this replica's writes: until the next follow, `of` answers a version no request saw. */
  private local = 0;

  constructor(private readonly read: ReadSharedVersions) {
    super();
  }

  override of(organizationId: number): string {
    return this.known.get(organizationId) ?? `pg.unread.${this.epoch}.${this.local}`;
  }

  override async follow(organizationId: number): Promise<void> {
    const { global, organization } = await this.read(organizationId);
    this.known.set(organizationId, `pg.${global}.${organization}`);
  }

  override advance(scope: WriteScope): void {
    if (scope === 'no-report-data') return;
    this.local++;
    if (scope === 'all-organizations') this.known.clear();
    else this.known.delete(scope.organizationId);
    super.advance(scope);
  }
}
