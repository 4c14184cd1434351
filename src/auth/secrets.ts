import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

// OWASP's scrypt floor (N=2^17, r=8, p=1) costs ~128 MiB and ~300 ms here per check; 2^15 keeps
// a check near 80 ms, and verified secrets are cached in memory (credential-cache.ts) anyway.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;

export function newClientId(): string {
  return `adr_${crypto.randomBytes(12).toString('hex')}`;
}

/** 256 random bits in base64url: 43 characters of [A-Za-z0-9-_], inside RFC 3986's unreserved set, so no encoding step can alter a secret. */
export function newClientSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = crypto.randomBytes(SCRYPT.saltLength);
  const hash = await derive(secret, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltText, hashText] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashText, 'base64url');
  const actual = await derive(
    secret,
    Buffer.from(saltText, 'base64url'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return crypto.timingSafeEqual(actual, expected);
}

/** A hash of a secret nobody knows: checking an unknown client id costs as much as a known one. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashSecret(newClientSecret());
  return decoy;
}

function derive(secret: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  return scrypt(secret, salt, keyLength, { N, r, p, maxmem: 256 * N * r });
}
