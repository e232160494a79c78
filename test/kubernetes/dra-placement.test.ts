/**
 * The placement comparison's two paths on a real control plane (docs/kubernetes/dra-placement.md):
 * the gpushare extender behind kube-scheduler, and DRA with the stock kube-scheduler and the
 * ResourceClaim controller. A case small enough to know the answer (two half-GPU pods, then a
 * whole-GPU pod, on two one-GPU nodes), and a sample of the Alibaba trace in which neither path
 * gives a GPU more than 1000 milli-GPU.
 */
import { describe, expect, it } from 'vitest';
import { overcommittedGpus, placementFigures } from '../../src/bench/dra-placement-metrics.js';
import {
  placementWorkload,
  type PlacementNode,
  type PlacementPod,
  type PlacementWorkload,
} from '../../src/bench/dra-placement-workload.js';
import { kubernetesAvailable } from './support/binaries.js';
import { DEFAULT_SETTLE } from './support/placement-watch.js';
import { PLACEMENT_CONTROLLERS, runBothPlacements } from './support/placement-runs.js';
import { useControlPlane } from './support/use-control-plane.js';

const node = (name: string): PlacementNode => ({
  name,
  cpuMilli: 8000,
  hostMemoryMiB: 32_768,
  gpuCount: 1,
  gpuModel: 'T4',
  gpuMemoryMiB: 16_384,
});
const pod = (name: string, gpuMilli: number): PlacementPod => ({
  name,
  traceName: name,
  cpuMilli: 1000,
  hostMemoryMiB: 4096,
  gpuCount: 1,
  gpuMilli,
  allowedGpuModels: [],
});

describe.skipIf(!kubernetesAvailable())('placement: gpushare extender and DRA stock allocator', () => {
  const plane = useControlPlane({ scheduler: false, controllerManager: { controllers: PLACEMENT_CONTROLLERS } });

  it('packs two half GPUs on one GPU through the extender; DRA spreads them and leaves no GPU whole', async () => {
    const workload: PlacementWorkload = {
      nodes: [node('small-a'), node('small-b')],
      pods: [pod('p-000', 500), pod('p-001', 500), pod('p-002', 1000)],
      sampling: { podList: 'default', nodeStride: 1, podStride: 1 },
    };
    const runs = await runBothPlacements(plane(), workload, {
      bounds: { ...DEFAULT_SETTLE, quietMs: 5000, timeoutMs: 120_000 },
      namespaces: { extender: 'small-extender', dra: 'small-dra' },
      oneByOne: true,
    });
    process.stdout.write(`${JSON.stringify(runs)}\n`);
    expect(runs.extender.boundPods).toBe(3);
    const perGpu = (shares: typeof runs.extender.shares) =>
      [...new Set(shares.map((s) => s.node))].map((n) =>
        shares.filter((s) => s.node === n).reduce((sum, s) => sum + s.gpuMilli, 0),
      );
    expect(perGpu(runs.extender.shares).sort()).toEqual([1000, 1000]);
    expect(runs.dra.boundPods).toBe(2);
    expect(runs.dra.shares.map((s) => s.pod).sort()).toEqual(['p-000', 'p-001']);
    expect(new Set(runs.dra.shares.map((s) => s.node)).size).toBe(2);
    expect(runs.claimTemplates).toBe(2);
  }, 300_000);

  it('gives no GPU more than 1000 milli-GPU in either path on a sample of the trace', async () => {
    const workload = placementWorkload({ podList: 'gpushare40', nodeStride: 120, podStride: 100 });
    const runs = await runBothPlacements(plane(), workload, {
      bounds: DEFAULT_SETTLE,
      namespaces: { extender: 'trace-extender', dra: 'trace-dra' },
      oneByOne: false,
    });
    const figures = {
      extender: placementFigures(runs.extender, workload.nodes, workload.pods),
      dra: placementFigures(runs.dra, workload.nodes, workload.pods),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    for (const run of [runs.extender, runs.dra]) {
      expect(run.pods).toBe(workload.pods.length);
      expect(overcommittedGpus(run.shares)).toEqual([]);
      expect(new Set(run.shares.map((s) => s.pod)).size).toBe(run.boundPods);
      const sharesPerPod = new Map<string, number>();
      for (const s of run.shares) sharesPerPod.set(s.pod, (sharesPerPod.get(s.pod) ?? 0) + 1);
      for (const p of workload.pods)
        if (sharesPerPod.has(p.name)) expect([p.name, sharesPerPod.get(p.name)]).toEqual([p.name, p.gpuCount]);
    }
  }, 600_000);
});
