import crypto from 'node:crypto';
import fs from 'node:fs';
import { createKeyFile, readKeyFile, withKeyFileLock, writeKeyFile, type KeyFile, type StoredKey } from './key-file.js';
import type { TokenKeyLookup, TokenSigningKey, TokenVerificationKey } from './tokens.js';

/** What the token issuer and the authenticator need: the key that signs, and the key of a key id. */
export interface TokenKeys {
  signingKey(): TokenSigningKey;
  readonly verificationKey: TokenKeyLookup;
}

/** Key ids come from the secret, so a key given by environment variable needs no id of its own. */
export function keyIdOf(secret: Buffer): string {
  return crypto.createHmac('sha256', secret).update('adreport token key id').digest('base64url').slice(0, 8);
}

export function newStoredKey(now: Date): StoredKey {
  const secret = crypto.randomBytes(32);
  return { kid: keyIdOf(secret), secret: secret.toString('base64url'), createdAt: now.toISOString(), retiredAt: null };
}

export interface RotationResult {
  readonly keyFile: string;
  readonly signingKeyId: string;
  /** Retired keys still verifying the tokens they signed, and until when. */
  readonly verifying: ReadonlyArray<{ keyId: string; retiredAt: string; verifiesUntil: string }>;
  /** Retired keys removed because every token they signed has expired (or --drop-previous). */
  readonly dropped: readonly string[];
}

/**
 * Rotation as a pure step: the signing key retires, a new one signs. A retired key is dropped
 * once a token lifetime has passed since it retired (every token it signed has expired by then),
 * or at once with `dropPrevious` (a leaked key: its tokens stop working now).
 */
export function rotated(
  keys: KeyFile | undefined,
  now: Date,
  ttlSeconds: number,
  dropPrevious = false,
): { keys: KeyFile; dropped: string[] } {
  const nowIso = now.toISOString();
  const retired = (keys?.keys ?? []).map((k) => (k.retiredAt === null ? { ...k, retiredAt: nowIso } : k));
  const kept = retired.filter((k) => !dropPrevious && Date.parse(k.retiredAt!) + ttlSeconds * 1000 > now.getTime());
  const dropped = retired.filter((k) => !kept.includes(k)).map((k) => k.kid);
  return { keys: { format: 'adreport-token-keys/1', keys: [newStoredKey(now), ...kept] }, dropped };
}

/**
 * `adreport keys rotate`, and what a running server calls for it: rotates the key file under its
 * lock. A server re-reads the file within its refresh interval (keyFileRefreshMs, 1 s).
 */
export function rotateSigningKeys(
  keyFile: string,
  options: { now: Date; ttlSeconds: number; dropPrevious?: boolean },
): RotationResult {
  return withKeyFileLock(keyFile, () => {
    const { keys, dropped } = rotated(readKeyFile(keyFile), options.now, options.ttlSeconds, options.dropPrevious);
    writeKeyFile(keyFile, keys);
    return {
      keyFile,
      signingKeyId: keys.keys[0]!.kid,
      verifying: keys.keys
        .filter((k) => k.retiredAt !== null)
        .map((k) => ({
          keyId: k.kid,
          retiredAt: k.retiredAt!,
          verifiesUntil: new Date(Date.parse(k.retiredAt!) + options.ttlSeconds * 1000).toISOString(),
        })),
      dropped,
    };
  });
}

/**
 * Migration 8: the signing key that releases before kept in the database table server_keys. It
 * moves to the key file retired, not signing: it sat in a file readable by anyone who could read
 * the database, and DuckDB may keep its bytes in free blocks after the row is gone. So it
 * verifies only the (v1) tokens issued before, for one token lifetime, and a new key signs.
 */
export function importLegacyKey(keyFile: string, secretHex: string, now: Date): void {
  const secret = Buffer.from(secretHex, 'hex');
  if (secret.length < 32 || secret.toString('hex') !== secretHex.toLowerCase())
    throw new Error('server_keys holds a token-signing key that is not 32+ bytes of hex');
  withKeyFileLock(keyFile, () => {
    const existing = readKeyFile(keyFile);
    const kid = keyIdOf(secret);
    if (existing?.keys.some((k) => k.kid === kid)) return;
    const legacy: StoredKey = {
      kid,
      secret: secret.toString('base64url'),
      createdAt: now.toISOString(),
      retiredAt: now.toISOString(),
      acceptsV1: true,
    };
    const keys = existing ? [...existing.keys, legacy] : [newStoredKey(now), legacy];
    writeKeyFile(keyFile, { format: 'adreport-token-keys/1', keys });
  });
}

interface LoadedKey {
  readonly kid: string;
  readonly secret: Buffer;
  readonly verification: TokenVerificationKey;
  readonly acceptsV1: boolean;
}

interface Loaded {
  readonly signing: TokenSigningKey;
  readonly byKid: ReadonlyMap<string, LoadedKey>;
  readonly v1: TokenVerificationKey | undefined;
}

export interface KeyFileOptions {
  readonly keyFile: string;
  /** The token lifetime: a retired key verifies for this long after it retired. */
  readonly ttlSeconds: number;
  /** How often the file is checked for a rotation made by another process. */
  readonly refreshMs: number;
  readonly now: () => Date;
  readonly onError: (error: unknown) => void;
}

/**
 * The keys in memory: one signs, every key of the file verifies its own tokens (a retired one
 * within its limits). Re-read when the file changes, so `adreport keys rotate` run beside a
 * running server takes effect within refreshMs; a file that fails to parse keeps the old keys.
 */
export class SigningKeys implements TokenKeys {
  private timer: NodeJS.Timeout | undefined;
  private version = '';

  private constructor(
    private loaded: Loaded,
    private readonly options: KeyFileOptions | undefined,
  ) {}

  /** Opens the key file, making it with a new key on the first start. */
  static openFile(options: KeyFileOptions): SigningKeys {
    let file = readKeyFile(options.keyFile);
    if (!file) {
      // Made with link(), which never replaces a name: a file or link another user put there first is read (and refused) instead.
      createKeyFile(options.keyFile, { format: 'adreport-token-keys/1', keys: [newStoredKey(options.now())] });
      file = readKeyFile(options.keyFile);
      if (!file) throw new Error(`${options.keyFile} disappeared while it was made`);
    }
    const keys = new SigningKeys(fromFile(file, options.ttlSeconds), options);
    keys.version = fileVersion(options.keyFile);
    return keys;
  }

  /**
   * Keys from the environment (a secret store): ADREPORT_TOKEN_SIGNING_KEY signs,
   * ADREPORT_TOKEN_PREVIOUS_KEYS (comma-separated) only verify. Rotating means changing them and
   * restarting; the key file is not used.
   */
  static fromEnvironment(signing: string, previous: string | undefined): SigningKeys {
    const signingSecret = parseKeyMaterial(signing, 'ADREPORT_TOKEN_SIGNING_KEY');
    const keys = [
      signingSecret,
      ...(previous ?? '')
        .split(',')
        .filter((t) => t.trim() !== '')
        .map((t) => parseKeyMaterial(t.trim(), 'ADREPORT_TOKEN_PREVIOUS_KEYS')),
    ];
    const byKid = new Map<string, LoadedKey>();
    for (const secret of keys)
      byKid.set(keyIdOf(secret), { kid: keyIdOf(secret), secret, verification: { secret }, acceptsV1: false });
    return new SigningKeys(
      { signing: { kid: keyIdOf(signingSecret), secret: signingSecret }, byKid, v1: undefined },
      undefined,
    );
  }

  signingKey(): TokenSigningKey {
    return this.loaded.signing;
  }

  readonly verificationKey: TokenKeyLookup = (kid) =>
    kid === undefined ? this.loaded.v1 : this.loaded.byKid.get(kid)?.verification;

  /** Starts watching the file (no-op for keys from the environment). */
  start(): void {
    if (!this.options || this.timer) return;
    this.timer = setInterval(() => this.refresh(), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Re-reads the file if it changed since the last read; a server that rotated itself calls it at once. */
  refresh(): void {
    if (!this.options) return;
    try {
      const version = fileVersion(this.options.keyFile);
      if (version === this.version) return;
      const file = readKeyFile(this.options.keyFile);
      if (!file) throw new Error(`${this.options.keyFile} is gone; the server keeps the keys it has`);
      this.loaded = fromFile(file, this.options.ttlSeconds);
      this.version = version;
    } catch (error) {
      this.options.onError(error);
    }
  }
}

function fromFile(file: KeyFile, ttlSeconds: number): Loaded {
  const byKid = new Map<string, LoadedKey>();
  let signing: TokenSigningKey | undefined;
  let v1: TokenVerificationKey | undefined;
  for (const stored of file.keys) {
    const secret = Buffer.from(stored.secret, 'base64url');
    const retiredAt = stored.retiredAt === null ? undefined : Math.floor(Date.parse(stored.retiredAt) / 1000);
    const verification: TokenVerificationKey =
      retiredAt === undefined ? { secret } : { secret, issuedUntil: retiredAt, verifiesUntil: retiredAt + ttlSeconds };
    byKid.set(stored.kid, { kid: stored.kid, secret, verification, acceptsV1: stored.acceptsV1 === true });
    if (stored.retiredAt === null) signing = { kid: stored.kid, secret };
    if (stored.acceptsV1) v1 = verification;
  }
  return { signing: signing!, byKid, v1 };
}

/** Changes with every rename (inode) or rewrite (size, mtime); a link put in its place too (lstat). */
function fileVersion(file: string): string {
  const stat = fs.lstatSync(file);
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/** 32+ random bytes as hex (openssl rand -hex 32) or base64/base64url (openssl rand -base64 32); never echoed. */
export function parseKeyMaterial(text: string, variable: string): Buffer {
  let secret: Buffer | undefined;
  if (/^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0) secret = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text))
    secret = Buffer.from(text.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''), 'base64url');
  if (!secret || secret.length < 32)
    throw new Error(`${variable} must be at least 32 random bytes as hex or base64 (e.g. openssl rand -base64 32)`);
  return secret;
}
