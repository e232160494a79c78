import { defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from './src/testing/deadlines.js';

// The slow suite (`npm run test:slow`, also run by .ci/run): the full reproduction grid, the
// variant replays and the golden placements of every seed.
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    // A grid or replay test runs for minutes: twice the bound of one test elsewhere (src/testing/deadlines.ts).
    testTimeout: 2 * TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    globalSetup: ['test/support/build-once.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
  },
});
