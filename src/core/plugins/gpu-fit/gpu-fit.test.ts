import { describe, expect, it } from 'vitest';
import { createGpuFit, NAME } from './gpu-fit.js';
import { allocate, FIT_REFUSALS } from '../../framework/allocation.js';
import { aCluster, aCpuPod, aCycleContext, aNode, aPod, occupyGpus } from '../../testing/builders.js';

describe('gpu-fit', () => {
  const plugin = createGpuFit();

  it('is named gpu-fit', () => {
    expect(plugin.name).toBe('gpu-fit');
    expect(NAME).toBe('gpu-fit');
  });

  it('passes a CPU-only pod on every node, with or without GPUs', () => {
    const cluster = aCluster([aNode({ gpuCount: 0 }), aNode({ gpuCount: 2 })]);
    occupyGpus(cluster.nodes[1]!, [0, 0]);
    const ctx = aCycleContext(cluster, aCpuPod());
    expect(plugin.filter(ctx, cluster.nodes[0]!)).toBeNull();
    expect(plugin.filter(ctx, cluster.nodes[1]!)).toBeNull();
  });

  it('refuses a GPU pod on a node without GPUs', () => {
    const cluster = aCluster([aNode({ gpuCount: 0 })]);
    expect(plugin.filter(aCycleContext(cluster, aPod()), cluster.nodes[0]!)).toEqual({
      code: 'no-gpu',
      lasting: true,
      details: {},
    });
  });

  it('refuses a node whose GPU model is not allowed, and accepts one that is', () => {
    const cluster = aCluster([aNode({ gpuModel: 'T4' }), aNode({ gpuModel: 'A100' })]);
    const ctx = aCycleContext(cluster, aPod({ allowedGpuModels: ['A100', 'V100M32'] }));
    expect(plugin.filter(ctx, cluster.nodes[0]!)).toBe(FIT_REFUSALS.gpuModelNotAllowed);
    expect(plugin.filter(ctx, cluster.nodes[1]!)).toBeNull();
  });

  it('counts only GPUs with the per-GPU milli free, and wants gpuCount of them', () => {
    const cluster = aCluster([aNode({ gpuCount: 3 })]);
    occupyGpus(cluster.nodes[0]!, [400, 1000, 399]);
    const node = cluster.nodes[0]!;
    expect(plugin.filter(aCycleContext(cluster, aPod({ gpuMilli: 400, gpuCount: 2 })), node)).toBeNull();
    expect(plugin.filter(aCycleContext(cluster, aPod({ gpuMilli: 401, gpuCount: 2 })), node)).toEqual({
      code: 'gpu-capacity',
      lasting: false,
      details: {},
    });
    expect(plugin.filter(aCycleContext(cluster, aPod({ gpuMilli: 399, gpuCount: 3 })), node)).toBeNull();
  });

  it('wants the GPU memory free on the GPU as well', () => {
    const cluster = aCluster([aNode({ gpuCount: 1, gpuMemoryMiB: 16384 })]);
    const node = cluster.nodes[0]!;
    allocate(node, aPod({ cpuMilli: 0, hostMemoryMiB: 0, gpuMilli: 100, gpuMemoryMiB: 10000 }), [0]);
    expect(plugin.filter(aCycleContext(cluster, aPod({ gpuMilli: 500, gpuMemoryMiB: 6384 })), node)).toBeNull();
    expect(plugin.filter(aCycleContext(cluster, aPod({ gpuMilli: 500, gpuMemoryMiB: 6385 })), node)).toBe(
      FIT_REFUSALS.insufficientGpu,
    );
  });

  it('skips GPUs masked out for the placement', () => {
    const cluster = aCluster([aNode({ gpuCount: 2 })]);
    const node = cluster.nodes[0]!;
    node.setGpuEligible(1, false);
    expect(plugin.filter(aCycleContext(cluster, aPod({ gpuCount: 1 })), node)).toBeNull();
    expect(plugin.filter(aCycleContext(cluster, aPod({ gpuCount: 2 })), node)).toBe(FIT_REFUSALS.insufficientGpu);
  });

  it('does not look at CPU or host memory (node-resources-fit does)', () => {
    const cluster = aCluster([aNode({ cpuMilli: 1000, hostMemoryMiB: 1024 })]);
    const pod = aPod({ cpuMilli: 64000, hostMemoryMiB: 512 * 1024 });
    expect(plugin.filter(aCycleContext(cluster, pod), cluster.nodes[0]!)).toBeNull();
  });
});
