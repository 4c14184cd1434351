import type { Executor } from '../store/database.js';

/** What kind of report data a change touched (the feed's `kind`). */
export const CHANGE_KINDS = [
  'STATISTICS_REPLACED',
  'ENTITIES_CHANGED',
  'LINK_CHANGED',
  'FX_OR_MARKUP_CHANGED',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * One change of report data. Null means "every": a null organization is a change every
 * organization's reports see (FX rates), a null platform account or account every one of the
 * organization's, null days every day.
 */
export interface NewChange {
  readonly organizationId: number | null;
  readonly kind: ChangeKind;
  readonly platformAccountId?: number | null | undefined;
  readonly accountId?: number | null | undefined;
  /** Inclusive YYYY-MM-DD days; null first day: from the beginning, null last day: open end. */
  readonly firstDay?: string | null | undefined;
  readonly lastDay?: string | null | undefined;
}

/**
 * Records a change in the caller's transaction (`tx`: the write that made it), so the feed lists
 * it exactly when the change is visible to reports, and a rolled-back write leaves no row.
 */
export async function recordChange(tx: Executor, change: NewChange): Promise<void> {
  await tx.run(
    `INSERT INTO changes (organization_id, kind, adplatform_account_id, account_id, first_day, last_day)
     VALUES ($1, $2, $3, $4, $5::DATE, $6::DATE)`,
    [
      change.organizationId,
      change.kind,
      change.platformAccountId ?? null,
      change.accountId ?? null,
      change.firstDay ?? null,
      change.lastDay ?? null,
    ],
  );
}

/**
 * Deletes changes recorded before `cutoff` and remembers, per organization (0: the shared rows),
 * the last id deleted, so a cursor that had not reached it is refused instead of skipping rows.
 */
export async function purgeChangesBefore(tx: Executor, cutoff: Date): Promise<number> {
  const params = [cutoff.toISOString()];
  await tx.run(
    `INSERT INTO change_purges (organization_id, purged_through)
     SELECT coalesce(organization_id, 0), max(id) FROM changes WHERE changed_at < $1::TIMESTAMPTZ GROUP BY 1
     ON CONFLICT (organization_id) DO UPDATE SET purged_through = greatest(change_purges.purged_through, excluded.purged_through)`,
    params,
  );
  const rows = await tx.all('DELETE FROM changes WHERE changed_at < $1::TIMESTAMPTZ RETURNING id', params);
  return rows.length;
}
