import { defineConfig } from 'vitest/config';

// The slow suite (`npm run test:slow`, also run by .ci/run): the full reproduction grid, the
// variant replays and the golden placements of every seed.
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/build-once.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
  },
});
