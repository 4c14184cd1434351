/** Generated benchmark databases: made once per scale into bench/out/scale-<N>/, reused while they end yesterday. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { root } from './lib.js';

export interface Generated {
  readonly dir: string;
  readonly dbPath: string;
  readonly scale: number;
  readonly organizations: ReadonlyArray<{ id: number; clientId: string; clientSecret: string }>;
  readonly factRows: number;
  readonly seconds: number;
  /** The last day of data: yesterday when generated. */
  readonly lastDay: string;
}

/**
 * Every bench database has at least this many organizations: the fairness measure floods one and
 * times another (scale 1 would otherwise have one; larger scales have round(sqrt(N))).
 */
const MIN_ORGANIZATIONS = 2;

/**
 * `data generate --scale N` into bench/out/scale-N/ unless a database ending yesterday is already
 * there (needs `npm run build`). `reuse`: keep one that ends earlier, so that runs of two versions
 * of the code on either side of midnight (UTC) read the same database; its requests end on its
 * own last day.
 */
export function generatedDatabase(
  scale: number,
  log: (line: string) => void = (line) => console.error(line),
  reuse = false,
): Generated {
  const dir = path.join(root, 'bench', 'out', `scale-${scale}`);
  const dbPath = path.join(dir, 'adreport.duckdb');
  const meta = path.join(dir, 'generated.json');
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  if (existsSync(meta) && existsSync(dbPath)) {
    const known = JSON.parse(readFileSync(meta, 'utf8')) as Omit<Generated, 'dir' | 'dbPath' | 'scale'>;
    const enough = known.organizations.length >= MIN_ORGANIZATIONS;
    if (enough && (reuse || known.lastDay === yesterday)) return { ...known, dir, dbPath, scale };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`generating scale ${scale} into ${dbPath} ...`);
  const run = spawnSync(
    process.execPath,
    [
      'dist/cli.cjs',
      'data',
      'generate',
      '--scale',
      String(scale),
      '--orgs',
      String(Math.max(MIN_ORGANIZATIONS, Math.round(Math.sqrt(scale)))),
      '--db',
      dbPath,
      '--json',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (run.status !== 0) throw new Error(`data generate failed (${run.status})`);
  const generated = {
    ...(JSON.parse(run.stdout) as { organizations: Generated['organizations']; factRows: number; seconds: number }),
    lastDay: yesterday,
  };
  writeFileSync(meta, JSON.stringify(generated));
  return { ...generated, dir, dbPath, scale };
}
