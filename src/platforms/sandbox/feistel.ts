import { mix32 } from './random.js';

/**
 * A keyed permutation of [0, size): ids look random, yet two different inputs never share an
 * id and every id can be turned back into what it encodes. A balanced Feistel network runs on
 * the smallest even power of two covering `size`; cycle walking (apply again until the value
 * is inside the range) makes it a permutation of exactly [0, size). Halves stay below 2^31 so
 * the rounds run on plain numbers; only joining them needs BigInt (Facebook ids exceed 2^53).
 */
export class FeistelPermutation {
  private readonly halfBits: number;
  private readonly halfMask: number;

  constructor(
    readonly size: bigint,
    private readonly key: number,
  ) {
    if (size < 2n) throw new RangeError('a permutation needs at least two values');
    const bits = (size - 1n).toString(2).length;
    this.halfBits = Math.ceil(bits / 2);
    if (this.halfBits > 30) throw new RangeError('domain too large for this permutation');
    this.halfMask = 2 ** this.halfBits - 1;
  }

  forward(value: bigint): bigint {
    this.assertInRange(value);
    let x = value;
    do x = this.encrypt(x);
    while (x >= this.size);
    return x;
  }

  inverse(value: bigint): bigint {
    this.assertInRange(value);
    let x = value;
    do x = this.decrypt(x);
    while (x >= this.size);
    return x;
  }

  private encrypt(value: bigint): bigint {
    let [left, right] = this.split(value);
    for (let round = 0; round < ROUNDS; round++) [left, right] = [right, (left ^ this.round(right, round)) >>> 0];
    return this.join(left, right);
  }

  private decrypt(value: bigint): bigint {
    let [left, right] = this.split(value);
    for (let round = ROUNDS - 1; round >= 0; round--) [left, right] = [(right ^ this.round(left, round)) >>> 0, left];
    return this.join(left, right);
  }

  private round(half: number, round: number): number {
    return mix32(half ^ mix32(this.key + round * 0x9e3779b9)) & this.halfMask;
  }

  private split(value: bigint): [number, number] {
    return [Number(value >> BigInt(this.halfBits)), Number(value & BigInt(this.halfMask))];
  }

  private join(left: number, right: number): bigint {
    return (BigInt(left) << BigInt(this.halfBits)) | BigInt(right);
  }

  private assertInRange(value: bigint): void {
    if (value < 0n || value >= this.size) throw new RangeError(`${value} is outside the permutation's range`);
  }
}

/** Four rounds: the ids only have to look unrelated, not resist cryptanalysis. */
const ROUNDS = 4;
