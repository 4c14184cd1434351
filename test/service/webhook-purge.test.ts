import { describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/event-log.js';
import { purgeDeliveriesBefore } from '../../src/webhooks/webhook-store.js';
import { useTempDatabase } from '../helpers/temp-database.js';

/** Retention of the event log and the delivery log: seven days, then both go; a pending delivery keeps its event. */
const handle = useTempDatabase('adreport-webhook-purge-');

const DAY = 86_400_000;

describe('purging the delivery log', () => {
  it('deletes ended deliveries and events older than the cutoff, keeps newer ones and the events of pending deliveries', async () => {
    const { db } = handle;
    const now = new Date('2026-11-25T12:00:00Z');
    const old = new Date(now.getTime() - 8 * DAY);
    const ids = await db.write('no-report-data', async (tx) => {
      const event = (at: Date) =>
        recordEvent(tx, { organizationId: 1, type: 'job.succeeded', data: { n: at.getTime() }, occurredAt: at });
      const oldDelivered = await event(old);
      const oldPending = await event(old);
      const oldUndelivered = await event(old);
      const recent = await event(now);
      const delivery = (eventId: number, status: string, at: Date) =>
        tx.run(
          `INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, status, created_at, retry_until)
           VALUES (1, 1, $1, $2, $3::TIMESTAMPTZ, $3::TIMESTAMPTZ)`,
          [eventId, status, at.toISOString()],
        );
      await delivery(oldDelivered, 'DELIVERED', old);
      await delivery(oldPending, 'PENDING', old);
      await delivery(recent, 'DELIVERED', now);
      return { oldDelivered, oldPending, oldUndelivered, recent };
    });
    const purged = await db.write('no-report-data', (tx) =>
      purgeDeliveriesBefore(tx, new Date(now.getTime() - 7 * DAY)),
    );
    expect(purged).toBe(1);
    const events = await db.read((r) => r.all<{ id: number }>('SELECT id FROM events ORDER BY id'));
    expect(events.map((e) => Number(e.id))).toEqual([ids.oldPending, ids.recent]);
    const deliveries = await db.read((r) =>
      r.all<{ event_id: number }>('SELECT event_id FROM webhook_deliveries ORDER BY id'),
    );
    expect(deliveries.map((d) => Number(d.event_id))).toEqual([ids.oldPending, ids.recent]);
  });
});
