import { sweepLeases, type WorkLeases } from '../store/work-leases.js';
import type { PublicEventIds } from '../events/public-event-id.js';
import { WorkPump, type Taken } from '../runtime/work-pump.js';
import { OverloadedError } from '../shared/errors.js';
import type { Store } from '../store/store.js';
import { postJson, type PostResult } from './https-post.js';
import { nextAttemptAt, type RetrySchedule } from './retry-schedule.js';
import type { SecretBox } from './secret-box.js';
import type { Lookup } from './target-address.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import {
  dueDeliveries,
  nextDeliveryDueAt,
  purgeDeliveriesBefore,
  recordAttempt,
  type DeliveryAttempt,
  type DueDelivery,
} from './webhook-store.js';

/** Ended deliveries stay in the log this long. */
export const DELIVERY_LOG_DAYS = 7;
/** Attempts kept per delivery in its log (the 24-hour schedule makes about 32 with the defaults). */
const ATTEMPT_LOG_MAX = 50;
const PURGE_EVERY_MS = 3600_000;

export interface DeliveryWorkerOptions {
  readonly now: () => Date;
  /** Deliveries in flight at once. */
  readonly concurrency: number;
  /** One attempt (connect, TLS, request, the whole answer) must end within this. */
  readonly attemptTimeoutMs: number;
  readonly retry: RetrySchedule;
  /** How often to look for due deliveries when nothing woke the worker (new events are found this way). */
  readonly pollMs: number;
  readonly allowPrivate: boolean;
  /** Resolves targets inside each connection (target-address.ts systemLookup; a test gives its own resolver). */
  readonly lookup: Lookup;
  readonly extraCa: readonly string[];
  readonly userAgent: string;
  /** The `id` of the delivered JSON: the event's public id, never its row id. */
  readonly eventIds: PublicEventIds;
  readonly log: (entry: { deliveryId: number; error: unknown }) => void;
  /** This replica's claims: a due delivery is sent by the one replica that leased it. */
  readonly leases: WorkLeases;
}

/**
 * Sends the outbox (webhook_deliveries) off the request path: at most `concurrency` POSTs at once,
 * each bounded by attemptTimeoutMs, a failure retried with exponential backoff until the delivery's
 * retry window (24 h) ends. An attempt's outcome is written after it: a process killed meanwhile
 * leaves the delivery PENDING and due, so the next start sends it again (at least once; receivers
 * deduplicate by the event id).
 */
export class DeliveryWorker {
  private readonly pump: WorkPump<DueDelivery>;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Store,
    private readonly secrets: SecretBox,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.pump = new WorkPump(
      {
        take: (room, busy) => this.takeDue(room, busy),
        run: (delivery) => this.deliver(delivery),
        idOf: (delivery) => delivery.id,
      },
      {
        concurrency: options.concurrency,
        pollMs: options.pollMs,
        now: options.now,
        log: (error, deliveryId) => options.log({ deliveryId: deliveryId ?? 0, error }),
        // A full read pool is a busy moment, not a fault: look again after pollMs, quietly.
        isQuiet: (error) => error instanceof OverloadedError,
      },
    );
  }

  async start(): Promise<void> {
    await this.purge();
    this.purgeTimer = setInterval(() => {
      this.purge().catch((error: unknown) => this.options.log({ deliveryId: 0, error }));
    }, PURGE_EVERY_MS);
    this.purgeTimer.unref();
    this.pump.start();
  }

  /** Looks for due deliveries now. */
  wake(): void {
    this.pump.wake();
  }

  /** Stops taking deliveries; waits up to timeoutMs for those in flight. Unfinished ones are sent after the next start. */
  async stop(timeoutMs: number): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.pump.stop(timeoutMs);
  }

  async purge(): Promise<number> {
    const cutoff = new Date(this.options.now().getTime() - DELIVERY_LOG_DAYS * 24 * 3600_000);
    return this.db.write('no-report-data', async (tx) => {
      await sweepLeases(tx, 'webhook_deliveries', `SELECT id FROM webhook_deliveries WHERE status = 'PENDING'`);
      return purgeDeliveriesBefore(tx, cutoff);
    });
  }

  /** Due deliveries not in flight here (an attempt is recorded after it, so the row stays due meanwhile). */
  private async takeDue(room: number, busy: ReadonlySet<number>): Promise<Taken<DueDelivery>> {
    const { leases } = this.options;
    // Look before taking: an idle poll stays a read. Then claim what is still free, in one write.
    const seen = await this.db.read((r) => dueDeliveries(r, this.options.now(), [...busy], room, leases.replicaId));
    if (seen.length > 0) {
      const due = await this.db.write('no-report-data', async (tx) => {
        const free = await dueDeliveries(tx, this.options.now(), [...busy], room, leases.replicaId);
        for (const delivery of free) await leases.take(tx, 'webhook_deliveries', delivery.id);
        return free;
      });
      if (due.length > 0) return { items: due };
    }
    return { items: [], nextDueAt: await this.db.read(nextDeliveryDueAt) };
  }

  private async deliver(delivery: DueDelivery): Promise<void> {
    const started = this.options.now();
    const secret = this.secrets.open(delivery.secretSealed, delivery.webhookId);
    const result: PostResult = secret
      ? await this.send(delivery, secret, started)
      : {
          statusCode: undefined,
          error: 'the signing secret cannot be read: the webhook key of this service changed; create the webhook again',
          durationMs: 0,
        };
    const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
    const attempt: DeliveryAttempt = {
      at: started.toISOString(),
      statusCode: result.statusCode ?? null,
      error: ok ? null : (result.error ?? `the receiver answered ${result.statusCode}`),
      durationMs: result.durationMs,
    };
    const attempts = delivery.attempts + 1;
    const next = ok
      ? undefined
      : nextAttemptAt(this.options.retry, attempts, this.options.now(), new Date(delivery.retryUntil));
    const log = [...(JSON.parse(delivery.attemptLog) as DeliveryAttempt[]), attempt].slice(-ATTEMPT_LOG_MAX);
    await this.db.write('no-report-data', (tx) =>
      recordAttempt(tx, delivery.id, {
        status: ok ? 'DELIVERED' : next ? 'PENDING' : 'FAILED',
        attempt,
        attemptLog: log,
        nextAttemptAt: next ?? null,
      }),
    );
  }

  private send(delivery: DueDelivery, secret: string, now: Date): Promise<PostResult> {
    const eventId = this.options.eventIds.of(delivery.eventId);
    const body = JSON.stringify({
      id: eventId,
      type: delivery.eventType,
      createdAt: delivery.occurredAt,
      data: JSON.parse(delivery.eventData) as unknown,
    });
    const headers = {
      'content-type': 'application/json',
      'user-agent': this.options.userAgent,
      [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(secret, body, Math.floor(now.getTime() / 1000)),
      'adreport-event-id': eventId,
      'adreport-delivery-id': String(delivery.id),
    };
    return postJson(new URL(delivery.url), body, headers, {
      timeoutMs: this.options.attemptTimeoutMs,
      allowPrivate: this.options.allowPrivate,
      lookup: this.options.lookup,
      extraCa: this.options.extraCa,
    });
  }
}
