/**
 * float4/float8 text output as PostgreSQL 12+ prints it with extra_float_digits = 1 (the default):
 * Ryu's shortest decimal that reads back as the same value, in printf's %g layout: fixed for
 * decimal exponents -4..14 (float8) or -4..5 (float4), otherwise d.ddde+XX. Drivers parse these
 * back into doubles, so anything longer or shorter would change the values a BI tool shows.
 *
 * PostgreSQL's Ryu differs from JavaScript's Number#toString in one way: it never prints a decimal
 * that lies exactly halfway to the neighbouring float (its acceptBounds is false, so the text reads
 * back right even under a parser that does not round half to even): 1e23 is '9.999999999999999e+22'.
 */

export function formatFloat8(value: number): string {
  const special = specialText(value);
  if (special !== undefined) return special;
  const magnitude = Math.abs(value);
  // Number#toString: the shortest round-trip decimal, the closest when several are as short, ties to even.
  const shortest = decompose(magnitude.toString());
  if (mayLieOnBoundary(shortest) && !strictlyInside(shortest, binaryParts(magnitude, 64)))
    return layout(value < 0, shortestInside(magnitude, binaryParts(magnitude, 64), 17), 15);
  return layout(value < 0, shortest, 15);
}

export function formatFloat4(value: number): string {
  const single = Math.fround(value);
  const special = specialText(single);
  if (special !== undefined) return special;
  const magnitude = Math.abs(single);
  // Reading through a double first guesses the length cheaply; it can be off by one only next to a
  // boundary (double rounding), so the exact search starts a digit shorter.
  let guess = 1;
  while (guess < 9 && Math.fround(Number(magnitude.toExponential(guess - 1))) !== magnitude) guess++;
  return layout(single < 0, shortestInside(magnitude, binaryParts(magnitude, 32), 9, Math.max(1, guess - 1)), 6);
}

function specialText(value: number): string | undefined {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  return undefined;
}

/** Significant digits (no leading or trailing zeros) and the decimal exponent of the first one. */
interface Digits {
  readonly digits: string;
  readonly exponent: number;
}

/** Reads JavaScript's number text ('123.45', '1.5e-7', '1e+21') of a positive finite value. */
function decompose(text: string): Digits {
  const [mantissa = '', exponentText = '0'] = text.split('e');
  const dot = mantissa.indexOf('.');
  const integer = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const all = integer + (dot < 0 ? '' : mantissa.slice(dot + 1));
  const leadingZeros = /^0*/.exec(all)![0].length;
  return {
    digits: all.slice(leadingZeros).replace(/0+$/, ''),
    exponent: integer.length - 1 + Number(exponentText) - leadingZeros,
  };
}

/**
 * A boundary is (2m +- 1) * 2^j with 2m +- 1 odd and above 2^53, so a decimal D * 10^k can only be
 * one if its odd part is that large: for k >= 0, D * 5^k >= 2^53; for k < 0, 5^-k must divide D
 * and leave 2^53, which only 17 digits ending in 5 with k = -1 can. Everything else skips the
 * exact check (bigint arithmetic, ten times the cost of the formatting itself).
 */
function mayLieOnBoundary({ digits, exponent }: Digits): boolean {
  const scale = exponent - (digits.length - 1);
  if (scale >= 0) return Number(digits) * 5 ** scale >= 9e15;
  return scale === -1 && digits.length === 17 && digits.endsWith('5');
}

/** A positive finite float as 4 * mantissa * 2^exponent, with the gaps to the halfway points below and above. */
interface BinaryParts {
  readonly quarter: bigint;
  readonly low: bigint;
  readonly high: bigint;
  readonly exponent: number;
}

function binaryParts(value: number, bits: 32 | 64): BinaryParts {
  const view = new DataView(new ArrayBuffer(8));
  let biased: number;
  let fraction: bigint;
  let mantissa: bigint;
  let exponent: number;
  if (bits === 64) {
    view.setFloat64(0, value);
    const word = view.getBigUint64(0);
    biased = Number(word >> 52n);
    fraction = word & 0xfffffffffffffn;
    mantissa = biased === 0 ? fraction : fraction | 0x10000000000000n;
    exponent = biased === 0 ? -1074 : biased - 1075;
  } else {
    view.setFloat32(0, value);
    const word = view.getUint32(0);
    biased = word >>> 23;
    fraction = BigInt(word & 0x7fffff);
    mantissa = BigInt(biased === 0 ? word & 0x7fffff : (word & 0x7fffff) | 0x800000);
    exponent = biased === 0 ? -149 : biased - 150;
  }
  // Just above a power of two the gap below is half the gap above.
  const lowGap = fraction === 0n && biased > 1 ? 1n : 2n;
  return { quarter: 4n * mantissa, low: 4n * mantissa - lowGap, high: 4n * mantissa + 2n, exponent: exponent - 2 };
}

/** digits * 10^scale and the value's quarter-units as integers of one scale, for exact comparison. */
function commonScale(digits: bigint, scale: number, parts: BinaryParts): { decimal: bigint; unit: bigint } {
  const decimal = digits * 10n ** BigInt(Math.max(scale, 0)) * 2n ** BigInt(Math.max(-parts.exponent, 0));
  const unit = 2n ** BigInt(Math.max(parts.exponent, 0)) * 10n ** BigInt(Math.max(-scale, 0));
  return { decimal, unit };
}

function strictlyInside({ digits, exponent }: Digits, parts: BinaryParts): boolean {
  const { decimal, unit } = commonScale(BigInt(digits), exponent - (digits.length - 1), parts);
  return decimal > parts.low * unit && decimal < parts.high * unit;
}

/**
 * Ryu's answer by search: the fewest digits with a decimal strictly between the halfway points, the
 * closest to the value among those, ties to even. Candidates of each length are the correctly
 * rounded one and its two neighbours (at a power of two the interval is lopsided).
 */
function shortestInside(magnitude: number, parts: BinaryParts, maxDigits: number, fromDigits = 1): Digits {
  for (let precision = fromDigits; precision <= maxDigits; precision++) {
    const [mantissa = '', exponentText = '0'] = magnitude.toExponential(precision - 1).split('e');
    const nearest = BigInt(mantissa.replace('.', ''));
    const scale = Number(exponentText) - (precision - 1);
    let best: { digits: bigint; distance: bigint } | undefined;
    for (const digits of [nearest - 1n, nearest, nearest + 1n]) {
      const { decimal, unit } = commonScale(digits, scale, parts);
      if (digits <= 0n || decimal <= parts.low * unit || decimal >= parts.high * unit) continue;
      const offset = decimal - parts.quarter * unit;
      const distance = offset < 0n ? -offset : offset;
      if (!best || distance < best.distance || (distance === best.distance && digits % 2n === 0n))
        best = { digits, distance };
    }
    if (best) return decompose(`${best.digits}e${scale}`);
  }
  return decompose(magnitude.toExponential(maxDigits - 1));
}

function layout(negative: boolean, { digits, exponent }: Digits, scientificFrom: number): string {
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= scientificFrom) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const integerDigits = exponent + 1;
  if (digits.length <= integerDigits) return sign + digits.padEnd(integerDigits, '0');
  return `${sign}${digits.slice(0, integerDigits)}.${digits.slice(integerDigits)}`;
}
