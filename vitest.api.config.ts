import { defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from './src/testing/deadlines.js';

// The API fuzzing (`npm run test:api`, also run by .ci/run after scripts/install-schemathesis.sh):
// Schemathesis against a real `gpushare serve` (test/api; docs/api-fuzzing.md). One file, its tests in
// order on one server.
export default defineConfig({
  test: {
    include: ['test/api/**/*.test.ts'],
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/build-once.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
  },
});
