import fs from 'node:fs';
import path from 'node:path';

/**
 * The database, its WAL and DuckDB's spill directory hold every tenant's data and are readable
 * by whoever can read them: they are the owner's alone. DuckDB creates them with the process
 * umask and no per-file setting (the WAL again after every checkpoint), so a process that opens
 * a database creates files owner-only from then on (umask 077); what exists already is tightened.
 */
export function secureDatabaseFiles(dbPath: string): void {
  process.umask(0o077);
  const dir = path.dirname(dbPath);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
  for (const file of [dbPath, `${dbPath}.wal`]) tighten(file, 0o600);
  tighten(`${dbPath}.tmp`, 0o700);
}

/**
 * Takes group and other bits away from a file or directory the process owns. Left alone: what
 * does not exist, what another user owns (chmod would fail), and sticky directories (/tmp and
 * the like are shared on purpose; a database directly in one still gets owner-only files).
 */
export function tighten(target: string, mode: 0o600 | 0o700): void {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat || (stat.mode & 0o077) === 0) return;
  if (process.getuid && stat.uid !== process.getuid()) return;
  if (stat.isDirectory() && (stat.mode & 0o1000) !== 0) return;
  fs.chmodSync(target, mode);
}
