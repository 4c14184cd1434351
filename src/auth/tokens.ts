import crypto from 'node:crypto';
import type { Scope } from '../config/config.js';
import { decodeCanonicalBase64url } from '../shared/base64url.js';

/**
 * Access tokens are self-contained and HMAC-signed, so verifying one costs no database
 * round trip (issue 2, rule 6). Format: `v1.<base64url(payload)>.<base64url(hmac)>`.
 */
export interface TokenClaims {
  readonly clientId: string;
  readonly organizationId: number;
  readonly scopes: readonly Scope[];
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

interface WireClaims {
  cid: string;
  org: number;
  scp: string[];
  iat: number;
  exp: number;
}

const PREFIX = 'v1';

export function signToken(claims: TokenClaims, key: Buffer): string {
  const wire: WireClaims = {
    cid: claims.clientId,
    org: claims.organizationId,
    scp: [...claims.scopes],
    iat: claims.issuedAt,
    exp: claims.expiresAt,
  };
  const body = `${PREFIX}.${Buffer.from(JSON.stringify(wire)).toString('base64url')}`;
  return `${body}.${mac(body, key).toString('base64url')}`;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

export function verifyToken(token: string, key: Buffer, nowSeconds: number): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) return { ok: false, reason: 'malformed' };
  // One token, one spelling: padding, the standard alphabet or stray low bits would each make
  // another string that decodes to the same signed bytes.
  const payload = decodeCanonicalBase64url(parts[1]!);
  const given = decodeCanonicalBase64url(parts[2]!);
  if (!payload || !given) return { ok: false, reason: 'malformed' };
  const expected = mac(`${parts[0]}.${parts[1]}`, key);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
  let wire: WireClaims;
  try {
    wire = JSON.parse(payload.toString('utf8')) as WireClaims;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof wire.exp !== 'number' || wire.exp <= nowSeconds) return { ok: false, reason: 'expired' };
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
