import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { decodeCanonicalBase64url } from '../shared/base64url.js';
import { KEY_ID } from './tokens.js';
import { readSecretFile } from '../store/secret-files.js';
import { syncDirectory } from '../store/sync-directory.js';

/**
 * The token-signing keys live in a file beside the database, owner-only, never inside it: a
 * copy of the database (a backup, a file left readable) must not let anyone mint tokens.
 */
export function keyFilePathFor(dbPath: string): string {
  return `${path.resolve(dbPath)}.token-keys.json`;
}

const storedKeySchema = z.strictObject({
  kid: z.string().regex(KEY_ID),
  /** 32 random bytes, base64url. */
  secret: z
    .string()
    .refine(
      (text) => (decodeCanonicalBase64url(text)?.length ?? 0) >= 32,
      'must be at least 32 bytes of canonical base64url',
    ),
  createdAt: z.iso.datetime(),
  /** When the key stopped signing; null for the one key that signs. */
  retiredAt: z.iso.datetime().nullable(),
  /** The key moved out of the database (migration 8): it also verifies v1 tokens, which carry no key id. */
  acceptsV1: z.literal(true).optional(),
});

export const keyFileSchema = z
  .strictObject({
    format: z.literal('adreport-token-keys/1'),
    keys: z.array(storedKeySchema).min(1),
  })
  .refine(
    (file) => file.keys.filter((k) => k.retiredAt === null).length === 1,
    'exactly one key must have retiredAt null (the signing key)',
  )
  .refine((file) => new Set(file.keys.map((k) => k.kid)).size === file.keys.length, 'key ids must be unique');

export type StoredKey = z.infer<typeof storedKeySchema>;
export type KeyFile = z.infer<typeof keyFileSchema>;

/** What the start's error line says to do about a key file that is not the service's alone. */
export const KEY_FILE_FIX =
  "if it is not this service's, remove it and start again (a new key is made; tokens issued so far stop working); if it is, chmod 600 {file} and, since others could read it, rotate: adreport keys rotate --drop-previous";

/**
 * The file's keys, or undefined when there is no file; a file that does not parse is an error
 * naming it. A file another user owns, a symbolic link, or one group or others may read is
 * refused (UnsafeFileError): in a shared directory such as /tmp another user could have made it
 * first, and every token would be signed with a key they know.
 */
export function readKeyFile(file: string): KeyFile | undefined {
  const text = readSecretFile(file, { fix: KEY_FILE_FIX });
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(
      `${file} is not valid JSON; restore it from a backup, or move it away to start over with a new key (every token issued so far then stops working)`,
    );
  }
  const parsed = keyFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file} is not a token key file: ${issue.path.join('.') || 'file'} ${issue.message}`);
  }
  return parsed.data;
}

/** Replaces the file at once (a reader sees the old or the new file, never half of one), owner-only. */
export function writeKeyFile(file: string, keys: KeyFile): void {
  const temporary = writeTemporary(file, keys);
  fs.renameSync(temporary, file);
  syncDirectory(path.dirname(file));
}

/** Writes the file only if there is none; false when another process was first. */
export function createKeyFile(file: string, keys: KeyFile): boolean {
  const temporary = writeTemporary(file, keys);
  try {
    // link() fails when the name exists, so two first starts cannot both win.
    fs.linkSync(temporary, file);
    syncDirectory(path.dirname(file));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * Runs a read-modify-write of the key file under an exclusive lock file, so two rotations cannot
 * lose each other's key. A lock older than 30 s is a crashed writer's and is taken over.
 */
export function withKeyFileLock<T>(file: string, work: () => T): T {
  const lock = `${file}.lock`;
  let fd: number | undefined;
  for (let attempt = 0; fd === undefined; attempt++) {
    try {
      fd = fs.openSync(lock, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 30_000) fs.rmSync(lock, { force: true });
      else if (attempt >= 50)
        throw new Error(`${lock} is held by another key rotation; wait for it (or remove the lock if none is running)`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    return work();
  } finally {
    fs.closeSync(fd);
    fs.rmSync(lock, { force: true });
  }
}

function writeTemporary(file: string, keys: KeyFile): string {
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, `${JSON.stringify(keys, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return temporary;
}
