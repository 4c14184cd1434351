import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own server and DuckDB file; two cores run two files at a time.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
