import crypto from 'node:crypto';
import type { ScramVerifier } from './session.js';
import { SqlError } from './session.js';

/**
 * The server's half of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it (auth-scram.c):
 * the user name of the exchange is ignored (the startup packet's counts), channel binding is not
 * offered (so 'n' and 'y' are accepted and 'p' is refused), no authorization identity. Pure but
 * for the nonce: the caller does the message I/O.
 */

export const SCRAM_SHA_256 = 'SCRAM-SHA-256';

/** The server's state between its first message and the client's final one. */
export interface ScramExchange {
  readonly gs2Header: string;
  readonly clientFirstBare: string;
  readonly serverFirst: string;
  readonly nonce: string;
}

const malformed = (detail: string) => new SqlError('08P01', 'malformed SCRAM message', { detail, severity: 'FATAL' });

/** Reads client-first-message and answers server-first-message for that verifier. */
export function beginExchange(
  clientFirst: string,
  verifier: ScramVerifier,
  // 18 random bytes, as PostgreSQL's SCRAM_RAW_NONCE_LEN.
  serverNonce = crypto.randomBytes(18).toString('base64'),
): ScramExchange {
  const match = /^([^,]*),([^,]*),(.*)$/s.exec(clientFirst);
  if (!match) throw malformed('Comma expected in the GS2 header.');
  const [, binding = '', authzid = '', clientFirstBare = ''] = match;
  if (binding.startsWith('p='))
    throw malformed(
      'The client selected SCRAM-SHA-256 without channel binding, but the message includes channel binding data.',
    );
  if (binding !== 'n' && binding !== 'y') throw malformed(`Unexpected channel-binding flag "${binding}".`);
  if (authzid !== '')
    throw new SqlError('0A000', 'client uses authorization identity, but it is not supported', { severity: 'FATAL' });
  const attributes = clientFirstBare.split(',');
  if (attributes[0]?.startsWith('m='))
    throw new SqlError('0A000', 'client requires an unsupported SCRAM extension', { severity: 'FATAL' });
  if (!attributes[0]?.startsWith('n=')) throw malformed('Attribute "n" expected.');
  const clientNonce = attributes[1]?.startsWith('r=') ? attributes[1].slice(2) : '';
  if (!/^[\x21-\x2b\x2d-\x7e]+$/.test(clientNonce)) throw malformed('Attribute "r" expected, a printable nonce.');
  const nonce = clientNonce + serverNonce;
  const serverFirst = `r=${nonce},s=${verifier.salt},i=${verifier.iterations}`;
  return { gs2Header: `${binding},${authzid},`, clientFirstBare, serverFirst, nonce };
}

/**
 * Checks client-final-message's proof. Resolves with server-final-message, or undefined when the
 * proof is wrong (a wrong password, or a fake verifier's: the caller answers both the same way).
 */
export function finishExchange(
  exchange: ScramExchange,
  clientFinal: string,
  verifier: ScramVerifier,
): string | undefined {
  const proofAt = clientFinal.lastIndexOf(',p=');
  if (proofAt < 0) throw malformed('Attribute "p" expected.');
  const withoutProof = clientFinal.slice(0, proofAt);
  const attributes = withoutProof.split(',');
  const binding = attributes[0]?.startsWith('c=') ? Buffer.from(attributes[0].slice(2), 'base64') : undefined;
  if (!binding || !binding.equals(Buffer.from(exchange.gs2Header, 'utf8')))
    throw malformed('SCRAM channel binding check failed.');
  if (attributes[1] !== `r=${exchange.nonce}`) throw malformed('Nonce does not match.');
  const proof = Buffer.from(clientFinal.slice(proofAt + 3), 'base64');
  if (proof.length !== 32) throw malformed('Malformed proof in client-final-message.');

  const authMessage = `${exchange.clientFirstBare},${exchange.serverFirst},${withoutProof}`;
  const storedKey = Buffer.from(verifier.storedKey, 'base64');
  const clientSignature = hmac(storedKey, authMessage);
  const clientKey = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
  const computed = sha256(clientKey);
  if (storedKey.length !== 32 || !crypto.timingSafeEqual(computed, storedKey)) return undefined;
  return `v=${hmac(Buffer.from(verifier.serverKey, 'base64'), authMessage).toString('base64')}`;
}

/** PostgreSQL's default scram_iterations. */
export const DEFAULT_ITERATIONS = 4096;

/**
 * The verifier an unknown user is answered with (PostgreSQL's scram_mock_salt): the same salt for
 * the same name on every attempt, derived from a secret of this server, so that two attempts cannot
 * tell a user that does not exist from one that does. Its keys match no password.
 */
export function mockVerifier(user: string, serverSecret: Buffer): ScramVerifier {
  return {
    salt: hmac(serverSecret, `salt:${user}`).subarray(0, 16).toString('base64'),
    iterations: DEFAULT_ITERATIONS,
    storedKey: crypto.randomBytes(32).toString('base64'),
    serverKey: crypto.randomBytes(32).toString('base64'),
  };
}

/** A verifier for a password, as PostgreSQL's `SET password_encryption = 'scram-sha-256'` makes it. */
export function makeScramVerifier(
  password: string,
  options: { readonly salt?: Buffer; readonly iterations?: number } = {},
): ScramVerifier {
  const salt = options.salt ?? crypto.randomBytes(16);
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  const salted = crypto.pbkdf2Sync(saslPrep(password), salt, iterations, 32, 'sha256');
  return {
    salt: salt.toString('base64'),
    iterations,
    storedKey: sha256(hmac(salted, 'Client Key')).toString('base64'),
    serverKey: hmac(salted, 'Server Key').toString('base64'),
  };
}

/**
 * SASLprep (RFC 4013) as far as libpq applies it to a password: non-ASCII spaces become spaces,
 * the characters mapped to nothing go, NFKC; a result with prohibited characters means the raw
 * password is used, as libpq and the server both fall back. (Unassigned code points are not checked.)
 */
function saslPrep(password: string): string {
  if (/^[\x20-\x7e]*$/.test(password)) return password;
  let mapped = '';
  for (const char of password) {
    const code = char.codePointAt(0)!;
    if (MAPPED_TO_NOTHING.has(code)) continue;
    mapped += NON_ASCII_SPACES.has(code) || (code >= 0x2000 && code <= 0x200b) ? ' ' : char;
  }
  mapped = mapped.normalize('NFKC');
  return mapped === '' || [...mapped].some((char) => prohibited(char.codePointAt(0)!)) ? password : mapped;
}

/** RFC 3454 tables B.1 and C.1.2 (outside the U+2000..U+200B run). */
const MAPPED_TO_NOTHING = new Set([
  0xad,
  0x34f,
  0x1806,
  0x180b,
  0x180c,
  0x180d,
  0x200c,
  0x200d,
  0x2060,
  0xfeff,
  ...range(0xfe00, 0xfe0f),
]);
const NON_ASCII_SPACES = new Set([0xa0, 0x1680, 0x202f, 0x205f, 0x3000]);

/** RFC 3454 C.2 to C.9: controls, private use, non-characters, surrogates, bidi and tagging characters. */
function prohibited(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x6dd ||
    code === 0x70f ||
    code === 0x180e ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2063) ||
    (code >= 0x206a && code <= 0x206f) ||
    (code >= 0xd800 && code <= 0xf8ff) ||
    (code >= 0xfdd0 && code <= 0xfdef) ||
    (code >= 0xfff9 && code <= 0xfffd) ||
    (code & 0xfffe) === 0xfffe ||
    code >= 0xf0000 ||
    (code >= 0xe0001 && code <= 0xe007f)
  );
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function hmac(key: Buffer, data: string): Buffer {
  return crypto.createHmac('sha256', key).update(data, 'utf8').digest();
}

function sha256(data: Buffer): Buffer {
  return crypto.createHash('sha256').update(data).digest();
}
