/**
 * Characters as the OpenAPI document's maxLength counts them (JSON Schema: Unicode code points),
 * and as zod's max() does: an emoji is one character, not the two UTF-16 units of String#length.
 * For the limits checked by hand.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
