/**
 * JSON request bodies as Unicode text (RFC 8259 sections 8.1 and 8.2). The WHATWG decoder that
 * `Request.text()` uses replaces bad bytes with U+FFFD, and JSON.parse turns `"\ud800"` into a
 * string no UTF-8 can store: either way the service kept something other than what was sent.
 * These functions find the first such place, as a byte offset into the body.
 */

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export type TextProblem =
  | { readonly kind: 'invalid_utf8'; readonly offset: number }
  | { readonly kind: 'lone_surrogate'; readonly offset: number; readonly escape: string };

/** The body as text (a leading byte order mark dropped), or where its bytes stop being UTF-8. */
export function decodeUtf8(bytes: Uint8Array): { text: string } | TextProblem {
  try {
    return { text: strictUtf8.decode(bytes) };
  } catch {
    return { kind: 'invalid_utf8', offset: firstInvalidUtf8(bytes) };
  }
}

/**
 * The offset of the first ill-formed sequence (Unicode table 3-7, well-formed byte sequences):
 * no overlong forms, no encoded surrogates, nothing beyond U+10FFFF. Only run once the decoder
 * has said there is one.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    // The second byte has the lead's own range; the later ones are plain continuation bytes.
    for (let k = 1; k < length; k++) {
      const byte = bytes[i + k];
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (byte === undefined || byte < min || byte > max) return i;
    }
    i += length;
  }
  return bytes.length;
}

const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/**
 * The first `\uXXXX` escape of a surrogate that is not half of a high-low pair. Run on a body
 * JSON.parse accepted, so every backslash starts an escape inside a string. The escapes are
 * ASCII, so scanning the bytes gives byte offsets directly.
 */
export function firstLoneSurrogateEscape(bytes: Uint8Array): TextProblem | undefined {
  let i = bytes.indexOf(BACKSLASH);
  while (i >= 0) {
    if (bytes[i + 1] !== LETTER_U) {
      // Two-character escape (\n, \", \\ ...): skip both, so `\\ud800` is no escape.
      i = bytes.indexOf(BACKSLASH, i + 2);
      continue;
    }
    const unit = hexUnit(bytes, i + 2);
    if (unit >= 0xdc00 && unit <= 0xdfff) return lone(bytes, i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = bytes[i + 6] === BACKSLASH && bytes[i + 7] === LETTER_U ? hexUnit(bytes, i + 8) : -1;
      if (!(next >= 0xdc00 && next <= 0xdfff)) return lone(bytes, i);
      i = bytes.indexOf(BACKSLASH, i + 12);
      continue;
    }
    i = bytes.indexOf(BACKSLASH, i + 6);
  }
  return undefined;
}

function lone(bytes: Uint8Array, offset: number): TextProblem {
  return { kind: 'lone_surrogate', offset, escape: String.fromCharCode(...bytes.subarray(offset, offset + 6)) };
}

/** The code unit of the four hex digits at `at`; JSON.parse has checked they are hex digits. */
function hexUnit(bytes: Uint8Array, at: number): number {
  return Number.parseInt(String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!), 16);
}
