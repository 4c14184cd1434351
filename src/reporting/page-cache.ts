/** A rendered JSON answer as it went out: the body before any content coding, and its own headers. */
export interface CachedPage {
  readonly body: Uint8Array<ArrayBuffer>;
  /** Content-Type, X-TotalCount, Vary, ...: what the answer carries besides its validator. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body in a content coding (gzip, br), made at the first hit that asked for it. */
  readonly encoded?: Readonly<Record<string, Uint8Array<ArrayBuffer>>>;
}

/** What an entry costs besides its body: the key, the headers, the Map's own bookkeeping (an estimate). */
const ENTRY_OVERHEAD_BYTES = 256;
/** One entry may take at most this share of the cache, so one big page cannot push out every small one. */
const MAX_ENTRY_SHARE = 8;

/**
 * Rendered pages, least recently used out first, bounded by bytes (ADREPORT_CACHE_MB). Keyed by
 * organization and validator: the validator already names the organization's data version and
 * the whole request, and the organization is a key of its own besides, so that no key of one
 * organization can ever answer another. A capacity of 0 stores nothing.
 */
export class PageCache {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly entries = new Map<string, { readonly page: CachedPage; readonly bytes: number }>();
  private used = 0;

  constructor(readonly capacityBytes: number) {}

  /** Bytes held now (bodies plus an estimate per entry); never above capacityBytes. */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether a body of this many bytes would be kept; larger pages are streamed and not cached. */
  accepts(bodyBytes: number): boolean {
    return costOf(bodyBytes) <= this.capacityBytes / MAX_ENTRY_SHARE;
  }

  get(organizationId: number, validator: string): CachedPage | undefined {
    const key = keyOf(organizationId, validator);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.page;
  }

  set(organizationId: number, validator: string, page: CachedPage): void {
    const bytes = costOf(page.body.byteLength);
    if (!this.accepts(page.body.byteLength)) return;
    const key = keyOf(organizationId, validator);
    this.remove(key);
    while (this.used + bytes > this.capacityBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.remove(oldest.value);
    }
    this.entries.set(key, { page, bytes });
    this.used += bytes;
  }

  /** Adds a coded body to an entry still held (counted in its bytes); none if it no longer fits. */
  setEncoded(organizationId: number, validator: string, coding: string, body: Uint8Array<ArrayBuffer>): void {
    const key = keyOf(organizationId, validator);
    const entry = this.entries.get(key);
    if (entry === undefined || entry.page.encoded?.[coding] !== undefined) return;
    const bytes = entry.bytes + body.byteLength;
    if (bytes > this.capacityBytes / MAX_ENTRY_SHARE) return;
    this.remove(key);
    while (this.used + bytes > this.capacityBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.remove(oldest.value);
    }
    this.entries.set(key, { page: { ...entry.page, encoded: { ...entry.page.encoded, [coding]: body } }, bytes });
    this.used += bytes;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.used -= entry.bytes;
  }
}

function costOf(bodyBytes: number): number {
  return bodyBytes + ENTRY_OVERHEAD_BYTES;
}

function keyOf(organizationId: number, validator: string): string {
  return `${organizationId} ${validator}`;
}
