import crypto from 'node:crypto';

/**
 * The feed's cursor: which organization it was issued to, the last change id it has listed, and
 * when it was issued. Change ids come from one sequence shared by every organization, so the
 * cursor is sealed (AES-256-GCM under a server key, the organization bound in as associated data):
 * its holder can neither read the id (how many changes all organizations made) nor forge or move
 * one (a forged cursor probing "ahead of every change" told exactly that). Pure.
 */
export interface ChangeCursor {
  readonly organizationId: number;
  /** The last change id listed (0: none yet). */
  readonly lastId: number;
  /** When the cursor was issued (ms since the epoch, the service clock). */
  readonly issuedAtMs: number;
}

/** A cursor is valid for this long after the response that issued it (the feed keeps rows as long). */
export const CURSOR_VALID_MS = 7 * 24 * 3600_000;
/**
 * How far in the future a cursor's issue time may lie: cursors are issued on the service's own
 * clock, so only a clock stepped back (or a moved database) shows one; more is refused.
 */
export const CURSOR_CLOCK_SKEW_MS = 60_000;

/** What a `since` text is. */
export type OpenedCursor =
  | { readonly kind: 'cursor'; readonly cursor: ChangeCursor }
  /** An unsealed cursor of the first format (`c1`), of this organization: no longer accepted. */
  | { readonly kind: 'unsealed' }
  | { readonly kind: 'invalid' };

const PREFIX = 'c2_';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PLAIN_BYTES = 16;
const SEALED = /^c2_[A-Za-z0-9_-]{59}$/;
const UNSEALED_SHAPE = /^c1\.(\d{1,15})\.(\d{1,15})\.(\d{1,15})$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;

export class ChangeCursors {
  /** `key`: 32 bytes kept outside the database (main.ts derives it from the webhook key). */
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a change cursor key is 32 bytes');
  }

  /** `c2_` and 59 base64url characters (IV, ciphertext of last id and issue time, tag): the documented `since` pattern. */
  seal(cursor: ChangeCursor): string {
    const plain = Buffer.alloc(PLAIN_BYTES);
    plain.writeBigUInt64BE(BigInt(cursor.lastId), 0);
    plain.writeBigUInt64BE(BigInt(cursor.issuedAtMs), 8);
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(boundTo(cursor.organizationId));
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${sealed.toString('base64url')}`;
  }

  /** What `text` is for `organizationId`: a cursor this service sealed for it, an old unsealed one of it, or neither. */
  open(text: string, organizationId: number): OpenedCursor {
    if (SEALED.test(text)) {
      const cursor = this.unseal(text, organizationId);
      return cursor ? { kind: 'cursor', cursor } : { kind: 'invalid' };
    }
    return unsealedOrganization(text) === organizationId ? { kind: 'unsealed' } : { kind: 'invalid' };
  }

  private unseal(text: string, organizationId: number): ChangeCursor | undefined {
    const bytes = Buffer.from(text.slice(PREFIX.length), 'base64url');
    // Base64url has several spellings of some byte strings; only the canonical one is ours.
    if (`${PREFIX}${bytes.toString('base64url')}` !== text || bytes.length !== IV_BYTES + PLAIN_BYTES + TAG_BYTES)
      return undefined;
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(boundTo(organizationId));
      decipher.setAuthTag(bytes.subarray(IV_BYTES + PLAIN_BYTES));
      const plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, IV_BYTES + PLAIN_BYTES)),
        decipher.final(),
      ]);
      const lastId = plain.readBigUInt64BE(0);
      const issuedAtMs = plain.readBigUInt64BE(8);
      if (lastId > BigInt(Number.MAX_SAFE_INTEGER) || issuedAtMs > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
      return { organizationId, lastId: Number(lastId), issuedAtMs: Number(issuedAtMs) };
    } catch {
      // Another key, another organization, or changed bytes: the tag does not match.
      return undefined;
    }
  }
}

function boundTo(organizationId: number): Buffer {
  return Buffer.from(`adreport change cursor v2 organization ${organizationId}`, 'utf8');
}

/** The organization of a first-format cursor (base64url of `c1.<org>.<lastId>.<issuedAt>`), if `text` is one. */
function unsealedOrganization(text: string): number | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const match = UNSEALED_SHAPE.exec(Buffer.from(text, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}
