/**
 * Seeded randomness for the sandbox. Everything the sandbox invents comes from a generator
 * seeded by a string naming what is being invented (organization, platform, entity id), so the
 * same catalog and the same figures come back in every process, in any call order.
 */

/** FNV-1a, 32 bit: short, stable across Node versions, good enough to spread seeds. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** murmur3's finalizer: turns nearby integers into unrelated ones (Feistel rounds, seeds). */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: 32 bits of state, fast, and plenty for made-up advertising data. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  static of(...parts: ReadonlyArray<string | number>): Rng {
    return new Rng(hashString(parts.join('|')));
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** Picks by weight; `weightOf` must be positive for at least one item. */
  weighted<T>(items: readonly T[], weightOf: (item: T) => number): T {
    const total = items.reduce((sum, item) => sum + weightOf(item), 0);
    let point = this.next() * total;
    for (const item of items) {
      point -= weightOf(item);
      if (point < 0) return item;
    }
    return this.pick(items);
  }

  /** Standard normal (Box-Muller; one of the pair is dropped, which costs nothing that matters). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** Log-normal around `median`: the long tail of advertising volumes and prices. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** `count` distinct integers from [0, bound), in the order drawn. */
  distinctInts(count: number, bound: number): number[] {
    const seen = new Set<number>();
    while (seen.size < Math.min(count, bound)) seen.add(Math.floor(this.next() * bound));
    return [...seen];
  }
}
