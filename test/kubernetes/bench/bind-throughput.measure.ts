/**
 * Measurement behind `npm run bench -- --only kubernetes` (run by src/bench/bind-throughput.ts
 * through vitest.kubernetes-bench.config.ts; not a test): pods bound per second by the real
 * kube-scheduler on the test control plane, in one run,
 *  1. 200 fractional pods (0.5 GPU, gpushare resources and annotations as the webhook writes them)
 *     through the gpushare extender (filter, prioritize, bind), and
 *  2. 200 whole-GPU pods (`nvidia.com/gpu: 1`, which the extender does not manage) placed by the same
 *     scheduler without it,
 * on 32 nodes of 8 GPUs that offer both. Rate = pods ÷ seconds from the first create to the last
 * bind; pods are created 8 at a time. Writes the figures as JSON to GPUSHARE_BENCH_OUT.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, it } from 'vitest';
import { gpusOf } from '../../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { pollFor } from '../../e2e/support/serve-harness.js';
import { startExtenderProcess, writeSchedulerConfig } from '../support/gpushare-extender.js';
import { create, gpuPod, gpuRequest, listPods } from '../support/gpu-workloads.js';
import { useControlPlane } from '../support/use-control-plane.js';
import type { ControlPlane } from '../support/control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', '..', 'deploy', 'kubernetes');
const NODES = 32;
const PODS = 200;
const CONCURRENCY = 8;

function wholeGpuPod(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'whole' } },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [
        { name: 'main', image: 'registry.invalid/none:1', resources: { limits: { 'nvidia.com/gpu': '1' } } },
      ],
    },
  };
}

/**
 * Creates `count` pods made by `make` in namespace `ns`, `CONCURRENCY` at a time, and returns the seconds until all are
 * bound.
 */
async function timeBinding(plane: ControlPlane, ns: string, make: (i: number) => object): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PODS) await create(plane, ns, make(next++));
    }),
  );
  await pollFor(
    `${PODS} pods of ${ns} bound`,
    async () =>
      (await listPods(plane, ns)).filter((p) => p.spec.nodeName !== undefined).length === PODS ? true : undefined,
    300_000,
  );
  return (performance.now() - t0) / 1000;
}

const plane = useControlPlane({ scheduler: false });
let extender: Awaited<ReturnType<typeof startExtenderProcess>> | undefined;

beforeAll(async () => {
  const p = plane();
  const applied = await p.kubectl([
    'apply',
    '--filename',
    join(DEPLOY, 'namespace.yaml'),
    '--filename',
    join(DEPLOY, 'rbac-extender.yaml'),
  ]);
  if (applied.code !== 0) throw new Error(applied.stderr);
  extender = await startExtenderProcess({
    dir: p.dir,
    kubeconfig: await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender'),
    leaseDurationSeconds: 15,
  });
  await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
  for (let n = 0; n < NODES; n++) {
    const name = `node-${String(n).padStart(2, '0')}`;
    await p.createNode({
      name,
      gpuInventory: gpusOf(name, 8),
      allocatable: {
        'nvidia.com/gpu': '8',
        'gpushare.io/gpu': '8',
        'gpushare.io/gpu-milli': '8000',
        'gpushare.io/gpu-memory-mib': String(8 * 81_920),
        'gpushare.io/gpu-slot': '128',
      },
    });
  }
  await p.createNamespace('fractional');
  await p.createNamespace('whole');
}, 300_000);

it('measures pods bound per second with and without the extender', async () => {
  const p = plane();
  const fractionalSeconds = await timeBinding(p, 'fractional', (i) =>
    gpuPod(`half-${i}`, gpuRequest({ gpuMilli: 500, mode: 'mps' })),
  );
  const wholeSeconds = await timeBinding(p, 'whole', (i) => wholeGpuPod(`whole-${i}`));
  const result = {
    nodes: NODES,
    gpusPerNode: 8,
    pods: PODS,
    concurrency: CONCURRENCY,
    fractionalSeconds,
    wholeSeconds,
    fractionalPodsPerSecond: PODS / fractionalSeconds,
    wholePodsPerSecond: PODS / wholeSeconds,
    ratio: wholeSeconds / fractionalSeconds,
  };
  const out = process.env.GPUSHARE_BENCH_OUT;
  if (out) writeFileSync(out, JSON.stringify(result));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await extender?.kill();
}, 600_000);
