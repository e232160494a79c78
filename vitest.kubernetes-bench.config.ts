import { defineConfig } from 'vitest/config';

// The Kubernetes measurements of `npm run bench -- --only kubernetes` (src/bench/bind-throughput.ts) and
// `--only dra` (src/bench/dra-placement.ts), each naming its file:
// not test suites; each runs its measurement file on the real control plane and writes JSON.
export default defineConfig({
  test: {
    include: ['test/kubernetes/bench/**/*.measure.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
