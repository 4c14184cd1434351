import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FailureSlowdown } from '../../src/auth/failure-slowdown.js';
import { signToken, verifyToken } from '../../src/auth/tokens.js';
import { findUnencodedCharacter } from '../../src/http/middleware/query-encoding.js';
import { decodeCanonicalBase64url } from '../../src/shared/base64url.js';
import { TokenBuckets } from '../../src/shared/token-bucket.js';

describe('TokenBuckets', () => {
  it('allows the burst, refuses the next, and refills at the rate', () => {
    const buckets = new TokenBuckets(2, 3);
    const t0 = 1_000_000;
    expect([1, 2, 3].map(() => buckets.take('a', t0).allowed)).toEqual([true, true, true]);
    const refused = buckets.take('a', t0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(buckets.take('b', t0).allowed).toBe(true);
    expect(buckets.take('a', t0 + 500).allowed).toBe(true);
    expect(buckets.take('a', t0 + 500).allowed).toBe(false);
  });

  it('stays bounded in keys', () => {
    const buckets = new TokenBuckets(1, 1, 10);
    for (let i = 0; i < 100; i++) buckets.take(`k${i}`, 0);
    expect(buckets.size).toBeLessThanOrEqual(10);
  });
});

describe('FailureSlowdown', () => {
  it('is free for the first failures, then doubles up to the cap, and forgets after the window', () => {
    const slowdown = new FailureSlowdown({
      freeFailures: 2,
      baseDelayMs: 100,
      maxDelayMs: 350,
      windowMs: 1000,
      maxTracked: 10,
    });
    expect([0, 0, 0, 0, 0].map(() => slowdown.recordFailure('c', 0))).toEqual([0, 0, 100, 200, 350]);
    expect(slowdown.recordFailure('other', 0)).toBe(0);
    expect(slowdown.recordFailure('c', 5000)).toBe(0);
  });
});

describe('tokens', () => {
  const key = { kid: 'AbCd-_12', secret: crypto.randomBytes(32) };
  const only = (kid: string | undefined) => (kid === key.kid ? { secret: key.secret } : undefined);
  const claims = {
    clientId: 'adr_x',
    organizationId: 7,
    scopes: ['reporting' as const],
    issuedAt: 100,
    expiresAt: 200,
  };

  it('round-trip their claims until they expire, and name their key', () => {
    const token = signToken(claims, key);
    expect(token.split('.').slice(0, 2)).toEqual(['v2', 'AbCd-_12']);
    expect(verifyToken(token, only, 150)).toEqual({ ok: true, claims });
    expect(verifyToken(token, only, 200)).toEqual({ ok: false, reason: 'expired' });
  });

  it('reject a changed payload, another key and garbage', () => {
    const token = signToken(claims, key);
    const [v, kid, , sig] = token.split('.');
    const forged = `${v}.${kid}.${Buffer.from(JSON.stringify({ cid: 'adr_x', org: 8, scp: ['reporting'], iat: 100, exp: 200 })).toString('base64url')}.${sig}`;
    expect(verifyToken(forged, only, 150)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyToken(token, () => ({ secret: crypto.randomBytes(32) }), 150)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verifyToken(signToken(claims, { kid: 'Other123', secret: key.secret }), only, 150)).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
    expect(verifyToken('v2.abc', only, 150)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyToken('v2.toolongkid.abc.def', only, 150)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('verify with a retired key only what it signed before it retired, and only until its limit', () => {
    const retired = (kid: string | undefined) =>
      kid === key.kid ? { secret: key.secret, issuedUntil: 120, verifiesUntil: 180 } : undefined;
    expect(verifyToken(signToken(claims, key), retired, 150)).toEqual({ ok: true, claims });
    // Signed with the old key after it retired: only someone holding a leaked key does that.
    expect(verifyToken(signToken({ ...claims, issuedAt: 121 }, key), retired, 150)).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
    expect(verifyToken(signToken({ ...claims, expiresAt: 10_000 }, key), retired, 180)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('verify a v1 token (no key id) only with the key that verifies v1', () => {
    const body = `v1.${Buffer.from(JSON.stringify({ cid: 'adr_x', org: 7, scp: ['reporting'], iat: 100, exp: 200 })).toString('base64url')}`;
    const v1 = `${body}.${crypto.createHmac('sha256', key.secret).update(body).digest('base64url')}`;
    expect(verifyToken(v1, (kid) => (kid === undefined ? { secret: key.secret } : undefined), 150)).toEqual({
      ok: true,
      claims,
    });
    expect(verifyToken(v1, only, 150)).toEqual({ ok: false, reason: 'unknown_key' });
  });
});

describe('decodeCanonicalBase64url', () => {
  it('decodes the one spelling RFC 4648 section 5 gives without padding', () => {
    // 0xfb 0xff: base64 "+/8=", base64url "-_8" (written out by hand from the RFC's alphabet).
    expect(decodeCanonicalBase64url('-_8')).toEqual(Buffer.from([0xfb, 0xff]));
    expect(decodeCanonicalBase64url('')).toEqual(Buffer.alloc(0));
    expect(decodeCanonicalBase64url('YQ')).toEqual(Buffer.from('a'));
  });

  it.each([
    ['padding', '-_8='],
    ['double padding', 'YQ=='],
    ['the standard alphabet', '+/8'],
    ['unused low bits set ("YR" decodes to "a" as "YQ" does)', 'YR'],
    ['a length no bytes give', 'YQAAA'],
    ['whitespace', 'Y Q'],
  ])('refuses %s', (_name, text) => {
    expect(decodeCanonicalBase64url(text)).toBeUndefined();
  });
});

describe('findUnencodedCharacter', () => {
  it('accepts the RFC 3986 query set and percent escapes', () => {
    expect(findUnencodedCharacter("a=b&c=d;e:f@g/h?i!$'()*+,=~-._%20%5B")).toBeUndefined();
  });

  it.each([' ', '"', '<', '>', '[', ']', '{', '}', '|', '\\', '^', '`', '%', '%2', '%g0', 'é'])('finds %j', (ch) => {
    expect(findUnencodedCharacter(`x=1&y=${ch}`)).toEqual({ index: 6, character: ch[0] });
  });
});
