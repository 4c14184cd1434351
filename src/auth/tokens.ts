import crypto from 'node:crypto';
import type { Scope } from '../config/config.js';
import { decodeCanonicalBase64url } from '../shared/base64url.js';

/**
 * Access tokens are self-contained and HMAC-SHA256-signed, so verifying one costs no database
 * round trip (issue 2, rule 6). Format: `v2.<key id>.<base64url(claims)>.<base64url(hmac)>`,
 * the HMAC over everything before its dot; the key id picks the verification key, so a rotated
 * key keeps verifying its own tokens. `v1.<claims>.<hmac>` (no key id) is what releases before
 * key rotation issued; only the key migrated out of the database verifies it.
 */
export interface TokenClaims {
  readonly clientId: string;
  readonly organizationId: number;
  readonly scopes: readonly Scope[];
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

/** The key that signs new tokens. */
export interface TokenSigningKey {
  readonly kid: string;
  readonly secret: Buffer;
}

/** A key that verifies tokens, with the limits of a retired one (seconds since the epoch). */
export interface TokenVerificationKey {
  readonly secret: Buffer;
  /** Tokens claiming to be issued later are refused: the key had stopped signing by then. */
  readonly issuedUntil?: number;
  /** From this moment the key verifies nothing, whatever a token's own expiry says. */
  readonly verifiesUntil?: number;
}

/** Finds the key of a key id; `undefined` asks for the key of v1 tokens (if any still verifies them). */
export type TokenKeyLookup = (kid: string | undefined) => TokenVerificationKey | undefined;

interface WireClaims {
  cid: string;
  org: number;
  scp: string[];
  iat: number;
  exp: number;
}

/** 8 base64url characters are exactly 6 bytes: any text matching this is canonical. */
export const KEY_ID = /^[A-Za-z0-9_-]{8}$/;

export function signToken(claims: TokenClaims, key: TokenSigningKey): string {
  const wire: WireClaims = {
    cid: claims.clientId,
    org: claims.organizationId,
    scp: [...claims.scopes],
    iat: claims.issuedAt,
    exp: claims.expiresAt,
  };
  const body = `v2.${key.kid}.${Buffer.from(JSON.stringify(wire)).toString('base64url')}`;
  return `${body}.${mac(body, key.secret).toString('base64url')}`;
}

export type TokenCheck =
  { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' };

export function verifyToken(token: string, keys: TokenKeyLookup, nowSeconds: number): TokenCheck {
  const parts = token.split('.');
  let kid: string | undefined;
  if (parts[0] === 'v2' && parts.length === 4 && KEY_ID.test(parts[1]!)) kid = parts[1]!;
  else if (!(parts[0] === 'v1' && parts.length === 3)) return { ok: false, reason: 'malformed' };
  const [claimsText, macText] = parts.slice(-2) as [string, string];
  // One token, one spelling: padding, the standard alphabet or stray low bits would each make
  // another string that decodes to the same signed bytes.
  const payload = decodeCanonicalBase64url(claimsText);
  const given = decodeCanonicalBase64url(macText);
  if (!payload || !given) return { ok: false, reason: 'malformed' };
  const key = keys(kid);
  if (!key) return { ok: false, reason: 'unknown_key' };
  const expected = mac(parts.slice(0, -1).join('.'), key.secret);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad_signature' };
  let wire: WireClaims;
  try {
    wire = JSON.parse(payload.toString('utf8')) as WireClaims;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof wire.iat !== 'number' || typeof wire.exp !== 'number') return { ok: false, reason: 'malformed' };
  // A retired key: only what it signed before it retired, and only until then plus one token lifetime.
  if (key.issuedUntil !== undefined && wire.iat > key.issuedUntil) return { ok: false, reason: 'unknown_key' };
  if (key.verifiesUntil !== undefined && nowSeconds >= key.verifiesUntil) return { ok: false, reason: 'expired' };
  if (wire.exp <= nowSeconds) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    claims: {
      clientId: wire.cid,
      organizationId: wire.org,
      scopes: wire.scp as Scope[],
      issuedAt: wire.iat,
      expiresAt: wire.exp,
    },
  };
}

function mac(body: string, key: Buffer): Buffer {
  return crypto.createHmac('sha256', key).update(body).digest();
}
