import fs from 'node:fs';

/** A rename into `dir` is durable once the directory entry is on disk too: fsync the directory. */
export function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
