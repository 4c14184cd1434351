import type { Executor } from '../../store/database.js';
import { labelsFromRows, type Labels } from '../labels.js';

/** The resources that carry labels; each keeps them in its own `<kind>_labels` table. */
export type LabelOwner = 'account' | 'campaign';

// Fixed table names, never from a request, so pasting them into SQL is safe.
const TABLES = {
  account: { owners: 'accounts', labels: 'account_labels', key: 'account_id' },
  campaign: { owners: 'campaigns', labels: 'campaign_labels', key: 'campaign_id' },
} as const satisfies Record<LabelOwner, { owners: string; labels: string; key: string }>;

/**
 * System labels (e.g. `sys.campaignGroup`, written by the campaign import) share the table with
 * client labels; every query here sees the client ones only, so this module can neither show nor
 * change them. A client name can never contain a dot, so the prefix separates them exactly.
 */
const CLIENT_ONLY = "NOT starts_with(name, 'sys.')";

export async function ownerExists(
  db: Executor,
  kind: LabelOwner,
  organizationId: number,
  id: number,
): Promise<boolean> {
  const t = TABLES[kind];
  return (
    (await db.one(`SELECT 1 AS found FROM ${t.owners} WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      id,
    ])) !== undefined
  );
}

/** Client labels sorted by name (names are ASCII, so DuckDB's binary order is the client's order). */
export async function clientLabels(db: Executor, kind: LabelOwner, id: number): Promise<Labels> {
  const t = TABLES[kind];
  const rows = await db.all<{ name: string; value: string }>(
    `SELECT name, value FROM ${t.labels} WHERE ${t.key} = $1 AND ${CLIENT_ONLY} ORDER BY name`,
    [id],
  );
  return labelsFromRows(rows);
}

/** Makes the client labels exactly `labels`; system labels stay as they are. */
export async function replaceClientLabels(
  tx: Executor,
  kind: LabelOwner,
  id: number,
  labels: ReadonlyMap<string, string>,
): Promise<void> {
  const t = TABLES[kind];
  await tx.run(`DELETE FROM ${t.labels} WHERE ${t.key} = $1 AND ${CLIENT_ONLY}`, [id]);
  if (labels.size === 0) return;
  await tx.run(
    `INSERT INTO ${t.labels} (${t.key}, name, value) SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[])`,
    [id, [...labels.keys()], [...labels.values()]],
  );
}
