import { describe, it, expect } from 'vitest';
import { createGpuPackingScore } from './gpu-packing-score.js';
import { aCluster, aCycleContext, aNode, aPod, occupyGpus, type PodOverrides } from '../../testing/builders.js';

const full = (n: number): number[] => Array.from({ length: n }, () => 1000);

/** Score of `pod` on one node whose GPUs have `free` milli free. */
function packingScore(free: number[], pod: PodOverrides): number {
  const cluster = aCluster([aNode({ gpuCount: free.length })]);
  occupyGpus(cluster.nodes[0]!, free);
  return createGpuPackingScore().score(aCycleContext(cluster, aPod(pod)), cluster.nodes[0]!);
}

describe('gpu-packing-score (docs/simulator.md "Policies")', () => {
  it.each<[string, number[], PodOverrides, number]>([
    // Case 3: fully GPU-idle node → 33 − K.
    ['idle 1-GPU node', full(1), {}, 32],
    ['idle 2-GPU node', full(2), {}, 31],
    ['idle 4-GPU node', full(4), {}, 29],
    ['idle 8-GPU node', full(8), {}, 25],
    ['idle 8-GPU node, sharing pod', full(8), { gpuMilli: 300 }, 25],
    ['idle 8-GPU node, 4-GPU pod', full(8), { gpuCount: 4 }, 25],
    // Case 2: used node, the best-fit set contains f fully free GPUs → 50 − f.
    ['1-GPU pod on a used node with a free GPU', [500, 1000], {}, 49],
    ['sharing pod too big for the used GPU', [500, 1000], { gpuMilli: 600 }, 49],
    ['sharing pod on a node whose only other GPU is full', [0, 1000], { gpuMilli: 100 }, 49],
    ['2-GPU pod on a used node', [500, 1000, 1000, 1000], { gpuCount: 2 }, 48],
    ['4-GPU pod on a used node', [500, ...full(7)], { gpuCount: 4 }, 46],
    ['8-GPU pod on a used node', [500, ...full(8)], { gpuCount: 8 }, 42],
    // Case 1: sharing pod on a partly used GPU → 100 − ⌊g/100⌋, g = that GPU's free milli before placement.
    ['sharing pod on a GPU with 550 free', [550, 1000], { gpuMilli: 200 }, 95],
    ['sharing pod on a GPU with 999 free', [999], { gpuMilli: 200 }, 91],
    ['sharing pod on a GPU with 50 free', [50, 1000], { gpuMilli: 50 }, 100],
    ['sharing pod takes the best-fit (fullest) GPU', [700, 320, 1000], { gpuMilli: 300 }, 97],
    // CPU-only pods score 0 everywhere.
    ['CPU-only pod, idle node', full(2), { gpuCount: 0 }, 0],
    ['CPU-only pod, used node', [500, 1000], { gpuCount: 0 }, 0],
  ])('%s → %i', (_label, free, pod, expected) => {
    expect(packingScore(free, pod)).toBe(expected);
  });

  it('is cacheable', () => {
    expect(createGpuPackingScore().cacheable).toBe(true);
  });
});
