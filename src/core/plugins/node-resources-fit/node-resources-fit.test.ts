import { describe, expect, it } from 'vitest';
import { createNodeResourcesFit, NAME } from './node-resources-fit.js';
import { allocate, FIT_REFUSALS } from '../../framework/allocation.js';
import { aCluster, aCpuPod, aCycleContext, aNode, aPod, occupyGpus } from '../../testing/builders.js';

describe('node-resources-fit', () => {
  const plugin = createNodeResourcesFit();

  it('is named node-resources-fit', () => {
    expect(plugin.name).toBe('node-resources-fit');
    expect(NAME).toBe('node-resources-fit');
  });

  it('passes a pod that takes exactly the free CPU and host memory', () => {
    const cluster = aCluster([aNode({ cpuMilli: 8000, hostMemoryMiB: 16384 })]);
    const node = cluster.nodes[0]!;
    allocate(node, aCpuPod(3000, 4096), []);
    expect(node.freeCpuMilli).toBe(5000);
    expect(node.freeHostMemoryMiB).toBe(12288);
    expect(plugin.filter(aCycleContext(cluster, aCpuPod(5000, 12288)), node)).toBeNull();
  });

  it('refuses one milli-CPU too many', () => {
    const cluster = aCluster([aNode({ cpuMilli: 8000, hostMemoryMiB: 16384 })]);
    expect(plugin.filter(aCycleContext(cluster, aCpuPod(8001, 1)), cluster.nodes[0]!)).toEqual({
      code: 'host-cpu',
      lasting: false,
      details: {},
    });
  });

  it('refuses one MiB of host memory too many', () => {
    const cluster = aCluster([aNode({ cpuMilli: 8000, hostMemoryMiB: 16384 })]);
    expect(plugin.filter(aCycleContext(cluster, aCpuPod(1000, 16385)), cluster.nodes[0]!)).toEqual({
      code: 'host-memory',
      lasting: false,
      details: {},
    });
  });

  it('reports CPU first when both are short', () => {
    const cluster = aCluster([aNode({ cpuMilli: 1000, hostMemoryMiB: 1024 })]);
    expect(plugin.filter(aCycleContext(cluster, aCpuPod(2000, 2048)), cluster.nodes[0]!)).toBe(
      FIT_REFUSALS.insufficientCpu,
    );
  });

  it('does not look at GPUs (gpu-fit does)', () => {
    const cluster = aCluster([aNode({ gpuCount: 1 }), aNode({ gpuCount: 0 })]);
    occupyGpus(cluster.nodes[0]!, [0]);
    const ctx = aCycleContext(cluster, aPod({ gpuCount: 1, allowedGpuModels: ['A100'] }));
    expect(plugin.filter(ctx, cluster.nodes[0]!)).toBeNull();
    expect(plugin.filter(ctx, cluster.nodes[1]!)).toBeNull();
  });
});
