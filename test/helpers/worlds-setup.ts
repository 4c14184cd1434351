import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * One directory of generated worlds (helpers/worlds.ts) for the whole run, whichever tiers run:
 * their global setups share this process, so the first makes it and the last to finish removes
 * it. Worlds are generated in it on first use, not here: a run of one file makes only its world.
 */
interface Shared {
  __adreportWorlds?: { dir: string; users: number };
}

export default function setup(project: TestProject): () => void {
  const shared = globalThis as Shared;
  shared.__adreportWorlds ??= { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-worlds-')), users: 0 };
  const worlds = shared.__adreportWorlds;
  worlds.users++;
  project.provide('worldsDir', worlds.dir);
  return () => {
    if (--worlds.users > 0) return;
    fs.rmSync(worlds.dir, { recursive: true, force: true });
    delete shared.__adreportWorlds;
  };
}
