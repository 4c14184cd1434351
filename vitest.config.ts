import { defineConfig } from 'vitest/config';

/**
 * Test tiers (DESIGN D13, test/README.md): a Vitest project per folder of test/, each runnable
 * alone (`npm run test:unit`, ...). Only the tiers that run the built bin or package build it.
 */
const tier = (name: string, globalSetup: string[], extra: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], globalSetup, ...extra },
});

const BUILD = ['test/helpers/global-setup.ts'];

export default defineConfig({
  test: {
    // Ceilings, not targets: a test waits for its event, and a loaded machine only makes it wait
    // longer (speed targets are in bench/). Reached only when the event never comes.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Each file starts its own server and DuckDB file; two cores run two files at a time.
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      tier('unit', []),
      tier('service', ['test/helpers/explorer-setup.ts']),
      tier('cli', BUILD),
      tier('engines', BUILD),
      tier('browser', BUILD),
    ],
  },
});
