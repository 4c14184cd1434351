import crypto from 'node:crypto';

/**
 * BackendKeyData's (process id, secret key) of each live connection, for CancelRequests that arrive
 * on connections of their own. The process id only names the connection; the 32-bit random secret
 * is what authorizes a cancel, so it is compared in constant time and a mismatch is silently ignored
 * (PostgreSQL answers a CancelRequest with nothing, whatever happened).
 */
export class CancelKeys {
  private readonly live = new Map<number, { readonly secretKey: number; readonly cancel: () => void }>();

  /** A fresh key for a connection; `cancel` aborts its running statement, if any. */
  register(cancel: () => void): { processId: number; secretKey: number; release: () => void } {
    let processId: number;
    do processId = crypto.randomInt(1, 0x7fffffff);
    while (this.live.has(processId));
    const secretKey = crypto.randomBytes(4).readInt32BE(0);
    this.live.set(processId, { secretKey, cancel });
    return { processId, secretKey, release: () => this.live.delete(processId) };
  }

  /** Whether the key named a live connection (the answer is for logs and tests; the client gets none). */
  cancel(processId: number, secretKey: number): boolean {
    const entry = this.live.get(processId);
    if (!entry) return false;
    const given = Buffer.alloc(4);
    given.writeInt32BE(secretKey);
    const expected = Buffer.alloc(4);
    expected.writeInt32BE(entry.secretKey);
    if (!crypto.timingSafeEqual(given, expected)) return false;
    entry.cancel();
    return true;
  }
}
