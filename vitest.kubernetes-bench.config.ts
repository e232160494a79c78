import { defineConfig } from 'vitest/config';

// The Kubernetes measurement of `npm run bench -- --only kubernetes` (src/bench/bind-throughput.ts):
// not a test suite; it runs the measurement file on the real control plane and writes JSON.
export default defineConfig({
  test: {
    include: ['test/kubernetes/bench/**/*.measure.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
