import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { explorerOnce } from './explorer-setup.js';

/**
 * The `cli`, `engines` and `browser` tiers run the built bin (dist/cli.cjs) and package; each
 * names this setup, and vitest calls it once per tier that has tests queued. The emit build
 * (`tsc -p tsconfig.build.json`, ~25-90 s on 2 cores) runs at most once per run, and not at all
 * when dist/ was built from the same sources (a hash of what the build reads, kept beside it).
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const STAMP = path.join(ROOT, 'dist', '.build-inputs');
const INPUTS = ['src', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** One build per run, however many tiers ask for it (their setups run in this one process). */
export default async function setup(): Promise<void> {
  const shared = globalThis as { __adreportBuild?: Promise<void> };
  await (shared.__adreportBuild ??= buildIfStale());
}

async function buildIfStale(): Promise<void> {
  const inputs = inputsHash();
  if (fs.existsSync(path.join(ROOT, 'dist', 'cli.cjs')) && readStamp() === inputs) {
    await explorerOnce();
    return;
  }
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  await explorerOnce();
  fs.writeFileSync(STAMP, inputs);
}

function readStamp(): string | undefined {
  return fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8') : undefined;
}

/** SHA-256 over every input file's path and bytes, in a fixed order. */
function inputsHash(): string {
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
