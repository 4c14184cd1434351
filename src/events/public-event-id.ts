import crypto from 'node:crypto';

/**
 * What clients see of an event's id: `evt_` and 22 base64url characters (128 bits of an
 * HMAC-SHA256 of the row id under a server key). Event rows take their ids from one sequence
 * shared by every organization, so `evt_<row id>` told a receiver how many events all
 * organizations had; this id is as stable (the same event, the same id, on every attempt and
 * redelivery) and says nothing. Pure.
 */
export class PublicEventIds {
  /** `key`: 32 bytes kept outside the database (main.ts derives it from the webhook key). */
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('an event id key is 32 bytes');
  }

  of(eventRowId: number): string {
    const mac = crypto.createHmac('sha256', this.key).update(`adreport event ${eventRowId}`).digest();
    return `evt_${mac.subarray(0, 16).toString('base64url')}`;
  }
}
