/**
 * SQL text helpers for the generator. Every random draw is DuckDB's `hash()` of the seed, a
 * numeric tag naming the draw, and the keys of what is drawn for (run-local indexes, day
 * index). hash() is stable across processes for one DuckDB version, so the same arguments give
 * the same data; integer tags hash about four times faster than string tags (measured 1.5.6).
 *
 * Only numbers the generator computes itself and fixed vocabulary are pasted into SQL, through
 * `sqlString`/`sqlNumber` below; nothing here comes from a user but the validated integers.
 */

const MOD = 1_000_003;
const TWO_32 = 4_294_967_296;

/** A single-quoted SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A finite number as SQL text; refuses NaN and infinities so a bug cannot paste `NaN`. */
export function sqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return String(value);
}

/** A DuckDB list literal of strings, indexed 1-based in SQL. */
export function sqlStringList(values: readonly string[]): string {
  return `[${values.map(sqlString).join(', ')}]`;
}

export function sqlNumberList(values: readonly number[]): string {
  return `[${values.map(sqlNumber).join(', ')}]`;
}

/** Draws for one run: every expression hashes the seed first. */
export class Draws {
  constructor(readonly seed: number) {}

  /** The raw 64-bit hash of (seed, tag, keys...). */
  hash(tag: number, ...keys: string[]): string {
    return `hash(${this.seed}, ${tag}, ${keys.join(', ')})`;
  }

  /** Uniform in (0, 1). */
  u(tag: number, ...keys: string[]): string {
    return `((${this.hash(tag, ...keys)} % ${MOD})::DOUBLE + 0.5) / ${MOD}`;
  }

  /** Standard normal (Box-Muller over the two 32-bit halves of one hash). */
  normal(tag: number, ...keys: string[]): string {
    const h = this.hash(tag, ...keys);
    return `(sqrt(-2 * ln(${hiHalf(h)})) * cos(2 * pi() * ${loHalf(h)}))`;
  }

  /** exp(sigma * z): median 1, long right tail. */
  lognormal(sigma: number, tag: number, ...keys: string[]): string {
    return `exp(${sqlNumber(sigma)} * ${this.normal(tag, ...keys)})`;
  }

  /** An integer in [lo, hi], skewed toward lo when `power` > 1 (u^power). */
  int(lo: number, hi: number, tag: number, keys: readonly string[], power = 1): string {
    const u = power === 1 ? this.u(tag, ...keys) : `pow(${this.u(tag, ...keys)}, ${sqlNumber(power)})`;
    return `(${lo} + least(${hi - lo}, floor(${u} * ${hi - lo + 1})::BIGINT))`;
  }

  /** One of `values`, uniformly. */
  pick(values: readonly string[], tag: number, ...keys: string[]): string {
    return `${sqlStringList(values)}[1 + (${this.hash(tag, ...keys)} % ${values.length})::INTEGER]`;
  }

  /** The index (0-based) of one of the weights, drawn in proportion to them. */
  weightedIndex(weights: readonly number[], tag: number, ...keys: string[]): string {
    return weightedCase(this.u(tag, ...keys), weights);
  }

  /** One of `values` drawn in proportion to `weights`. */
  weighted(values: readonly string[], weights: readonly number[], tag: number, ...keys: string[]): string {
    return `${sqlStringList(values)}[1 + ${this.weightedIndex(weights, tag, ...keys)}]`;
  }
}

/** Uniform in (0, 1) from the high 32 bits of a 64-bit hash expression. */
export function hiHalf(hashExpr: string): string {
  return `(((${hashExpr}) >> 32)::DOUBLE + 0.5) / ${TWO_32}`;
}

/** Uniform in (0, 1) from the low 32 bits of a 64-bit hash expression. */
export function loHalf(hashExpr: string): string {
  return `(((${hashExpr}) & ${TWO_32 - 1})::DOUBLE + 0.5) / ${TWO_32}`;
}

/** CASE over cumulative weights: the index whose band the uniform `u` falls in. */
export function weightedCase(u: string, weights: readonly number[]): string {
  const total = weights.reduce((a, b) => a + b, 0);
  let cumulative = 0;
  const arms = weights.slice(0, -1).map((w, i) => {
    cumulative += w;
    return `WHEN ${u} < ${sqlNumber(cumulative / total)} THEN ${i}`;
  });
  return arms.length === 0 ? '0' : `(CASE ${arms.join(' ')} ELSE ${weights.length - 1} END)`;
}

/**
 * A bijection of [0, modulus) as SQL, so run-local indexes become distinct platform ids that
 * look random: the index is split into (l, r) in [0, a) x [0, b) with a x b = modulus, then four
 * alternating keyed additions l += F(r) mod a, r += G(l) mod b (each step invertible, so the
 * whole is a permutation), then l x b + r. `salt` keeps different id kinds apart.
 */
export function permute(seed: number, x: string, modulus: number, salt: number): string {
  const b = 10 ** Math.floor(Math.log10(modulus) / 2);
  const a = modulus / b;
  if (!Number.isInteger(a) || a * b !== modulus) throw new Error(`permute: ${modulus} is not a x 10^k`);
  let l = `((${x})::BIGINT // ${b})`;
  let r = `((${x})::BIGINT % ${b})`;
  for (let step = 0; step < 4; step += 2) {
    l = `((${l} + hash(${seed}, ${salt}, ${step}, ${r}) % ${a}) % ${a})`;
    r = `((${r} + hash(${seed}, ${salt}, ${step + 1}, ${l}) % ${b}) % ${b})`;
  }
  return `((${l})::HUGEINT * ${b} + (${r}))::BIGINT`;
}
