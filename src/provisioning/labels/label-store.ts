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

/**
 * Makes the client labels `next`, writing only what differs from `current` (what `clientLabels`
 * read in the same transaction): removed names are deleted, changed values updated, new names
 * inserted. False when they are equal and nothing was written. System labels stay as they are.
 */
export async function writeClientLabels(
  tx: Executor,
  kind: LabelOwner,
  id: number,
  current: Labels,
  next: Labels,
): Promise<boolean> {
  const t = TABLES[kind];
  const had = new Map(Object.entries(current));
  const removed = [...had.keys()].filter((name) => !Object.hasOwn(next, name));
  const changed = Object.entries(next).filter(([name, value]) => had.has(name) && had.get(name) !== value);
  const added = Object.entries(next).filter(([name]) => !had.has(name));
  if (removed.length > 0)
    await tx.run(`DELETE FROM ${t.labels} WHERE ${t.key} = $1 AND name IN (SELECT unnest($2::VARCHAR[]))`, [
      id,
      removed,
    ]);
  if (changed.length > 0)
    await tx.run(
      `UPDATE ${t.labels} l SET value = c.value
       FROM (SELECT unnest($2::VARCHAR[]) AS name, unnest($3::VARCHAR[]) AS value) c
       WHERE l.${t.key} = $1 AND l.name = c.name`,
      [id, changed.map(([name]) => name), changed.map(([, value]) => value)],
    );
  if (added.length > 0)
    await tx.run(
      `INSERT INTO ${t.labels} (${t.key}, name, value) SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[])`,
      [id, added.map(([name]) => name), added.map(([, value]) => value)],
    );
  return removed.length + changed.length + added.length > 0;
}
