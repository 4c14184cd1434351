import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/helpers/sequencer.js';

/**
 * Test tiers (DESIGN D13, test/README.md): a Vitest project per folder of test/, each runnable
 * alone (`npm run test:unit`, ...). Only the tiers that run the built bin or package build it.
 */
const tier = (name: string, globalSetup: string[], extra: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], globalSetup, ...extra },
});

const WORLDS = 'test/helpers/worlds-setup.ts';
const BUILD = ['test/helpers/global-setup.ts', WORLDS];

export default defineConfig({
  test: {
    // Ceilings, not targets: a test waits for its event, and a loaded machine only makes it wait
    // longer (speed targets are in bench/). Reached only when the event never comes.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Each file starts its own server and DuckDB file; two cores run two files at a time.
    fileParallelism: true,
    maxWorkers: 2,
    // The longest files first (test/helpers/long-files.ts): a clean clone has no Vitest cache, and
    // Vitest's own order started a long file last, alone.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      // Files of a tier share their worker's module cache (no isolation): each imports the whole
      // service graph, which cost ~0.7 s per file; every file still starts its own servers and files.
      tier('unit', [], { isolate: false }),
      tier('service', ['test/helpers/explorer-setup.ts', WORLDS], { isolate: false }),
      tier('cli', BUILD),
      tier('engines', BUILD),
      tier('browser', BUILD),
      // The parity corpus against the scale-out deployment (7 processes, ~7 min on 2 cores): outside
      // `npm test` and CI's 15 minutes; `npm run test:scale-out` (test/README.md).
      tier('scale-out', BUILD),
    ],
  },
});
