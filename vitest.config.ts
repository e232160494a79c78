import { defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from './src/testing/deadlines.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The slow suite runs with vitest.slow.config.ts (npm run test:slow), the tests on a real
    // Kubernetes control plane with vitest.kubernetes.config.ts (npm run test:kubernetes), the API
    // fuzzing with vitest.api.config.ts (npm run test:api).
    exclude: ['test/slow/**', 'test/kubernetes/**', 'test/api/**', '**/node_modules/**'],
    // Bounds on a hang, above every wait of a test (src/testing/deadlines.ts: sized for a loaded machine).
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    globalSetup: ['test/support/build-once.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
    // Two test files at a time: most of the time of the end-to-end tests is spent waiting on
    // servers and job processes, and one worker per core keeps the CPU-bound ones on time.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
