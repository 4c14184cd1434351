import { describe, expect, it } from 'vitest';
import { allocate } from '../../src/platforms/sandbox/allocation.js';
import { FeistelPermutation } from '../../src/platforms/sandbox/feistel.js';
import { dayOf, localDay, utcOfLocalTime } from '../../src/platforms/sandbox/dates.js';
import { CALLS_PER_CELL, IdScheme } from '../../src/platforms/sandbox/ids.js';
import { Rng } from '../../src/platforms/sandbox/random.js';

describe('allocate', () => {
  it('splits a total exactly, within caps, never negative (seeded random cases)', () => {
    const rng = Rng.of('allocate-cases');
    const problems: string[] = [];
    for (let run = 0; run < 3000; run++) {
      const n = rng.int(1, 25);
      const weights = Array.from({ length: n }, () => (rng.chance(0.15) ? 0 : rng.logNormal(1, 1.5)));
      const caps = rng.chance(0.3)
        ? undefined
        : Array.from({ length: n }, () => (rng.chance(0.2) ? 0 : rng.int(0, 1000)));
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
    for (const x of [0n, 1n, 123_456_789_012_345n, 989_999_999_999_999_999n])
      expect(large.inverse(large.forward(x))).toBe(x);
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

describe('call ids', () => {
  it('are 19 digits, distinct for distinct calls, and refuse what the layout cannot hold', () => {
    for (const platform of ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'] as const) {
      const ids = new IdScheme(1, platform);
      const seen = new Set<string>();
      const base = {
        payload: 2 * ids.issuedPayloads - 1,
        campaign: 511,
        adGroup: 15,
        day: dayOf('2026-10-01'),
        device: 0,
        index: 0,
      };
      const variants = [
        base,
        { ...base, payload: 0 },
        { ...base, campaign: 0 },
        { ...base, adGroup: 0 },
        { ...base, day: base.day + 1 },
        { ...base, device: 3 },
        { ...base, index: CALLS_PER_CELL - 1 },
      ];
      for (const path of variants) seen.add(ids.callId(path));
      expect(seen.size).toBe(variants.length);
      for (const id of seen) expect(id).toMatch(/^\d{19}$/);
      expect(ids.callId(base)).toBe(new IdScheme(1, platform).callId(base));
      expect(ids.callId(base)).not.toBe(new IdScheme(2, platform).callId(base));
      expect(() => ids.callId({ ...base, index: CALLS_PER_CELL })).toThrow(RangeError);
    }
  });
});

describe('local times', () => {
  it('land on the asked day at the asked wall time, on the days the clocks change too', () => {
    const wall = (date: Date, timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', {
        timeZone,
        hourCycle: 'h23',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      }).format(date);
    const cases: Array<[string, string]> = [
      ['Europe/Berlin', '2026-03-29'], // 02:00 -> 03:00
      ['Europe/Berlin', '2026-10-25'], // 03:00 -> 02:00
      ['America/New_York', '2026-03-08'],
      ['America/Sao_Paulo', '2018-11-04'], // clocks went from 00:00 to 01:00: the day began at 01:00
      ['Australia/Sydney', '2026-04-05'],
      ['Asia/Tokyo', '2026-06-01'],
    ];
    for (const [timeZone, date] of cases) {
      const day = dayOf(date);
      for (let second = 0; second < 86_400; second += 1_799) {
        const instant = utcOfLocalTime(day, second, timeZone);
        expect(localDay(instant, timeZone)).toBe(day);
        const asked = new Date(second * 1000).toISOString().slice(11, 19);
        // Inside a skipped hour the time moves an hour on; otherwise the wall clock shows what was asked.
        const shown = wall(instant, timeZone);
        if (shown !== asked) expect(new Date((second + 3600) * 1000).toISOString().slice(11, 19)).toBe(shown);
      }
    }
  });
});
