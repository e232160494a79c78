import { defineConfig } from 'vitest/config';

// The tests on a real Kubernetes control plane (`npm run test:kubernetes`, also run by .ci/run
// after scripts/build-kubernetes.sh): each file starts its own etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler (test/kubernetes/support/control-plane.ts), so the
// files run one at a time.
export default defineConfig({
  test: {
    include: ['test/kubernetes/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/build-once.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
  },
});
