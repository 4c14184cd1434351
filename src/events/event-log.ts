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
 * lands with that write or not at all. Returns its row id (clients see PublicEventIds.of it).
 */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<number> {
  const row = await tx.one<{ id: number | bigint }>(
    `INSERT INTO events (organization_id, type, data, occurred_at) VALUES ($1, $2, $3, $4::TIMESTAMPTZ) RETURNING id`,
    [event.organizationId, event.type, JSON.stringify(event.data), event.occurredAt.toISOString()],
  );
  const id = Number(row!.id);
  await queueWebhookDeliveries(tx, event, id);
  return id;
}

/** How long a delivery is retried after its event (README: Webhooks, the retry schedule). */
export const WEBHOOK_RETRY_HOURS = 24;

/**
 * The outbox: one delivery per webhook of the organization subscribed to the event's type, in the
 * event's transaction, so an event that commits is delivered (at least once) and one rolled back
 * is never sent. The delivery worker (src/webhooks/) sends them after the commit.
 */
async function queueWebhookDeliveries(tx: Executor, event: NewEvent, eventId: number): Promise<void> {
  const at = event.occurredAt.toISOString();
  const until = new Date(event.occurredAt.getTime() + WEBHOOK_RETRY_HOURS * 3600_000).toISOString();
  await tx.run(
    `INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, status, created_at, next_attempt_at, retry_until)
     SELECT organization_id, id, $3, 'PENDING', $4::TIMESTAMPTZ, $4::TIMESTAMPTZ, $5::TIMESTAMPTZ
       FROM webhooks WHERE organization_id = $1 AND list_contains(events, $2) ORDER BY id`,
    [event.organizationId, event.type, eventId, at, until],
  );
}
