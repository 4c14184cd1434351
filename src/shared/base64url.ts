const ALPHABET = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes base64url (RFC 4648 section 5) only in its canonical spelling: no padding, no `+` or
 * `/`, and zero in the unused low bits of the last character. Node's decoder accepts all of
 * those and maps several texts to the same bytes; a text that decodes must be the one text that
 * encodes those bytes, so re-encoding has to give it back.
 */
export function decodeCanonicalBase64url(text: string): Buffer | undefined {
  if (!ALPHABET.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
