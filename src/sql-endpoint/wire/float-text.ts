/**
 * float4/float8 text output as PostgreSQL 12+ prints it with extra_float_digits = 1 (the default):
 * the shortest decimal that reads back as the same value (Ryu), in printf's %g layout: fixed for
 * decimal exponents -4..14 (float8) or -4..5 (float4), otherwise d.ddde+XX. Drivers parse these
 * back into doubles, so anything longer or shorter would change the values a BI tool shows.
 */

export function formatFloat8(value: number): string {
  const special = specialText(value);
  if (special !== undefined) return special;
  // Number#toString is the shortest round-trip decimal, the closest one when several are as short (ECMA-262 Number::toString).
  return layout(value < 0, decompose(Math.abs(value).toString()), 15);
}

export function formatFloat4(value: number): string {
  const single = Math.fround(value);
  const special = specialText(single);
  if (special !== undefined) return special;
  const magnitude = Math.abs(single);
  const interval = roundingInterval(magnitude);
  for (let precision = 1; precision <= 9; precision++) {
    // The correctly rounded decimal of that many digits; failing that a neighbour (at a power of two the
    // interval is lopsided, and only the one beyond the value can be in it).
    const [mantissa = '', exponent = '0'] = magnitude.toExponential(precision - 1).split('e');
    const nearest = BigInt(mantissa.replace('.', ''));
    const scale = Number(exponent) - (precision - 1);
    for (const digits of [nearest, nearest + 1n, nearest - 1n])
      if (inside(digits, scale, interval)) return layout(single < 0, decompose(`${digits}e${scale}`), 6);
  }
  return layout(single < 0, decompose(magnitude.toExponential(8)), 6);
}

/**
 * The decimals that read back as this float4 under round-half-even: value * 4 +- the half gaps to its
 * neighbours, in units of 2^exponent. Checked exactly: reading a decimal as a double and then as a
 * float rounds twice, and at 7.038531e-26 that finds a digit fewer than PostgreSQL prints.
 */
interface Interval {
  readonly low: bigint;
  readonly high: bigint;
  readonly exponent: number;
  readonly inclusive: boolean;
}

function roundingInterval(value: number): Interval {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, value);
  const bits = view.getUint32(0);
  const biased = (bits >>> 23) & 0xff;
  const fraction = bits & 0x7fffff;
  const mantissa = BigInt(biased === 0 ? fraction : fraction | 0x800000);
  const exponent = (biased === 0 ? -149 : biased - 150) - 2;
  // Just above a power of two the gap below is half the gap above.
  const lowGap = fraction === 0 && biased > 1 ? 1n : 2n;
  return { low: 4n * mantissa - lowGap, high: 4n * mantissa + 2n, exponent, inclusive: mantissa % 2n === 0n };
}

/** Whether digits * 10^scale lies in the interval. */
function inside(digits: bigint, scale: number, { low, high, exponent, inclusive }: Interval): boolean {
  const decimal = digits * 10n ** BigInt(Math.max(scale, 0)) * 2n ** BigInt(Math.max(-exponent, 0));
  const unit = 2n ** BigInt(Math.max(exponent, 0)) * 10n ** BigInt(Math.max(-scale, 0));
  const [from, to] = [low * unit, high * unit];
  return inclusive ? decimal >= from && decimal <= to : decimal > from && decimal < to;
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
