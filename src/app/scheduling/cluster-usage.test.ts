import { describe, expect, it } from 'vitest';
import { clusterUsage, shapeOfJob, targetWorkloadOf, type ClusterGpu } from './cluster-usage.js';

const gpu = (model: string, allocatedGpuMilli: number, extra: Partial<ClusterGpu> = {}): ClusterGpu => ({
  model,
  migEnabled: false,
  schedulable: true,
  allocatedGpuMilli,
  ...extra,
});
const request = (gpuMilli: number, mode: 'auto' | 'mig' = 'auto', gpuCount = 1) => ({
  gpuCount,
  gpuMilli,
  gpuMemoryMiB: null,
  mode,
});

describe('clusterUsage, hand-computed', () => {
  // M: 3 × (500 milli, 1 GPU) and 1 × (1000, 1) → weights 0.75 and 0.25 (both kept by the 95% cut).
  const workload = targetWorkloadOf(
    [request(500), request(500), request(500), request(1000)].map((r) => shapeOfJob(r)!),
  );
  const gpus = [
    gpu('A100-80GB', 400),
    gpu('A100-80GB', 0),
    gpu('T4', 700),
    gpu('A100-80GB', 429, { migEnabled: true }),
    gpu('A100-80GB', 0, { schedulable: false }),
  ];

  it('M has the two shapes with weights 0.75 and 0.25', () => {
    expect(workload.types.map((t) => [t.gpuMilli, t.gpuCount, t.weight])).toEqual([
      [500, 1, 0.75],
      [1000, 1, 0.25],
    ]);
  });

  it('allocation counts the 4 schedulable GPUs (the MIG one too), not the cordoned one: 1529 / 4000', () => {
    const u = clusterUsage(gpus, workload);
    expect(u.gpuMilliTotal).toBe(4000);
    expect(u.allocatedMilli).toBe(1529);
    expect(u.allocationRatio).toBe(1529 / 4000);
  });

  it(
    'fragmentation over the non-MIG schedulable GPUs grouped by model: A100 node free [600, 1000] → 0.25 × ' +
      '600 = 150; T4 node free [300] → 300; ratio 450 / 1900',
    () => {
      const u = clusterUsage(gpus, workload);
      expect(u.fragmentationMilli).toBe(450);
      expect(u.fragmentationRatio).toBe(450 / 1900);
    },
  );

  it('is all zero without schedulable GPUs, and caps an over-allocated (time-sliced) GPU at 1000', () => {
    expect(clusterUsage([gpu('T4', 300, { schedulable: false })], workload)).toEqual({
      gpuMilliTotal: 0,
      allocatedMilli: 0,
      allocationRatio: 0,
      fragmentationMilli: 0,
      fragmentationRatio: 0,
    });
    const full = clusterUsage([gpu('T4', 1500)], workload);
    expect(full.allocatedMilli).toBe(1000);
    expect(full.allocationRatio).toBe(1);
    expect(full.fragmentationRatio).toBe(0);
  });
});

describe('shapeOfJob and targetWorkloadOf', () => {
  it('a job asks for no CPU; MIG jobs are left out', () => {
    expect(shapeOfJob(request(300, 'auto', 2))).toEqual({
      cpuMilli: 0,
      gpuMilli: 300,
      gpuCount: 2,
      allowedGpuModels: [],
    });
    expect(shapeOfJob(request(300, 'mig'))).toBeNull();
  });

  it(
    'with no shapes, M is the scheduler prior without CPU and without the CPU-only type (8 GPU shapes, 7 ' + 'types)',
    () => {
      const m = targetWorkloadOf([]);
      expect(m.sourceTaskCount).toBe(8);
      expect(m.types.every((t) => t.cpuMilli === 0 && t.gpuCount > 0)).toBe(true);
      expect(m.types[0]!.weight).toBe(0.25);
      expect(m.types.map((t) => [t.gpuMilli, t.gpuCount])).toEqual([
        [1000, 1],
        [1000, 8],
        [1000, 4],
        [1000, 2],
        [750, 1],
        [500, 1],
        [250, 1],
      ]);
    },
  );
});
