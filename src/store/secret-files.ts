import fs from 'node:fs';

/**
 * Files that hold the service's secrets (the token keys, the webhook key, the TLS pair) beside
 * the database: made only by this process (O_EXCL, 0600, directory 0700), read only when they
 * are this user's alone. Used by auth, webhooks and http (issue 36 item 8).
 */

/** What a key file, a TLS pair or their directory was found to be (lstat, or fstat of the opened file). */
export interface FoundEntry {
  readonly kind: 'file' | 'directory' | 'symlink' | 'other';
  readonly uid: number;
  readonly mode: number;
}

const SYMLINK_PROBLEM = 'it is a symbolic link, which another user may have planted';

/**
 * Pure: why an entry may not hold this service's secrets, or undefined when it may. It must be
 * a file (or directory) of the service's own user, not a symbolic link (another user's, planted
 * at the name), and neither readable nor writable by group or others (`othersMayRead` allows read
 * bits: a certificate is public, its integrity is what matters).
 */
export function ownershipProblem(
  found: FoundEntry,
  expected: { readonly kind: 'file' | 'directory'; readonly uid: number; readonly othersMayRead?: boolean },
): string | undefined {
  if (found.kind === 'symlink') return SYMLINK_PROBLEM;
  if (found.kind !== expected.kind) return `it is not a ${expected.kind === 'file' ? 'regular file' : 'directory'}`;
  if (found.uid !== expected.uid)
    return `it is owned by uid ${found.uid}, not by this service's user (uid ${expected.uid}): another user may have made it`;
  const loose = found.mode & (expected.othersMayRead ? 0o022 : 0o077);
  if (loose !== 0)
    return `its mode ${(found.mode & 0o777).toString(8).padStart(4, '0')} lets group or others ${loose & 0o022 ? 'write' : 'read'} it`;
  return undefined;
}

/** A key file, a TLS pair or a directory of them that is not the service's alone: the start stops with this one line. */
export class UnsafeFileError extends Error {
  constructor(target: string, problem: string, fix: string) {
    super(`refusing ${target}: ${problem}; ${fix.replaceAll('{file}', target)}`);
    this.name = 'UnsafeFileError';
  }
}

export interface SecretFileOptions {
  /** What to do about a refused file, for the error line; `{file}` stands for its path. */
  readonly fix: string;
  readonly othersMayRead?: boolean;
}

const processUid = (): number => process.getuid?.() ?? -1;

function entryOf(stat: fs.Stats): FoundEntry {
  const kind = stat.isSymbolicLink() ? 'symlink' : stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other';
  return { kind, uid: stat.uid, mode: stat.mode };
}

/**
 * Reads a secret file, or undefined when there is none. Opened without following a symbolic
 * link (O_NOFOLLOW) and judged by fstat of the opened descriptor, so what was checked is what is
 * read. Throws UnsafeFileError for a file that is not the service's alone.
 */
export function readSecretFile(file: string, options: SecretFileOptions): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnsafeFileError(file, SYMLINK_PROBLEM, options.fix);
    throw error;
  }
  try {
    const problem = ownershipProblem(entryOf(fs.fstatSync(fd)), {
      kind: 'file',
      uid: processUid(),
      othersMayRead: options.othersMayRead,
    });
    if (problem) throw new UnsafeFileError(file, problem, options.fix);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Creates a secret file owner-only (0600) if there is none: O_EXCL, so a file or a symbolic link
 * another user put at the name first is never written through or adopted. False when the name
 * exists (the caller reads it, with its checks).
 */
export function createSecretFile(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeFileSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * A directory for secrets (the TLS pair): made 0700 if missing; an existing one must be the
 * service's own, not a symbolic link, and closed to group and others.
 */
export function ensureSecretDirectory(dir: string, options: SecretFileOptions): 'created' | 'existing' {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
    return 'created';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const problem = ownershipProblem(entryOf(fs.lstatSync(dir)), { kind: 'directory', uid: processUid() });
  if (problem) throw new UnsafeFileError(dir, problem, options.fix);
  return 'existing';
}

/** Why a directory is not safe to adopt secrets from (another user could have put them there), or undefined. */
export function sharedDirectoryProblem(dir: string): string | undefined {
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!stat) return 'it does not exist';
  const found = entryOf(stat);
  if (found.kind !== 'directory') return ownershipProblem(found, { kind: 'directory', uid: processUid() });
  if ((stat.mode & 0o1000) !== 0) return 'it is a shared (sticky) directory, where any user may create files';
  if (found.uid !== processUid() && found.uid !== 0) return `it is owned by uid ${found.uid}, another user`;
  if ((stat.mode & 0o022) !== 0) return 'group or others may create files in it';
  return undefined;
}
