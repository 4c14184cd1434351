import { WEBHOOK_RETRY_HOURS } from '../events/event-log.js';
import { representationTag, type Precondition } from '../shared/entity-tag.js';
import type { PublicEventIds } from '../events/public-event-id.js';
import { ApiError, notFound, unprocessable } from '../shared/errors.js';
import type { Store } from '../store/store.js';
import { newWebhookSecret, type SecretBox } from './secret-box.js';
import { checkHost, hostOf, TargetRefused, type Lookup } from './target-address.js';
import { WEBHOOKS_PER_ORGANIZATION, type WebhookCreate } from './webhook-schema.js';
import {
  countWebhooks,
  deleteWebhook,
  getDelivery,
  getWebhook,
  insertRedelivery,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  nextWebhookId,
  type Delivery,
  type DeliveryStatus,
  type StoredDelivery,
  type Webhook,
} from './webhook-store.js';

export interface WebhookServiceOptions {
  readonly allowPrivate: boolean;
  readonly lookup: Lookup;
  readonly now: () => Date;
  /** Tells the delivery worker that a delivery is due now (a redelivery). */
  readonly wake: () => void;
  /** The ids clients see of events (the delivery worker sends the same). */
  readonly eventIds: PublicEventIds;
}

/** The strong ETag of a webhook: its representation without the secret (which only the create answer shows). */
export function webhookTag(webhook: Webhook): string {
  return representationTag(webhook);
}

/** Webhooks of an organization: create (the secret shown once), read, delete, the delivery log, redeliver. */
export class WebhookService {
  constructor(
    private readonly db: Store,
    private readonly secrets: SecretBox,
    private readonly options: WebhookServiceOptions,
  ) {}

  async create(organizationId: number, input: WebhookCreate): Promise<{ webhook: Webhook; secret: string }> {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw unprocessable(`The webhook url names no host that resolves.`, [
        { field: 'webhook.url', code: 'host_not_found', message: 'names no host that resolves' },
      ]);
    }
    try {
      await checkHost(hostOf(url), {
        allowPrivate: this.options.allowPrivate,
        lookup: this.options.lookup,
        timeoutMs: 5_000,
      });
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      throw unprocessable(`The webhook url is refused: ${error.message}.`, [
        { field: 'webhook.url', code: error.code, message: error.message },
      ]);
    }
    const secret = newWebhookSecret();
    const webhook = await this.db.write('no-report-data', async (tx) => {
      if ((await countWebhooks(tx, organizationId)) >= WEBHOOKS_PER_ORGANIZATION)
        throw new ApiError(
          409,
          'too_many_webhooks',
          `An organization may have at most ${WEBHOOKS_PER_ORGANIZATION} webhooks; delete one first.`,
        );
      const id = await nextWebhookId(tx);
      return insertWebhook(tx, {
        id,
        organizationId,
        url: url.href,
        events: [...new Set(input.events)],
        description: input.description ?? null,
        secretSealed: this.secrets.seal(secret, id),
        now: this.options.now(),
      });
    });
    return { webhook, secret };
  }

  async get(organizationId: number, id: number): Promise<Webhook> {
    const webhook = await this.db.read((r) => getWebhook(r, organizationId, id));
    if (!webhook) throw notFound(`No webhook with id ${id} in this organization.`);
    return webhook;
  }

  list(organizationId: number, page: { limit: number; offset: number }) {
    return this.db.read((r) => listWebhooks(r, organizationId, page));
  }

  async delete(organizationId: number, id: number, precondition?: Precondition): Promise<void> {
    const deleted = await this.db.write('no-report-data', async (tx) => {
      if (precondition) {
        const current = await getWebhook(tx, organizationId, id);
        if (!current) return false;
        precondition(webhookTag(current));
      }
      return deleteWebhook(tx, organizationId, id);
    });
    if (!deleted) throw notFound(`No webhook with id ${id} in this organization.`);
  }

  async deliveries(
    organizationId: number,
    webhookId: number,
    filter: { status?: DeliveryStatus | undefined },
    page: { limit: number; offset: number },
  ): Promise<{ total: number; deliveries: Delivery[] }> {
    await this.get(organizationId, webhookId);
    const { total, deliveries } = await this.db.read((r) => listDeliveries(r, organizationId, webhookId, filter, page));
    return { total, deliveries: deliveries.map((d) => this.shown(d)) };
  }

  async delivery(organizationId: number, webhookId: number, id: number): Promise<Delivery> {
    await this.get(organizationId, webhookId);
    const delivery = await this.db.read((r) => getDelivery(r, organizationId, webhookId, id));
    if (!delivery) throw notFound(`No delivery with id ${id} of webhook ${webhookId}.`);
    return this.shown(delivery);
  }

  /** Sends the delivery's event again, as a new delivery (its own attempts and retry window). */
  async redeliver(organizationId: number, webhookId: number, deliveryId: number): Promise<Delivery> {
    const now = this.options.now();
    const id = await this.db.write('no-report-data', async (tx) => {
      if (!(await getWebhook(tx, organizationId, webhookId)))
        throw notFound(`No webhook with id ${webhookId} in this organization.`);
      const until = new Date(now.getTime() + WEBHOOK_RETRY_HOURS * 3600_000);
      const created = await insertRedelivery(tx, organizationId, webhookId, deliveryId, now, until);
      if (created === undefined) throw notFound(`No delivery with id ${deliveryId} of webhook ${webhookId}.`);
      return created;
    });
    this.options.wake();
    return this.shown((await this.db.read((r) => getDelivery(r, organizationId, webhookId, id)))!);
  }

  private shown({ eventRowId, ...delivery }: StoredDelivery): Delivery {
    return { ...delivery, eventId: this.options.eventIds.of(eventRowId) };
  }
}
