import { createHash } from 'node:crypto';
import type { DataVersions } from '../store/data-versions.js';
import type { CachedPage, PageCache } from './page-cache.js';

/**
 * The validator of one answer: its ETag, and the data version it was computed at (DESIGN D11).
 * The answer is the same while the organization's data version is: the request went into the
 * tag as its normalized form (the plan: plain data with the resolved dates and the organization),
 * so two spellings of one request share a tag and a new day (a new default range) gets a new one.
 */
export interface Validator {
  readonly organizationId: number;
  /** The data version the tag was computed at. */
  readonly version: string;
  /**
   * A weak ETag (W/"..."): the same JSON goes out as identity, gzip or br, and an export as
   * identity or gzip, byte for byte different. A strong tag would have to differ per coding (RFC
   * 9110 8.8.1); the representations are semantically one, which is what a weak tag says, and
   * If-None-Match compares weakly anyway. Opaque: a hash, so it shows no counter of other tenants' writes.
   */
  readonly etag: string;
}

/** What one answer is: its kind (`report`, `call-details`, `markups`), its format, and the normalized request. */
export interface AnswerKey {
  readonly kind: string;
  readonly format: string;
  /** Plain data (a plan or a normalized query); JSON.stringify must give one text per meaning. */
  readonly request: unknown;
}

/** Validators from the data versions, and the page cache keyed by them. */
export class ReportFreshness {
  constructor(
    private readonly versions: DataVersions,
    private readonly pages: PageCache,
  ) {}

  /** Bytes the page cache holds now (never above ADREPORT_CACHE_MB). */
  get cachedBytes(): number {
    return this.pages.bytes;
  }

  validator(organizationId: number, key: AnswerKey): Validator {
    const version = this.versions.of(organizationId);
    const digest = createHash('sha256')
      .update(`${version}\n${key.kind}\n${key.format}\n${JSON.stringify(key.request)}`)
      .digest('base64url')
      .slice(0, 32);
    return { organizationId, version, etag: `W/"${digest}"` };
  }

  /** No write that the organization's reports read has ended since the validator was computed. */
  isCurrent(validator: Validator): boolean {
    return this.versions.of(validator.organizationId) === validator.version;
  }

  cached(validator: Validator): CachedPage | undefined {
    return this.pages.get(validator.organizationId, validator.etag);
  }

  /** Whether a rendered body of this size would be kept (larger ones stream as before). */
  caches(bodyBytes: number): boolean {
    return this.pages.accepts(bodyBytes);
  }

  /** Keeps a coded body beside a cached page (the next hit asking for that coding sends it as is). */
  rememberEncoded(validator: Validator, coding: string, body: Uint8Array<ArrayBuffer>): void {
    if (this.isCurrent(validator)) this.pages.setEncoded(validator.organizationId, validator.etag, coding, body);
  }

  /** Keeps the page only if the data did not change while it was computed (else it may mix versions). */
  remember(validator: Validator, page: CachedPage): void {
    if (this.isCurrent(validator)) this.pages.set(validator.organizationId, validator.etag, page);
  }
}
