import { defineConfig } from 'vitest/config';

// The API fuzzing (`npm run test:api`, also run by .ci/run after scripts/install-schemathesis.sh):
// Schemathesis against a real `gpushare serve` (test/api; docs/api-fuzzing.md). One file, its tests in
// order on one server.
export default defineConfig({
  test: {
    include: ['test/api/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/build-once.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
  },
});
