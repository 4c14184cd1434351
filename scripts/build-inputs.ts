import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * What `dist/` is built from, as one hash kept beside it (`dist/.build-inputs`): `npm run build`
 * writes it last, and the test tiers that run the bin build again only when it differs
 * (test/helpers/global-setup.ts), so a run after `npm ci` or an unchanged checkout builds nothing.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-inputs');
const INPUTS = ['src', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** SHA-256 over every input file's path and bytes, in a fixed order. */
export function buildInputsHash(): string {
  const hash = createHash('sha256');
  const visit = (relative: string) => {
    const full = path.join(ROOT, relative);
    const stat = fs.statSync(full, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(full).sort()) visit(path.join(relative, entry));
      return;
    }
    hash.update(`${relative}\0`).update(fs.readFileSync(full)).update('\0');
  };
  for (const input of INPUTS) visit(input);
  return hash.digest('hex');
}

/** True when dist/ holds a build of exactly the current inputs. */
export function distIsCurrent(): boolean {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.cjs')) || !fs.existsSync(STAMP)) return false;
  return fs.readFileSync(STAMP, 'utf8') === buildInputsHash();
}

export function writeBuildStamp(): void {
  fs.writeFileSync(STAMP, buildInputsHash());
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) writeBuildStamp();
