import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where the admin socket of a database file lives: `<db>.admin.sock` beside the file. A Unix
 * socket path is limited to 107 bytes on Linux and 103 on macOS (sun_path), so a longer one is
 * bound under a private directory of this user (`$XDG_RUNTIME_DIR`, else `<tmp>/adreport-<uid>`,
 * mode 0700) with a hashed name, and `<db>.admin.sock` is a symbolic link to it: one name to
 * look for, whatever TMPDIR the CLI has.
 */
export const MAX_SOCKET_PATH_BYTES = 103;

export function adminSocketName(dbPath: string): string {
  return `${path.resolve(dbPath)}.admin.sock`;
}

/** The path to bind: the name itself, or a short one under the user's private directory when the name is too long. */
export function socketBindPath(dbPath: string, env: NodeJS.ProcessEnv): string {
  const name = adminSocketName(dbPath);
  if (Buffer.byteLength(name) <= MAX_SOCKET_PATH_BYTES) return name;
  const hashed = `adreport-${crypto.createHash('sha256').update(name).digest('hex').slice(0, 20)}.sock`;
  return path.join(privateDirectory(env), hashed);
}

/** The socket a server of this file listens on, if one is there (it may be a leftover). */
export function locateAdminSocket(dbPath: string): string | undefined {
  const name = adminSocketName(dbPath);
  const entry = lstat(name);
  if (entry?.isSocket()) return name;
  if (entry?.isSymbolicLink()) {
    const target = fs.readlinkSync(name);
    return lstat(target)?.isSocket() ? target : undefined;
  }
  return undefined;
}

/**
 * Removes the socket (and the link to it) of this file. Only the process holding the database
 * file may call it: then no live server answers on that socket. Anything that is not a socket or
 * a link to one is left alone.
 */
export function removeAdminSocket(dbPath: string): void {
  const name = adminSocketName(dbPath);
  const entry = lstat(name);
  if (entry?.isSymbolicLink()) {
    const target = fs.readlinkSync(name);
    if (lstat(target)?.isSocket()) fs.rmSync(target, { force: true });
    fs.rmSync(name, { force: true });
  } else if (entry?.isSocket()) {
    fs.rmSync(name, { force: true });
  }
}

/** Points `<db>.admin.sock` at a socket bound elsewhere. */
export function linkAdminSocket(dbPath: string, boundPath: string): void {
  const name = adminSocketName(dbPath);
  if (boundPath !== name) fs.symlinkSync(boundPath, name);
}

/**
 * A directory only this user can enter. `$XDG_RUNTIME_DIR` is one by definition (checked anyway);
 * the one made under the temp directory is checked, not trusted: another user could have made it
 * first in a shared /tmp.
 */
function privateDirectory(env: NodeJS.ProcessEnv): string {
  const uid = process.getuid?.() ?? 0;
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime) && isPrivate(runtime, uid) && Buffer.byteLength(runtime) < 60) return runtime;
  const tmp = Buffer.byteLength(os.tmpdir()) < 60 ? os.tmpdir() : '/tmp';
  const dir = path.join(tmp, `adreport-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (!isPrivate(dir, uid))
    throw new Error(`${dir} is not a directory only this user can enter; remove it or set XDG_RUNTIME_DIR`);
  return dir;
}

function isPrivate(dir: string, uid: number): boolean {
  const entry = lstat(dir);
  return entry !== undefined && entry.isDirectory() && entry.uid === uid && (entry.mode & 0o077) === 0;
}

function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}
