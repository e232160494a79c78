import { describe, it, expect } from 'vitest';
import { createDotProductScore, MAX_NODE_CPU_MILLI, MAX_NODE_GPU_MILLI } from './dot-product-score.js';
import { allocate } from '../../framework/allocation.js';
import { aCluster, aCycleContext, aNode, aPod, occupyGpus, type PodOverrides } from '../../testing/builders.js';

describe('dot-product-score (docs/simulator.md "Policies")', () => {
  it('uses the 128-vCPU / 8-GPU normalisers', () => {
    expect([MAX_NODE_CPU_MILLI, MAX_NODE_GPU_MILLI]).toEqual([128000, 8000]);
  });

  // trunc(100·(1 − v/2)), v = (c_n/128000)·(c_t/128000) + (G_n/8000)·(D_t/8000).
  it.each<[string, { cpu: number; free: number[] }, PodOverrides, number]>([
    // v = 0.5·0.0625 + 0.5·0.125 = 0.09375 → 95.3125
    ['idle 64-vCPU 4-GPU node, 8 vCPU + 1 GPU', { cpu: 64000, free: [1000, 1000, 1000, 1000] }, { cpuMilli: 8000 }, 95],
    // v = 0.5·0.0625 + (2300/8000)·(1000/8000) = 0.03125 + 0.0359375 = 0.0671875 → 96.640625
    [
      'partly used GPUs, 8 vCPU + 2 × 500',
      { cpu: 64000, free: [300, 1000, 1000, 0] },
      { cpuMilli: 8000, gpuCount: 2, gpuMilli: 500 },
      96,
    ],
    // v = 1·0.25 = 0.25 → 87.5 (CPU term only)
    ['CPU-only pod, 128 vCPU free', { cpu: 128000, free: [1000, 1000] }, { cpuMilli: 32000, gpuCount: 0 }, 87],
    // v = 1·1 + 1·1 = 2 → 0
    [
      'the largest pod on the largest node',
      { cpu: 128000, free: Array(8).fill(1000) },
      { cpuMilli: 128000, gpuCount: 8 },
      0,
    ],
  ])('%s → %i', (_label, { cpu, free }, pod, expected) => {
    const cluster = aCluster([aNode({ cpuMilli: cpu, gpuCount: free.length })]);
    occupyGpus(cluster.nodes[0]!, free);
    expect(createDotProductScore().score(aCycleContext(cluster, aPod(pod)), cluster.nodes[0]!)).toBe(expected);
  });

  it('prefers the node with less free CPU for a CPU-only pod', () => {
    const cluster = aCluster([aNode({ cpuMilli: 64000 }), aNode({ cpuMilli: 64000 })]);
    allocate(cluster.nodes[1]!, aPod({ cpuMilli: 48000, gpuCount: 0 }), []);
    const plugin = createDotProductScore();
    const pod = aPod({ cpuMilli: 16000, gpuCount: 0 });
    // v = 0.5·0.125 = 0.0625 → 96.875; v = 0.125·0.125 = 0.015625 → 99.21875
    expect(plugin.score(aCycleContext(cluster, pod), cluster.nodes[0]!)).toBe(96);
    expect(plugin.score(aCycleContext(cluster, pod), cluster.nodes[1]!)).toBe(99);
  });
});
