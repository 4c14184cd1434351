import { describe, expect, it } from 'vitest';
import { allocate } from '../src/platforms/sandbox/allocation.js';
import { FeistelPermutation } from '../src/platforms/sandbox/feistel.js';
import { IdScheme } from '../src/platforms/sandbox/ids.js';
import { Rng } from '../src/platforms/sandbox/random.js';

describe('allocate', () => {
  it('splits a total exactly, within caps, never negative (seeded random cases)', () => {
    const rng = Rng.of('allocate-cases');
    const problems: string[] = [];
    for (let run = 0; run < 3000; run++) {
      const n = rng.int(1, 25);
      const weights = Array.from({ length: n }, () => (rng.chance(0.15) ? 0 : rng.logNormal(1, 1.5)));
      const caps = rng.chance(0.3) ? undefined : Array.from({ length: n }, () => (rng.chance(0.2) ? 0 : rng.int(0, 1000)));
      const room = caps ? caps.reduce((a, b) => a + b, 0) : Infinity;
      const total = rng.chance(0.1) ? rng.int(0, 1e12) : rng.int(0, Math.min(room, 5000));
      const out = allocate(total, weights, caps);
      const sum = out.reduce((a, b) => a + b, 0);
      const expected = Math.min(total, room);
      if (sum !== expected) problems.push(`sum ${sum} != ${expected}`);
      out.forEach((share, i) => {
        if (!Number.isInteger(share) || share < 0) problems.push(`share ${share}`);
        if (caps && share > caps[i]!) problems.push(`share ${share} over cap ${caps[i]}`);
      });
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });

  it('is proportional to the weights up to one unit', () => {
    const weights = [5, 3, 2, 0];
    const out = allocate(1001, weights);
    expect(out.reduce((a, b) => a + b, 0)).toBe(1001);
    weights.forEach((w, i) => expect(Math.abs(out[i]! - (1001 * w) / 10)).toBeLessThan(1));
    // Equal weights when all are zero; capped rows take their cap and the rest moves on.
    expect(allocate(4, [0, 0])).toEqual([2, 2]);
    expect(allocate(10, [9, 1], [2, 100])).toEqual([2, 8]);
  });
});

describe('id permutation', () => {
  it('is a bijection on a small domain and inverts exactly on a large one', () => {
    const small = new FeistelPermutation(1000n, 42);
    const images = new Set<bigint>();
    for (let x = 0n; x < 1000n; x++) {
      const y = small.forward(x);
      expect(y >= 0n && y < 1000n).toBe(true);
      expect(small.inverse(y)).toBe(x);
      images.add(y);
    }
    expect(images.size).toBe(1000);
    const large = new FeistelPermutation(990_000_000_000_000_000n, 7);
    for (const x of [0n, 1n, 123_456_789_012_345n, 989_999_999_999_999_999n]) expect(large.inverse(large.forward(x))).toBe(x);
  });

  it('decodes the entity ids it encodes, and nothing of another kind or organization', () => {
    for (const platform of ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const) {
      const ids = new IdScheme(1, platform);
      const other = new IdScheme(2, platform);
      const path = { kind: 'AD' as const, payload: 12_345, campaign: 300, adGroup: 7, item: 5 };
      const id = ids.entityId(path);
      expect(ids.decodeEntity('AD', id)).toEqual(path);
      expect(ids.decodeEntity('AD_GROUP', id)).toBeUndefined();
      expect(ids.decodeEntity('CAMPAIGN', id)).toBeUndefined();
      const decodedElsewhere = other.decodeEntity('AD', id);
      expect(decodedElsewhere).not.toEqual(path);
      const account = ids.accountId(4_321);
      expect(ids.accountPayload(account)).toBe(4_321);
      expect(other.accountPayload(account)).not.toBe(4_321);
    }
  });
});
