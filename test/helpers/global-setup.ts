import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { distIsCurrent, writeBuildStamp } from '../../scripts/build-inputs.js';
import { explorerOnce } from './explorer-setup.js';

/**
 * The `cli`, `engines` and `browser` tiers run the built bin (dist/cli.cjs) and package; each
 * names this setup, and vitest calls it once per tier that has tests queued. The emit build
 * (`tsc -p tsconfig.build.json`, ~25-90 s on 2 cores) runs at most once per run, and not at all
 * when dist/ was built from the same sources (scripts/build-inputs.ts; `npm run build` stamps too).
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');

export default async function setup(): Promise<void> {
  const shared = globalThis as { __adreportBuild?: Promise<void> };
  await (shared.__adreportBuild ??= buildIfStale());
}

async function buildIfStale(): Promise<void> {
  if (distIsCurrent()) {
    await explorerOnce();
    return;
  }
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  await explorerOnce();
  writeBuildStamp();
}
