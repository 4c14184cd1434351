import crypto from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2 = promisify(crypto.pbkdf2);

/**
 * SCRAM-SHA-256 verifiers of client secrets (RFC 5802, RFC 7677), for the SQL endpoint's
 * PostgreSQL authentication (issue 41): the server keeps StoredKey and ServerKey, never the
 * secret, and learns nothing it could replay. Stored in PostgreSQL's own text form
 * (`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64), beside the scrypt hash
 * the token endpoint checks: the two checks are different protocols over the same secret.
 */
export interface ScramVerifier {
  readonly salt: string;
  readonly iterations: number;
  readonly storedKey: string;
  readonly serverKey: string;
}

/** PostgreSQL's default (scram_iterations): what libpq and every driver expect to compute in a few ms. */
const ITERATIONS = 4096;

export async function scramVerifierOf(secret: string, salt = crypto.randomBytes(16)): Promise<string> {
  const salted = await pbkdf2(secret.normalize('NFKC'), salt, ITERATIONS, 32, 'sha256');
  const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = crypto.createHash('sha256').update(clientKey).digest();
  const serverKey = crypto.createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${ITERATIONS}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

export function parseScramVerifier(text: string): ScramVerifier | undefined {
  const match = /^SCRAM-SHA-256\$(\d+):([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)$/.exec(text);
  if (!match) return undefined;
  return { iterations: Number(match[1]), salt: match[2]!, storedKey: match[3]!, serverKey: match[4]! };
}
