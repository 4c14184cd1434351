/** Content codings the service can apply to a response body. */
export type ContentCoding = 'br' | 'gzip';

export interface EncodingChoice {
  /** The coding to apply, or undefined for none (identity). */
  readonly coding: ContentCoding | undefined;
  /** The client refused identity (`identity;q=0`, or `*;q=0` without an identity entry): encode even a small body. */
  readonly identityRefused: boolean;
}

/**
 * Reads Accept-Encoding as RFC 9110 section 12.5.3 says: q-values count (0 refuses), `*` stands
 * for every coding not listed, `x-gzip` is gzip, identity is acceptable unless refused, an empty
 * header asks for identity only. Among acceptable codings the highest q wins, ties go to the
 * order of `preference`; identity wins only when listed with a higher q than the best coding.
 * When nothing acceptable can be made, the answer is identity anyway (RFC 7231 5.3.4: send the
 * response without a coding rather than fail it).
 */
export function chooseEncoding(header: string | undefined, preference: readonly ContentCoding[]): EncodingChoice {
  if (header === undefined) return { coding: undefined, identityRefused: false };
  const listed = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName = '', ...parameters] = part.split(';').map((p) => p.trim().toLowerCase());
    if (rawName === '') continue;
    const name = rawName === 'x-gzip' ? 'gzip' : rawName;
    const q = qValue(parameters);
    if (q === undefined) continue;
    // A coding listed twice keeps its most favourable weight.
    listed.set(name, Math.max(q, listed.get(name) ?? 0));
  }
  const star = listed.get('*');
  const qOf = (coding: string) => listed.get(coding) ?? star ?? 0;
  const identityQ = listed.has('identity') ? listed.get('identity')! : star === 0 ? 0 : undefined;
  let best: { coding: ContentCoding; q: number } | undefined;
  for (const coding of preference) {
    const q = qOf(coding);
    if (q > 0 && (best === undefined || q > best.q)) best = { coding, q };
  }
  const identityRefused = identityQ === 0;
  if (best === undefined || (identityQ !== undefined && identityQ > best.q))
    return { coding: undefined, identityRefused };
  return { coding: best.coding, identityRefused };
}

/** The weight of one entry: 1 without `q=`, undefined when `q=` is not a qvalue (the entry is ignored). */
function qValue(parameters: readonly string[]): number | undefined {
  const q = parameters.find((p) => p.startsWith('q='));
  if (q === undefined) return 1;
  const text = q.slice(2).trim();
  if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text)) return undefined;
  return Number(text);
}
