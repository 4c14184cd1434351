import crypto from 'node:crypto';
import path from 'node:path';
import { createSecretFile, readSecretFile } from '../store/secret-files.js';

/**
 * Webhook signing secrets must be readable by the service (it signs with them), so unlike client
 * secrets they cannot be stored as scrypt hashes. They are sealed with AES-256-GCM under a key
 * that, like the token keys (auth/key-file.ts), lives outside the database: a copy of the
 * database alone (a backup, a file left readable) cannot forge a delivery.
 */
export function webhookKeyPathFor(dbPath: string): string {
  return `${path.resolve(dbPath)}.webhook-key`;
}

const FORMAT = 'v1';
const WEBHOOK_KEY_FIX =
  "remove it and start again (a new key is made; existing webhooks must then be created again), or, if it is this service's own and no one else could have read it, chmod 600 {file}";
const KEY_BYTES = 32;

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The key from ADREPORT_WEBHOOK_SECRET_KEY (base64 or hex, 32 bytes): a secret store instead of the file. */
  static fromKey(text: string): SecretBox {
    const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64url');
    if (key.length !== KEY_BYTES) throw new Error('ADREPORT_WEBHOOK_SECRET_KEY must be 32 bytes, in hex or base64');
    return new SecretBox(key);
  }

  /**
   * Opens the key file beside the database, making it (0600, O_EXCL) on the first start. One
   * another user owns, a symbolic link, or one group or others may read is refused: another user
   * who made it first would know the key every webhook secret is sealed with.
   */
  static openFile(file: string): SecretBox {
    createSecretFile(file, `${crypto.randomBytes(KEY_BYTES).toString('base64url')}\n`);
    const text = readSecretFile(file, { fix: WEBHOOK_KEY_FIX });
    if (text === undefined) throw new Error(`${file} disappeared while it was made`);
    const key = Buffer.from(text.trim(), 'base64url');
    if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a 32-byte webhook key`);
    return new SecretBox(key);
  }

  /**
   * A key of its own for another use of the same server secret (HKDF-SHA256, `purpose` as info):
   * change cursors and public event ids need a key kept outside the database too, and a second
   * key file would be a second file to create, check and back up. Replacing the webhook key
   * replaces every derived key.
   */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(crypto.hkdfSync('sha256', this.key, Buffer.alloc(0), `adreport ${purpose}`, KEY_BYTES));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the webhook id is bound in, so a sealed secret cannot be moved to another row. */
  seal(secret: string, webhookId: number): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(`webhook:${webhookId}`));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), sealed]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** The secret, or undefined when it was sealed under another key (the key file was replaced). */
  open(sealed: string, webhookId: number): string | undefined {
    const [format, iv, tag, data] = sealed.split('.');
    if (format !== FORMAT || !iv || !tag || data === undefined) return undefined;
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`webhook:${webhookId}`));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** `whsec_` and 256 random bits in base64url (43 characters). */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64url')}`;
}
