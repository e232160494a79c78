// Test only: reads the shipped trace through the sim adapter (the core's code itself stays pure).
/* eslint-disable no-restricted-imports */
import { describe, it, expect, beforeAll } from 'vitest';
import { fileURLToPath } from 'node:url';
import { readNodeListFile, readPodListFile } from '../../sim/traces/alibaba-csv.js';
import { nodeSpecOf, taskShapeOf } from '../../sim/cluster-from-trace.js';
/* eslint-enable no-restricted-imports */
import { buildTargetWorkload, type TargetWorkload, type TaskShape } from './target-workload.js';
import { nodeFragmentationMilli, nodeWeightedIdleMilli } from './node-fragmentation.js';
import { createNodeStates } from '../framework/node-state.js';

const dataFile = (name: string): string =>
  fileURLToPath(new URL(`../../../data/alibaba-gpu-v2023/${name}`, import.meta.url));

const shape = (
  cpuMilli: number,
  gpuMilli: number,
  gpuCount: number,
  allowedGpuModels: readonly string[] = [],
): TaskShape => ({ cpuMilli, gpuMilli, gpuCount, allowedGpuModels });

const sumBy = <T>(xs: readonly T[], f: (x: T) => number): number => xs.reduce((a, x) => a + f(x), 0);

describe('target workload M of the default trace (docs/simulator.md "Fragmentation")', () => {
  let workload: TargetWorkload;
  beforeAll(async () => {
    const pods = await readPodListFile(dataFile('openb_pod_list_default.csv'));
    expect(pods).toHaveLength(8152);
    workload = buildTargetWorkload(pods.map(taskShapeOf));
  });

  it('keeps the 35 most popular types, covering 7766 of 8152 pods', () => {
    expect(workload.sourceTaskCount).toBe(8152);
    expect(workload.types).toHaveLength(35);
    expect(sumBy(workload.types, (t) => t.count)).toBe(7766);
    expect(workload.types[0]).toMatchObject({ cpuMilli: 3152, gpuMilli: 810, gpuCount: 1, count: 1047 });
    expect(workload.types[34]!.count).toBe(31);
    expect(workload.weightSum).toBeCloseTo(1, 12);
    expect(workload.types[0]!.weight).toBeCloseTo(1047 / 7766, 15);
  });

  it('orders types by count descending', () => {
    for (let i = 1; i < workload.types.length; i++) {
      expect(workload.types[i - 1]!.count).toBeGreaterThanOrEqual(workload.types[i]!.count);
    }
  });

  it('is 5 CPU-only, 14 sharing and 16 whole 1-GPU types, with no multi-GPU type', () => {
    const cpuOnly = workload.types.filter((t) => t.gpuCount === 0);
    const sharing = workload.types.filter((t) => t.gpuCount === 1 && t.gpuMilli < 1000);
    const whole1 = workload.types.filter((t) => t.gpuCount === 1 && t.gpuMilli === 1000);
    expect(cpuOnly).toHaveLength(5);
    expect(sharing).toHaveLength(14);
    expect(whole1).toHaveLength(16);
    expect(workload.types.filter((t) => t.gpuCount > 1)).toHaveLength(0);
    expect(sumBy(cpuOnly, (t) => t.weight)).toBeCloseTo(0.13598, 5);
    expect(sumBy(sharing, (t) => t.weight)).toBeCloseTo(0.37317, 5);
    expect(sumBy(whole1, (t) => t.weight)).toBeCloseTo(0.49086, 5);
  });

  it('gives F = 866,232.55 milli-GPU and R = 13.9445% on the empty default cluster', async () => {
    const nodes = createNodeStates((await readNodeListFile(dataFile('openb_node_list_gpu_node.csv'))).map(nodeSpecOf));
    expect(nodes).toHaveLength(1213);
    let fragment = 0;
    let idle = 0;
    for (const n of nodes) {
      fragment += nodeFragmentationMilli(n.freeCpuMilli, n.spec.gpuModel, n.gpuFreeMilli, workload);
      idle += nodeWeightedIdleMilli(n.gpuFreeMilli, workload);
    }
    expect(fragment).toBeCloseTo(866232.55, 2);
    expect(idle).toBeCloseTo(6_212_000, 3);
    expect((100 * fragment) / idle).toBeCloseTo(13.9445, 3);
  });
});

describe('buildTargetWorkload on small lists', () => {
  it('returns an empty workload for no tasks', () => {
    expect(buildTargetWorkload([])).toEqual({ types: [], weightSum: 0, sourceTaskCount: 0 });
  });

  it('keeps the type that crosses the coverage line and renormalises the kept weights', () => {
    // 10 tasks: A×6, B×3, C×1. 95% = 9.5 tasks: A (6) then B (9) are below, C crosses it and is kept.
    const tasks = [...Array(6).fill(shape(1000, 500, 1)), ...Array(3).fill(shape(2000, 0, 0)), shape(1000, 1000, 1)];
    const all = buildTargetWorkload(tasks);
    expect(all.types.map((t) => t.count)).toEqual([6, 3, 1]);
    expect(all.types.map((t) => t.weight)).toEqual([0.6, 0.3, 0.1]);
    // At 90% the line is reached after B: C is dropped, A and B renormalised to 6/9 and 3/9.
    const cut = buildTargetWorkload(tasks, 90);
    expect(cut.types.map((t) => t.count)).toEqual([6, 3]);
    expect(cut.types[0]!.weight).toBeCloseTo(6 / 9, 15);
    expect(cut.types[1]!.weight).toBeCloseTo(3 / 9, 15);
    expect(cut.weightSum).toBeCloseTo(1, 15);
    expect(cut.sourceTaskCount).toBe(10);
  });

  it('breaks count ties by larger CPU, larger milli, larger count, then larger spec', () => {
    const workload = buildTargetWorkload([
      shape(1000, 500, 1),
      shape(2000, 500, 1),
      shape(2000, 600, 1),
      shape(2000, 600, 2),
      shape(2000, 600, 2, ['A']),
      shape(2000, 600, 2, ['B']),
    ]);
    expect(workload.types.map((t) => [t.cpuMilli, t.gpuMilli, t.gpuCount, t.allowedGpuModels.join('|')])).toEqual([
      [2000, 600, 2, 'B'],
      [2000, 600, 2, 'A'],
      [2000, 600, 2, ''],
      [2000, 600, 1, ''],
      [2000, 500, 1, ''],
      [1000, 500, 1, ''],
    ]);
    expect(workload.types[0]!.allowedSet).toEqual(new Set(['B']));
    expect(workload.types[2]!.allowedSet).toBeNull();
  });
});

describe('nodeFragmentationMilli, hand-computed', () => {
  const halfGpu = buildTargetWorkload([shape(1000, 500, 1)]);

  it('a type that fits counts only the GPU slices too small for it', () => {
    expect(nodeFragmentationMilli(8000, 'V100M32', [300, 1000], halfGpu)).toBe(300);
    expect(nodeFragmentationMilli(8000, 'V100M32', [499, 500, 0], halfGpu)).toBe(499);
    expect(nodeFragmentationMilli(8000, 'V100M32', [1000, 1000], halfGpu)).toBe(0);
  });

  it('a type lacking CPU makes all idle GPU fragment', () => {
    expect(nodeFragmentationMilli(999, 'V100M32', [300, 1000], halfGpu)).toBe(1300);
    expect(nodeFragmentationMilli(1000, 'V100M32', [300, 1000], halfGpu)).toBe(300);
  });

  it('a type lacking GPU makes all idle GPU fragment', () => {
    expect(nodeFragmentationMilli(8000, 'V100M32', [300, 400], halfGpu)).toBe(700);
    const twoHalves = buildTargetWorkload([shape(1000, 500, 2)]);
    expect(nodeFragmentationMilli(8000, 'V100M32', [300, 1000], twoHalves)).toBe(1300);
    expect(nodeFragmentationMilli(8000, 'V100M32', [300, 1000, 600], twoHalves)).toBe(300);
  });

  it('a CPU-only type makes all idle GPU fragment, whether or not its CPU fits', () => {
    const cpuOnly = buildTargetWorkload([shape(1000, 0, 0)]);
    expect(nodeFragmentationMilli(8000, 'V100M32', [300, 1000], cpuOnly)).toBe(1300);
    expect(nodeFragmentationMilli(0, 'V100M32', [300, 1000], cpuOnly)).toBe(1300);
  });

  it('a type whose model is not allowed makes all idle GPU fragment', () => {
    const t4Only = buildTargetWorkload([shape(1000, 500, 1, ['T4'])]);
    expect(nodeFragmentationMilli(8000, 'V100M32', [300, 1000], t4Only)).toBe(1300);
    expect(nodeFragmentationMilli(8000, null, [300, 1000], t4Only)).toBe(1300);
    expect(nodeFragmentationMilli(8000, 'T4', [300, 1000], t4Only)).toBe(300);
  });

  it('a node with no idle GPU has no fragment', () => {
    const cpuOnly = buildTargetWorkload([shape(1000, 0, 0)]);
    expect(nodeFragmentationMilli(8000, 'V100M32', [0, 0], cpuOnly)).toBe(0);
    expect(nodeFragmentationMilli(8000, null, [], cpuOnly)).toBe(0);
  });

  it('weights the per-type fragments by popularity', () => {
    // Half the tasks want 500 milli (F = 300 here), half are CPU-only (F = 1300): 0.5·300 + 0.5·1300.
    const mixed = buildTargetWorkload([shape(1000, 500, 1), shape(1000, 0, 0)]);
    expect(nodeFragmentationMilli(8000, 'V100M32', [300, 1000], mixed)).toBe(800);
    expect(nodeWeightedIdleMilli([300, 1000], mixed)).toBe(1300);
  });
});
