import { defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from './src/testing/deadlines.js';

// The tests on a real Kubernetes control plane (`npm run test:kubernetes`, also run by .ci/run
// after scripts/build-kubernetes.sh): each file starts its own etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler (test/kubernetes/support/control-plane.ts), so the
// files run one at a time.
export default defineConfig({
  test: {
    include: ['test/kubernetes/**/*.test.ts'],
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/build-once.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
  },
});
