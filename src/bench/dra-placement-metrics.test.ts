import { describe, expect, it } from 'vitest';
import { overcommittedGpus, placementFigures, type GpuShare } from './dra-placement-metrics.js';
import type { PlacementNode, PlacementPod } from './dra-placement-workload.js';

const node = (name: string, gpuCount: number, cpuMilli: number): PlacementNode => ({
  name,
  cpuMilli,
  hostMemoryMiB: 65_536,
  gpuCount,
  gpuModel: 'T4',
  gpuMemoryMiB: 16_384,
});
const pod = (name: string, cpuMilli: number): PlacementPod => ({
  name,
  traceName: name,
  cpuMilli,
  hostMemoryMiB: 1024,
  gpuCount: 1,
  gpuMilli: 500,
  allowedGpuModels: [],
});

const share = (pod: string, node: string, gpuIndex: number, gpuMilli: number): GpuShare => ({
  pod,
  node,
  gpuIndex,
  gpuMilli,
});

describe('placementFigures', () => {
  it('counts used GPUs, unallocated milli-GPU of used and all GPUs, pods never fit and binds per second', () => {
    const f = placementFigures(
      {
        pods: 5,
        boundPods: 4,
        seconds: 2,
        shares: [
          share('a', 'n1', 0, 500),
          share('b', 'n1', 0, 300),
          share('c', 'n1', 1, 1000),
          share('d', 'n2', 0, 200),
        ],
        unbound: [{ pod: 'e', message: '0/2 nodes are available' }],
      },
      [node('n1', 2, 8000), node('n2', 2, 4000)],
      ['a', 'b', 'c', 'd'].map((n) => pod(n, 2000)).concat(pod('e', 3000)),
    );
    expect(f).toEqual({
      pods: 5,
      boundPods: 4,
      podsNeverFit: 1,
      gpusUsed: 3,
      totalGpus: 4,
      allocatedGpuMilli: 2000,
      unallocatedOfUsedPct: (100 * 1000) / 3000,
      unallocatedOfAllPct: 50,
      seconds: 2,
      bindsPerSecond: 2,
      overcommitted: [],
      // n1: 200 milli free, 2000 m CPU free (e needs 3000); n2: 1800 milli free, 2000 m CPU free.
      freeGpuMilli: { whereHostFits: 0, whereHostFull: 2000 },
    });
  });

  it('names the GPUs given more than 1000 milli-GPU', () => {
    expect(overcommittedGpus([share('a', 'n2', 1, 600), share('b', 'n2', 1, 500), share('c', 'n1', 0, 1000)])).toEqual([
      { node: 'n2', gpuIndex: 1, gpuMilli: 1100, pods: ['a', 'b'] },
    ]);
  });

  it('refuses a cluster without GPUs', () => {
    expect(() =>
      placementFigures({ pods: 0, boundPods: 0, seconds: 0, shares: [], unbound: [] }, [node('n1', 0, 8000)], []),
    ).toThrow('nodes must have GPUs, got 0');
  });
});
