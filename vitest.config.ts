import { defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from './src/testing/deadlines.js';

/**
 * Test files that replace a module with `vi.mock`: they run isolated, each in a worker thread of
 * its own, so that the stand-in never reaches another file (docs/decisions/0046-test-files-share-workers.md).
 */
const OWN_WORKER = ['src/adapters/process/supervised-attempt.test.ts'];

const common = {
  // The slow suite runs with vitest.slow.config.ts (npm run test:slow), the tests on a real
  // Kubernetes control plane with vitest.kubernetes.config.ts (npm run test:kubernetes), the API
  // fuzzing with vitest.api.config.ts (npm run test:api).
  exclude: ['test/slow/**', 'test/kubernetes/**', 'test/api/**', '**/node_modules/**'],
  // Bounds on a hang, above every wait of a test (src/testing/deadlines.ts: sized for a loaded machine).
  testTimeout: TEST_TIMEOUT_MS,
  hookTimeout: TEST_TIMEOUT_MS,
  setupFiles: ['test/support/yield-between-tests.ts'],
};

export default defineConfig({
  test: {
    globalSetup: ['test/support/build-once.ts'],
    // Two test files at a time: most of the time of the end-to-end tests is spent waiting on
    // servers and job processes, and one worker per core keeps the CPU-bound ones on time.
    maxWorkers: 2,
    minWorkers: 1,
    // A forked worker runs file after file with the modules it has loaded (zod, Fastify, the
    // core): loading them again for each of 340 files cost more CPU than the unit tests themselves.
    poolOptions: { forks: { isolate: false } },
    projects: [
      {
        test: {
          ...common,
          name: 'shared-workers',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...common.exclude, ...OWN_WORKER],
          pool: 'forks',
        },
      },
      { test: { ...common, name: 'own-worker', include: OWN_WORKER, pool: 'threads' } },
    ],
  },
});
