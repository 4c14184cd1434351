import { randomBytes } from 'node:crypto';

/**
 * What one write may change, as the writer's caller declares it (`Database.write` requires it):
 * - `{ organizationId }`: data that organization's reports read (facts, rollups, accounts and
 *   their custom fields, labels, links, platform accounts, campaign trees, markups);
 * - `'all-organizations'`: data every organization's reports read (FX rates, reference data,
 *   migrations), or rows of several organizations at once (the generator's chunks);
 * - `'no-report-data'`: tables no report reads (clients, token keys, jobs, idempotency records,
 *   sync bookkeeping, the sandbox platforms' own tables).
 */
export type WriteScope = { readonly organizationId: number } | 'all-organizations' | 'no-report-data';

/**
 * The version of the data an organization's reports read: a random epoch per process, a counter
 * of writes to data every organization reads, and one counter per organization. Exact, not a
 * guess, because one process owns the database file (DESIGN D1) and every write goes through
 * `Database.write`, which advances these once it has tried to COMMIT (work that threw before is
 * rolled back whole and changes nothing). The epoch makes every version of an earlier process (a
 * restart) differ from every one of this.
 */
export class DataVersions {
  readonly epoch = randomBytes(9).toString('base64url');
  private global = 0;
  private readonly byOrganization = new Map<number, number>();
  private readonly listeners: Array<(scope: Exclude<WriteScope, 'no-report-data'>) => void> = [];

  /** Called after each write that changed report data (the ClickHouse replicator follows them). */
  onAdvance(listener: (scope: Exclude<WriteScope, 'no-report-data'>) => void): void {
    this.listeners.push(listener);
  }

  /** The current version of what `organizationId`'s reports read; opaque, compare with `===`. */
  of(organizationId: number): string {
    return `${this.epoch}.${this.global}.${this.byOrganization.get(organizationId) ?? 0}`;
  }

  /**
   * Brings `of(organizationId)` up to date with writes made elsewhere before a request reads it.
   * Nothing to do here: one process makes every write. Replicas sharing a PostgreSQL store read
   * the shared versions (SharedDataVersions).
   */
  follow(_organizationId: number): Promise<void> {
    return Promise.resolve();
  }

  advance(scope: WriteScope): void {
    if (scope === 'no-report-data') return;
    if (scope === 'all-organizations') this.global++;
    else this.byOrganization.set(scope.organizationId, (this.byOrganization.get(scope.organizationId) ?? 0) + 1);
    for (const listener of this.listeners) listener(scope);
  }
}
