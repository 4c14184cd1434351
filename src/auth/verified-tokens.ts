import {
  verifyToken,
  type TokenCheck,
  type TokenClaims,
  type TokenKeyLookup,
  type TokenVerificationKey,
} from './tokens.js';

interface Entry {
  readonly claims: TokenClaims;
  readonly kid: string | undefined;
  /** The key object that verified it: a re-read key file makes new objects, and the entry stale. */
  readonly key: TokenVerificationKey;
}

/**
 * Tokens whose signature already checked out, so that a client's next requests (and, above all,
 * the flood of requests its bucket refuses: issue 36 item 9) cost a map lookup instead of two
 * base64url decodes, an HMAC and a JSON parse. Only the exact string that verified is found; the
 * expiry and the key's own limits are checked on every use, and an entry dies with its key
 * object (`adreport keys rotate` re-reads the file into new objects). Disabled clients and scopes
 * stay the authenticator's per-request checks.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 10_000) {}

  get size(): number {
    return this.entries.size;
  }

  verify(token: string, keys: TokenKeyLookup, nowSeconds: number): TokenCheck {
    const entry = this.entries.get(token);
    if (entry && keys(entry.kid) === entry.key) {
      const keyRetired = entry.key.verifiesUntil !== undefined && nowSeconds >= entry.key.verifiesUntil;
      if (!keyRetired && entry.claims.expiresAt > nowSeconds) return { ok: true, claims: entry.claims };
      this.entries.delete(token);
      return { ok: false, reason: 'expired' };
    }
    if (entry) this.entries.delete(token);
    const check = verifyToken(token, keys, nowSeconds);
    if (check.ok) this.remember(token, check.claims, keys);
    return check;
  }

  private remember(token: string, claims: TokenClaims, keys: TokenKeyLookup): void {
    // verifyToken accepted it, so it is `v2.<kid>.<claims>.<mac>` or `v1.<claims>.<mac>`.
    const kid = token.startsWith('v2.') ? token.split('.', 2)[1] : undefined;
    const key = keys(kid);
    if (!key) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, { claims, kid, key });
  }
}
