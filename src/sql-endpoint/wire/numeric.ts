/**
 * numeric as exact decimal text and in PostgreSQL's binary layout (numeric_send/numeric_recv):
 * int16 ndigits, int16 weight, uint16 sign, int16 dscale, then ndigits base-10000 digits, the first
 * one weighing 10000^weight. Values never pass through a double: a numeric is money here.
 */

/** A finite decimal: its unscaled digits (no leading zeros; '' is zero) and how many of them are fraction. */
export interface Decimal {
  readonly kind: 'finite';
  readonly negative: boolean;
  readonly digits: string;
  readonly scale: number;
}

export type NumericValue = Decimal | { readonly kind: 'NaN' | 'Infinity' | '-Infinity' };

const DECIMAL = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;
const SPECIAL = /^\s*([+-]?)(nan|inf|infinity)\s*$/i;
/** PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE: a larger exponent is an overflow there too. */
const MAX_SCALE = 16383;

/** Parses decimal text as numeric_in reads it (sign, digits, point, exponent; NaN, Infinity); undefined when it is not one. */
export function parseNumeric(text: string): NumericValue | undefined {
  const special = SPECIAL.exec(text);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return special[1] === '' ? { kind: 'NaN' } : undefined;
    return { kind: special[1] === '-' ? '-Infinity' : 'Infinity' };
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, integer = '', fraction = '', exponentText] = match;
  if (integer === '' && fraction === '') return undefined;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  let scale = fraction.length - exponent;
  let digits = integer + fraction;
  if (scale < 0) {
    if (-scale > MAX_SCALE * 8) return undefined;
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  if (scale > MAX_SCALE) return undefined;
  digits = digits.replace(/^0+/, '');
  // numeric has no negative zero.
  return { kind: 'finite', negative: sign === '-' && digits !== '', digits, scale };
}

/** numeric_out's text: no exponent, exactly `scale` fraction digits. */
export function formatNumeric(value: NumericValue): string {
  if (value.kind !== 'finite') return value.kind;
  const { digits, scale } = value;
  const padded = digits.padStart(scale + 1, '0');
  const integer = padded.slice(0, padded.length - scale);
  const text = scale > 0 ? `${integer}.${padded.slice(padded.length - scale)}` : integer;
  return value.negative ? `-${text}` : text;
}

const SIGN = { positive: 0x0000, negative: 0x4000, NaN: 0xc000, Infinity: 0xd000, '-Infinity': 0xf000 } as const;
/** What numeric_send writes as the dscale of the infinities (the header's unused bits); numeric_recv ignores it. */
const SPECIAL_DSCALE = { NaN: 0, Infinity: 0x20, '-Infinity': 0x20 } as const;

export function encodeNumericBinary(value: NumericValue): Buffer {
  if (value.kind !== 'finite') {
    const out = Buffer.alloc(8);
    out.writeUInt16BE(SIGN[value.kind], 4);
    out.writeUInt16BE(SPECIAL_DSCALE[value.kind], 6);
    return out;
  }
  const { digits, scale } = value;
  const integerLength = Math.max(0, digits.length - scale);
  const integer = digits.slice(0, integerLength);
  const fraction = digits.slice(integerLength).padStart(scale, '0');
  // Base-10000 groups line up on the decimal point: pad the integer part on the left, the fraction on the right.
  const integerGroups = Math.ceil(integer.length / 4);
  const aligned = integer.padStart(integerGroups * 4, '0') + fraction.padEnd(Math.ceil(fraction.length / 4) * 4, '0');
  const groups: number[] = [];
  for (let i = 0; i < aligned.length; i += 4) groups.push(Number(aligned.slice(i, i + 4)));
  let weight = integerGroups - 1;
  let first = 0;
  while (first < groups.length && groups[first] === 0) {
    first++;
    weight--;
  }
  let end = groups.length;
  while (end > first && groups[end - 1] === 0) end--;
  const kept = groups.slice(first, end);
  const out = Buffer.alloc(8 + kept.length * 2);
  out.writeInt16BE(kept.length, 0);
  out.writeInt16BE(kept.length === 0 ? 0 : weight, 2);
  out.writeUInt16BE(value.negative ? SIGN.negative : SIGN.positive, 4);
  out.writeInt16BE(scale, 6);
  kept.forEach((group, i) => out.writeInt16BE(group, 8 + i * 2));
  return out;
}

/** numeric_recv: validates as PostgreSQL does and drops digits beyond dscale (it truncates them too). */
export function decodeNumericBinary(bytes: Buffer): NumericValue {
  if (bytes.length < 8) throw new RangeError('numeric: fewer than 8 bytes');
  const count = bytes.readInt16BE(0);
  const weight = bytes.readInt16BE(2);
  const sign = bytes.readUInt16BE(4);
  const scale = bytes.readInt16BE(6);
  if (count < 0 || bytes.length !== 8 + count * 2) throw new RangeError('numeric: length does not match ndigits');
  switch (sign) {
    case SIGN.NaN:
      return { kind: 'NaN' };
    case SIGN.Infinity:
      return { kind: 'Infinity' };
    case SIGN['-Infinity']:
      return { kind: '-Infinity' };
    case SIGN.positive:
    case SIGN.negative:
      break;
    default:
      throw new RangeError('numeric: invalid sign');
  }
  if (scale < 0 || scale > MAX_SCALE) throw new RangeError('numeric: invalid scale');
  let text = '';
  for (let i = 0; i < count; i++) {
    const group = bytes.readInt16BE(8 + i * 2);
    if (group < 0 || group > 9999) throw new RangeError('numeric: invalid digit');
    text += String(group).padStart(4, '0');
  }
  // `text` is groups weight, weight-1, ...: digit positions 4*(weight+1) before the point.
  const pointAt = 4 * (weight + 1);
  const integer = pointAt <= 0 ? '' : text.slice(0, pointAt).padEnd(pointAt, '0');
  const fraction = (pointAt < 0 ? '0'.repeat(-pointAt) + text : text.slice(Math.max(0, pointAt)))
    .slice(0, scale)
    .padEnd(scale, '0');
  const digits = (integer + fraction).replace(/^0+/, '');
  return { kind: 'finite', negative: sign === SIGN.negative && digits !== '', digits, scale };
}
