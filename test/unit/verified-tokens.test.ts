import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signToken, type TokenVerificationKey } from '../../src/auth/tokens.js';
import { VerifiedTokens } from '../../src/auth/verified-tokens.js';

/** The cache of verified tokens (issue 36 item 9) must answer exactly as verifying afresh would. */
describe('VerifiedTokens', () => {
  const kid = 'AbCd-_12';
  const secret = crypto.randomBytes(32);
  const claims = {
    clientId: 'adr_x',
    organizationId: 7,
    scopes: ['reporting' as const],
    issuedAt: 100,
    expiresAt: 200,
  };
  const token = signToken(claims, { kid, secret });
  const keyOf = (key: TokenVerificationKey) => (k: string | undefined) => (k === kid ? key : undefined);

  it('answers a token it verified with its claims until the token expires', () => {
    const cache = new VerifiedTokens();
    const keys = keyOf({ secret });
    expect(cache.verify(token, keys, 150)).toEqual({ ok: true, claims });
    expect(cache.size).toBe(1);
    expect(cache.verify(token, keys, 199)).toEqual({ ok: true, claims });
    expect(cache.verify(token, keys, 200)).toEqual({ ok: false, reason: 'expired' });
    expect(cache.size).toBe(0);
  });

  it('keeps nothing of a token that failed, and refuses a look-alike of one it keeps', () => {
    const cache = new VerifiedTokens();
    const keys = keyOf({ secret });
    const forged = signToken(claims, { kid, secret: crypto.randomBytes(32) });
    expect(cache.verify(forged, keys, 150)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(cache.size).toBe(0);
    expect(cache.verify(token, keys, 150).ok).toBe(true);
    expect(cache.verify(`${token}A`, keys, 150).ok).toBe(false);
  });

  it('forgets a token when its key is re-read (rotation), dropped, or past its verification limit', () => {
    const cache = new VerifiedTokens();
    expect(cache.verify(token, keyOf({ secret }), 150).ok).toBe(true);
    // The key file re-read: new key objects, so the token is verified again (and still good).
    expect(cache.verify(token, keyOf({ secret }), 150)).toEqual({ ok: true, claims });
    // Dropped by `keys rotate --drop-previous`.
    expect(cache.verify(token, () => undefined, 150)).toEqual({ ok: false, reason: 'unknown_key' });
    const retired = keyOf({ secret, issuedUntil: 120, verifiesUntil: 160 });
    expect(cache.verify(token, retired, 150).ok).toBe(true);
    expect(cache.verify(token, retired, 160)).toEqual({ ok: false, reason: 'expired' });
  });

  it('holds at most maxEntries tokens, dropping the oldest', () => {
    const cache = new VerifiedTokens(2);
    const keys = keyOf({ secret });
    const tokens = [1, 2, 3].map((i) => signToken({ ...claims, clientId: `adr_${i}` }, { kid, secret }));
    for (const t of tokens) expect(cache.verify(t, keys, 150).ok).toBe(true);
    expect(cache.size).toBe(2);
    for (const t of tokens) expect(cache.verify(t, keys, 150).ok).toBe(true);
  });
});
