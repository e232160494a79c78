import { describe, it, expect } from 'vitest';
import { createBestFitScore } from './best-fit-score.js';
import { aCluster, aCycleContext, aNode, aPod, occupyGpus, type PodOverrides } from '../../testing/builders.js';

describe('best-fit-score (docs/simulator.md "Policies")', () => {
  // raw = trunc((1 − r)·100), r = ((c_n − c_t)/128000)·0.5 + ((G_n − D_t)/8000)·0.5.
  it.each<[string, { cpu: number; free: number[] }, PodOverrides, number]>([
    // r = (56000/128000)·0.5 + (3000/8000)·0.5 = 0.21875 + 0.1875 = 0.40625 → 59.375
    ['idle 64-vCPU 4-GPU node, 8 vCPU + 1 GPU', { cpu: 64000, free: [1000, 1000, 1000, 1000] }, { cpuMilli: 8000 }, 59],
    // r = (56000/128000)·0.5 + (1300/8000)·0.5 = 0.21875 + 0.08125 = 0.3 → 70
    [
      'partly used GPUs, 8 vCPU + 2 × 500',
      { cpu: 64000, free: [300, 1000, 1000, 0] },
      { cpuMilli: 8000, gpuCount: 2, gpuMilli: 500 },
      70,
    ],
    // r = 0 → 100: nothing left over
    ['an exact fit', { cpu: 16000, free: [1000, 1000] }, { cpuMilli: 16000, gpuCount: 2 }, 100],
    // r = (96000/128000)·0.5 + (2000/8000)·0.5 = 0.375 + 0.125 = 0.5 → 50
    ['CPU-only pod', { cpu: 128000, free: [1000, 1000] }, { cpuMilli: 32000, gpuCount: 0 }, 50],
  ])('raw score: %s → %i', (_label, { cpu, free }, pod, expected) => {
    const cluster = aCluster([aNode({ cpuMilli: cpu, gpuCount: free.length })]);
    occupyGpus(cluster.nodes[0]!, free);
    expect(createBestFitScore().score(aCycleContext(cluster, aPod(pod)), cluster.nodes[0]!)).toBe(expected);
  });

  it.each<[number[], number[]]>([
    [
      [59, 80, 70],
      [0, 100, 52],
    ],
    [
      [10, 10, 10],
      [0, 0, 0],
    ],
    [[42], [0]],
    [
      [0, 100, 33],
      [0, 100, 33],
    ],
  ])('normalises %j to %j (integer min–max, all 0 when equal)', (raw, expected) => {
    const scores = Float64Array.from(raw);
    const cluster = aCluster([]);
    createBestFitScore().normalize!(aCycleContext(cluster, aPod()), [], scores);
    expect(Array.from(scores)).toEqual(expected);
  });
});
