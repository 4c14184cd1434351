import { liveLease } from '../store/work-leases.js';
import type { Executor } from '../store/database.js';
import type { EventType } from '../events/event-log.js';

/** SQL of webhooks and their deliveries; every query of a tenant's rows names its organization. */

const ISO = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
const WEBHOOK_COLUMNS = `id, url, events, description, ${ISO('created_at')} AS "createdAt"`;

export interface Webhook {
  readonly id: number;
  readonly url: string;
  readonly events: EventType[];
  readonly description: string | null;
  readonly createdAt: string;
}

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryAttempt {
  readonly at: string;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export interface Delivery {
  readonly id: number;
  readonly webhookId: number;
  /** The event's public id (PublicEventIds), never its row id. */
  readonly eventId: string;
  readonly eventType: EventType;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly createdAt: string;
  readonly nextAttemptAt: string | null;
  readonly lastAttemptAt: string | null;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly deliveredAt: string | null;
  readonly attemptLog: DeliveryAttempt[];
}

const DELIVERY_COLUMNS = `d.id, d.webhook_id AS "webhookId", d.event_id AS "eventRowId", e.type AS "eventType", d.status,
  d.attempts, ${ISO('d.created_at')} AS "createdAt", ${ISO('d.next_attempt_at')} AS "nextAttemptAt",
  ${ISO('d.last_attempt_at')} AS "lastAttemptAt", d.last_status_code AS "lastStatusCode", d.last_error AS "lastError",
  ${ISO('d.delivered_at')} AS "deliveredAt", d.attempt_log AS "attemptLog"`;

/** A delivery as stored: the event's row id, which the service turns into its public id. */
export type StoredDelivery = Omit<Delivery, 'eventId'> & { readonly eventRowId: number };
type DeliveryRow = Omit<StoredDelivery, 'attemptLog' | 'eventRowId'> & {
  attemptLog: string;
  eventRowId: number | bigint;
};
const fromDeliveryRow = ({ attemptLog, eventRowId, ...row }: DeliveryRow): StoredDelivery => ({
  ...row,
  eventRowId: Number(eventRowId),
  attemptLog: JSON.parse(attemptLog) as DeliveryAttempt[],
});

export async function nextWebhookId(tx: Executor): Promise<number> {
  return Number((await tx.one<{ id: number | bigint }>(`SELECT nextval('webhook_id_seq') AS id`))!.id);
}

export async function insertWebhook(
  tx: Executor,
  row: {
    id: number;
    organizationId: number;
    url: string;
    events: readonly EventType[];
    description: string | null;
    secretSealed: string;
    now: Date;
  },
): Promise<Webhook> {
  return (await tx.one<Webhook>(
    `INSERT INTO webhooks (id, organization_id, url, events, description, secret_sealed, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::TIMESTAMPTZ) RETURNING ${WEBHOOK_COLUMNS}`,
    [row.id, row.organizationId, row.url, [...row.events], row.description, row.secretSealed, row.now.toISOString()],
  ))!;
}

export async function countWebhooks(db: Executor, organizationId: number): Promise<number> {
  return (await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM webhooks WHERE organization_id = $1`, [
    organizationId,
  ]))!.n;
}

export async function getWebhook(db: Executor, organizationId: number, id: number): Promise<Webhook | undefined> {
  return db.one<Webhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ]);
}

export async function listWebhooks(
  db: Executor,
  organizationId: number,
  page: { limit: number; offset: number },
): Promise<{ total: number; webhooks: Webhook[] }> {
  const total = await countWebhooks(db, organizationId);
  const webhooks = await db.all<Webhook>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE organization_id = $1 ORDER BY id LIMIT $2 OFFSET $3`,
    [organizationId, page.limit, page.offset],
  );
  return { total, webhooks };
}

/** Removes the webhook and its delivery log; pending deliveries are never sent. False when there was none. */
export async function deleteWebhook(tx: Executor, organizationId: number, id: number): Promise<boolean> {
  const gone = await tx.all(`DELETE FROM webhooks WHERE organization_id = $1 AND id = $2 RETURNING id`, [
    organizationId,
    id,
  ]);
  if (gone.length === 0) return false;
  await tx.run(`DELETE FROM webhook_deliveries WHERE organization_id = $1 AND webhook_id = $2`, [organizationId, id]);
  return true;
}

export async function listDeliveries(
  db: Executor,
  organizationId: number,
  webhookId: number,
  filter: { status?: DeliveryStatus | undefined },
  page: { limit: number; offset: number },
): Promise<{ total: number; deliveries: StoredDelivery[] }> {
  const status = filter.status === undefined ? '' : 'AND d.status = $3';
  const params = filter.status === undefined ? [organizationId, webhookId] : [organizationId, webhookId, filter.status];
  const n = params.length;
  const total = await db.one<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM webhook_deliveries d WHERE d.organization_id = $1 AND d.webhook_id = $2 ${status}`,
    params,
  );
  const rows = await db.all<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.organization_id = $1 AND d.webhook_id = $2 ${status} ORDER BY d.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, page.limit, page.offset],
  );
  return { total: total!.n, deliveries: rows.map(fromDeliveryRow) };
}

export async function getDelivery(
  db: Executor,
  organizationId: number,
  webhookId: number,
  id: number,
): Promise<StoredDelivery | undefined> {
  const row = await db.one<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.organization_id = $1 AND d.webhook_id = $2 AND d.id = $3`,
    [organizationId, webhookId, id],
  );
  return row ? fromDeliveryRow(row) : undefined;
}

/** A redelivery: the same event again as a new delivery row with a fresh retry window (the old row stays in the log). */
export async function insertRedelivery(
  tx: Executor,
  organizationId: number,
  webhookId: number,
  deliveryId: number,
  now: Date,
  retryUntil: Date,
): Promise<number | undefined> {
  const row = await tx.one<{ id: number | bigint }>(
    `INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, status, created_at, next_attempt_at, retry_until)
     SELECT organization_id, webhook_id, event_id, 'PENDING', $4::TIMESTAMPTZ, $4::TIMESTAMPTZ, $5::TIMESTAMPTZ
       FROM webhook_deliveries WHERE organization_id = $1 AND webhook_id = $2 AND id = $3
     RETURNING id`,
    [organizationId, webhookId, deliveryId, now.toISOString(), retryUntil.toISOString()],
  );
  return row ? Number(row.id) : undefined;
}

/** What the worker needs to send one delivery. */
export interface DueDelivery {
  readonly id: number;
  readonly organizationId: number;
  readonly webhookId: number;
  readonly attempts: number;
  readonly retryUntil: string;
  readonly url: string;
  readonly secretSealed: string;
  readonly eventId: number;
  readonly eventType: string;
  readonly eventData: string;
  readonly occurredAt: string;
  readonly attemptLog: string;
}

/** Due PENDING deliveries, oldest due first, except those `busy` (in flight in this process). */
export async function dueDeliveries(
  db: Executor,
  now: Date,
  busy: readonly number[],
  limit: number,
  /** Deliveries another live replica claimed are its to send; this one's own come back for their retries. */
  replicaId: string,
): Promise<DueDelivery[]> {
  return db.all<DueDelivery>(
    `SELECT d.id, d.organization_id AS "organizationId", d.webhook_id AS "webhookId", d.attempts,
            ${ISO('d.retry_until')} AS "retryUntil", w.url, w.secret_sealed AS "secretSealed", e.id AS "eventId",
            e.type AS "eventType", e.data AS "eventData", ${ISO('e.occurred_at')} AS "occurredAt", d.attempt_log AS "attemptLog"
       FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id AND w.organization_id = d.organization_id
       JOIN events e ON e.id = d.event_id AND e.organization_id = d.organization_id
      WHERE d.status = 'PENDING' AND d.next_attempt_at <= $1::TIMESTAMPTZ
        AND NOT list_contains($2::VARCHAR[], d.id::VARCHAR)
        AND NOT ${liveLease('webhook_deliveries', 'd.id', '$4')}
      ORDER BY d.next_attempt_at, d.id LIMIT $3`,
    [now.toISOString(), busy.map(String), limit, replicaId],
  );
}

/** When the next PENDING delivery is due, so the worker can sleep until then. */
export async function nextDeliveryDueAt(db: Executor): Promise<Date | undefined> {
  const row = await db.one<{ dueAt: string | null }>(
    `SELECT ${ISO('min(next_attempt_at)')} AS "dueAt" FROM webhook_deliveries WHERE status = 'PENDING'`,
  );
  return row?.dueAt ? new Date(row.dueAt) : undefined;
}

export async function recordAttempt(
  tx: Executor,
  id: number,
  outcome: {
    status: DeliveryStatus;
    attempt: DeliveryAttempt;
    attemptLog: readonly DeliveryAttempt[];
    nextAttemptAt: Date | null;
  },
): Promise<void> {
  await tx.run(
    `UPDATE webhook_deliveries SET status = $2::VARCHAR, attempts = attempts + 1, last_attempt_at = $3::TIMESTAMPTZ,
            last_status_code = $4, last_error = $5, next_attempt_at = $6::TIMESTAMPTZ,
            delivered_at = CASE WHEN $2::VARCHAR = 'DELIVERED' THEN $3::TIMESTAMPTZ END, attempt_log = $7
      WHERE id = $1 AND status = 'PENDING'`,
    [
      id,
      outcome.status,
      outcome.attempt.at,
      outcome.attempt.statusCode,
      outcome.attempt.error,
      outcome.nextAttemptAt?.toISOString() ?? null,
      JSON.stringify(outcome.attemptLog),
    ],
  );
}

/** Deliveries that ended (delivered or given up) before `cutoff` leave the log. */
export async function purgeDeliveriesBefore(tx: Executor, cutoff: Date): Promise<number> {
  const rows = await tx.all(
    `DELETE FROM webhook_deliveries WHERE status <> 'PENDING' AND created_at < $1::TIMESTAMPTZ RETURNING id`,
    [cutoff.toISOString()],
  );
  // Events go with their last delivery: an event older than the cutoff that no delivery names
  // is read by nothing (the log lists deliveries), and would otherwise stay forever.
  await tx.run(
    `DELETE FROM events WHERE occurred_at < $1::TIMESTAMPTZ
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)`,
    [cutoff.toISOString()],
  );
  return rows.length;
}
