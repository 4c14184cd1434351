import type { JsonObject } from '../provisioning/job-queue.js';
import type { Executor } from '../store/database.js';

/** What an event says happened (webhook subscriptions name these). */
export const EVENT_TYPES = ['job.succeeded', 'job.failed', 'statistics.synced', 'link.no_access'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  readonly organizationId: number;
  readonly type: EventType;
  /** The event's own fields (the job, the platform account and days, the link). */
  readonly data: JsonObject;
  readonly occurredAt: Date;
}

/**
 * Records an event in the caller's transaction (`tx`: the write whose outcome it reports), so it
 * lands with that write or not at all. Returns its id (`evt_<n>`).
 */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<string> {
  const row = await tx.one<{ id: number | bigint }>(
    `INSERT INTO events (organization_id, type, data, occurred_at) VALUES ($1, $2, $3, $4::TIMESTAMPTZ) RETURNING id`,
    [event.organizationId, event.type, JSON.stringify(event.data), event.occurredAt.toISOString()],
  );
  return `evt_${Number(row!.id)}`;
}
