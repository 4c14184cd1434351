import { createHash } from 'node:crypto';

/**
 * Strong entity-tags of provisioning resources (RFC 9110 8.8.3) and the check a conditional
 * write runs against them. A tag is a hash of the resource's representation as the API shows it,
 * not a stored version: the representation holds what other writers change too (an account's
 * links, a link's status set by a job, a platform account's name from a sync), and a hash of what
 * is shown changes exactly when any of it does, with nothing to keep in step.
 */

/** JSON with sorted keys and no undefined members, so one representation has one text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The strong ETag of a representation: `"` + 128 bits of its SHA-256 in base64url + `"`. */
export function representationTag(representation: unknown): string {
  const digest = createHash('sha256').update(canonicalJson(representation)).digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}

/**
 * What a conditional write asks (If-Match, If-None-Match), evaluated against the resource's
 * current tag inside the write's transaction; throws the 412 when the condition is false. The
 * services call it only for a resource that exists (a missing one is their 404).
 */
export type Precondition = (currentTag: string) => void;
