import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { addDays, isoDate } from '../../src/shared/dates.js';
import { generateDatabase, type GeneratedOrganization } from './generate.js';
import { poll } from './poll.js';

/** The last day a world generated now holds: yesterday (UTC). */
export const yesterdayUtc = (): string => addDays(isoDate(new Date()), -1);

const yesterday = yesterdayUtc();
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
/** The last leap year L such that L+1-02-20 .. L+1-03-05 has ended: a 29 February with a year of data after it. */
export const LEAP_YEAR = (() => {
  let year = Number(yesterday.slice(0, 4)) - 1;
  while (!(isLeap(year) && `${year + 1}-03-05` <= yesterday)) year--;
  return year;
})();
const daysSinceLeap = (Date.parse(yesterday) - Date.parse(`${LEAP_YEAR}-02-01`)) / 86_400_000 + 1;

/**
 * The generated worlds the tests share (DESIGN D13): each made by the real generator once per
 * run, by the first test file that asks for it, into the run's directory (`worlds-setup.ts`
 * provides it); every file then copies the template and never writes to it. A world is named
 * for what a test needs of it; a new test picks one of these before it adds one.
 */
export const WORLDS = {
  /** Two organizations, a month: most reporting tests. */
  'small-2orgs-30d': { scale: '1', days: 30, seed: 7, orgs: 2 },
  /** Twice the entities, a month and a half: the oracle, currency and metamorphic suites. */
  'scale2-45d': { scale: '2', days: 45, seed: 3, orgs: 2 },
  /** Two months at scale 2: comparison periods, segment totals and both engine-parity files. */
  'scale2-60d': { scale: '2', days: 60, seed: 3, orgs: 2 },
  /** From the 1st of February of LEAP_YEAR (at least 800 days): PREVIOUS_YEAR over a 29 February. */
  'since-leap': { scale: '2', days: Math.max(800, daysSinceLeap), seed: 3, orgs: 2 },
  /** 40 days, two organizations: the ClickHouse server and sharding tests. */
  'mid-2orgs-40d': { scale: '1', days: 40, seed: 3, orgs: 2 },
  /** 100 days, one organization: quarters, date presets. */
  'long-100d': { scale: '1', days: 100, seed: 29, orgs: 1 },
  /** 120 days, two organizations: several months of partitions (ClickHouse faults). */
  'long-2orgs-120d': { scale: '1', days: 120, seed: 11, orgs: 2 },
  /** Scale 6 over three weeks: many entities, so names repeat and sort in depth. */
  'wide-scale6-21d': { scale: '6', days: 21, seed: 11, orgs: 2 },
  /** One organization whose rows are in several currencies on every device type (the explorer). */
  'mixed-currencies-30d': { scale: '1', days: 30, seed: 37, orgs: 1 },
  /** A few accounts and campaigns over 30 days: rollups on and off, FX imports, exports by the bin. */
  'tiny-30d': { scale: '0.05', days: 30, seed: 5, orgs: 1 },
} as const satisfies Record<string, { scale: string; days: number; seed: number; orgs: number }>;

export type WorldName = keyof typeof WORLDS;

/** The database file's name in a world's template (and in the copies the fixtures make). */
export const WORLD_FILE = 'adreport.duckdb';

export interface World {
  /** The template directory: the DuckDB file and what the generator left beside it. Read only. */
  readonly dir: string;
  readonly organizations: readonly GeneratedOrganization[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory of generated worlds (test/helpers/worlds-setup.ts). */
    worldsDir: string;
  }
}

const DONE = 'world.json';
const inProcess = new Map<WorldName, Promise<World>>();
let ownRoot: string | undefined;

/** The run's directory of worlds, or (outside a tier with the setup) one of this process's. */
function worldsRoot(): string {
  try {
    return inject('worldsDir');
  } catch {
    if (ownRoot === undefined) {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-worlds-'));
      process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
      ownRoot = root;
    }
    return ownRoot;
  }
}

/** The named world, generated on first use in this run (by whichever process asks first). */
export function world(name: WorldName): Promise<World> {
  let made = inProcess.get(name);
  if (made === undefined) {
    made = madeOnce(worldsRoot(), name);
    inProcess.set(name, made);
  }
  return made;
}

/** Copies the world's files into `dir` (the DuckDB file is `dir/adreport.duckdb`). */
export async function copyWorld(name: WorldName, dir: string): Promise<World> {
  const made = await world(name);
  fs.mkdirSync(dir, { recursive: true });
  for (const entry of fs.readdirSync(made.dir))
    if (entry !== DONE) fs.cpSync(path.join(made.dir, entry), path.join(dir, entry), { recursive: true });
  return made;
}

/**
 * Test files run in several worker processes at once: the first to take the world's lock (a
 * directory: mkdir is atomic) generates it into a scratch directory and renames it into place;
 * the others wait for the rename. A lock left by a process that died is taken over.
 */
async function madeOnce(root: string, name: WorldName): Promise<World> {
  const dir = path.join(root, name);
  const lock = `${dir}.lock`;
  for (;;) {
    const ready = readWorld(dir);
    if (ready !== undefined) return ready;
    try {
      fs.mkdirSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await poll(
        `world ${name} generated by another test process`,
        () => (readWorld(dir) !== undefined || !lockHolderAlive(lock) ? true : undefined),
        300_000,
        50,
      );
      if (readWorld(dir) === undefined) fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      const scratch = `${dir}.${process.pid}`;
      fs.rmSync(scratch, { recursive: true, force: true });
      fs.mkdirSync(scratch);
      const organizations = await generateDatabase(path.join(scratch, WORLD_FILE), WORLDS[name]);
      fs.writeFileSync(path.join(scratch, DONE), JSON.stringify({ organizations }));
      try {
        fs.renameSync(scratch, dir);
      } catch (error) {
        // Two processes took over a dead holder's lock at once: the first rename won.
        fs.rmSync(scratch, { recursive: true, force: true });
        if (readWorld(dir) === undefined) throw error;
      }
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

function readWorld(dir: string): World | undefined {
  const text = readIfThere(path.join(dir, DONE));
  return text === undefined ? undefined : { dir, ...(JSON.parse(text) as Pick<World, 'organizations'>) };
}

function readIfThere(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function lockHolderAlive(lock: string): boolean {
  if (!fs.existsSync(lock)) return false;
  const pid = Number(readIfThere(path.join(lock, 'pid')));
  // No pid yet: the holder has only just made the lock.
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
