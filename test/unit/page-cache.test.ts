import { describe, expect, it } from 'vitest';
import { PageCache } from '../../src/reporting/page-cache.js';
import { DataVersions } from '../../src/store/data-versions.js';

/** An entry's cost: body bytes plus the cache's per-entry estimate (256). */
const OVERHEAD = 256;
const page = (bytes: number, fill = 1) => ({
  body: new Uint8Array(bytes).fill(fill),
  headers: { 'X-TotalCount': String(bytes) },
});

describe('PageCache (LRU by bytes)', () => {
  it('keeps entries within its capacity, evicting the least recently used first', () => {
    // Room for exactly four 1,000-byte pages (4 x 1,256 = 5,024 bytes); an entry may take an eighth: 1,256 fits 10,048 / 8.
    const cache = new PageCache(4 * (1000 + OVERHEAD) * 2);
    for (let i = 1; i <= 8; i++) cache.set(1, `k${i}`, page(1000, i));
    expect(cache.size).toBe(8);
    expect(cache.bytes).toBe(8 * (1000 + OVERHEAD));
    // Use k1 and k2: k3 is now the least recently used.
    expect(cache.get(1, 'k1')?.body[0]).toBe(1);
    expect(cache.get(1, 'k2')?.body[0]).toBe(2);
    cache.set(1, 'k9', page(1000, 9));
    expect(cache.get(1, 'k3')).toBeUndefined();
    expect(cache.size).toBe(8);
    cache.set(1, 'k10', page(1000, 10));
    expect(cache.get(1, 'k4')).toBeUndefined();
    for (const key of ['k1', 'k2', 'k5', 'k6', 'k7', 'k8', 'k9', 'k10']) expect(cache.get(1, key)).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(cache.capacityBytes);
  });

  it('never holds more than its capacity under pages of mixed sizes', () => {
    const capacity = 100_000;
    const cache = new PageCache(capacity);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      cache.set(1 + (i % 3), `k${i}`, page(Math.floor(random() * 12_000)));
      if (i % 5 === 0) cache.get(1, `k${i - 3}`);
      expect(cache.bytes).toBeLessThanOrEqual(capacity);
    }
    expect(cache.size).toBeGreaterThan(10);
  });

  it('refuses a page over an eighth of its capacity, so one page cannot empty it', () => {
    const cache = new PageCache(8 * (1000 + OVERHEAD));
    expect(cache.accepts(1000)).toBe(true);
    expect(cache.accepts(1001)).toBe(false);
    cache.set(1, 'small', page(1000));
    cache.set(1, 'big', page(1001));
    expect(cache.get(1, 'big')).toBeUndefined();
    expect(cache.get(1, 'small')).toBeDefined();
  });

  it('replaces an entry under the same key without counting it twice', () => {
    const cache = new PageCache(100_000);
    cache.set(1, 'k', page(1000, 1));
    cache.set(1, 'k', page(2000, 2));
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(2000 + OVERHEAD);
    expect(cache.get(1, 'k')?.body.byteLength).toBe(2000);
  });

  it('never answers one organization with the entry of another under the same validator', () => {
    const cache = new PageCache(100_000);
    cache.set(1, 'same', page(10, 1));
    expect(cache.get(2, 'same')).toBeUndefined();
    expect(cache.get(1, 'same')?.body[0]).toBe(1);
  });

  it('capacity 0 stores nothing', () => {
    const cache = new PageCache(0);
    cache.set(1, 'k', page(1));
    expect(cache.size).toBe(0);
    expect(cache.get(1, 'k')).toBeUndefined();
  });
});

describe('DataVersions', () => {
  it('a write of one organization advances only its version; all-organizations advances every one; no-report-data none', () => {
    const versions = new DataVersions();
    const a0 = versions.of(1);
    const b0 = versions.of(2);
    versions.advance({ organizationId: 1 });
    expect(versions.of(1)).not.toBe(a0);
    expect(versions.of(2)).toBe(b0);
    const a1 = versions.of(1);
    versions.advance('no-report-data');
    expect([versions.of(1), versions.of(2)]).toEqual([a1, b0]);
    versions.advance('all-organizations');
    expect(versions.of(1)).not.toBe(a1);
    expect(versions.of(2)).not.toBe(b0);
  });

  it('two processes (a restart) never share a version', () => {
    expect(new DataVersions().of(1)).not.toBe(new DataVersions().of(1));
  });
});
