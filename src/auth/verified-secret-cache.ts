import crypto from 'node:crypto';

/**
 * Remembers secrets that passed the slow scrypt check, as an HMAC under a key that lives only
 * in this process, so a client asking for tokens again costs microseconds, not ~80 ms of CPU.
 * An entry is bound to the stored hash: a rotated secret invalidates it.
 */
export class VerifiedSecretCache {
  private readonly key = crypto.randomBytes(32);
  private readonly entries = new Map<string, { secretHash: string; mac: Buffer }>();

  constructor(private readonly maxEntries = 10_000) {}

  matches(clientId: string, secretHash: string, secret: string): boolean {
    const entry = this.entries.get(clientId);
    if (!entry || entry.secretHash !== secretHash) return false;
    return crypto.timingSafeEqual(entry.mac, this.mac(secret));
  }

  remember(clientId: string, secretHash: string, secret: string): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(clientId)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(clientId, { secretHash, mac: this.mac(secret) });
  }

  private mac(secret: string): Buffer {
    return crypto.createHmac('sha256', this.key).update(secret).digest();
  }
}
