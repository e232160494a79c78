import { describe, it, expect } from 'vitest';
import { createRandomGpu } from './random-gpu.js';
import { SeededRng } from '../../random/rng.js';
import { aCluster, aCycleContext, aNode, aPod, occupyGpus } from '../../testing/builders.js';

describe('random-gpu', () => {
  const cluster = aCluster([aNode({ gpuCount: 4 })]);
  occupyGpus(cluster.nodes[0]!, [1000, 100, 600, 1000]);
  const node = cluster.nodes[0]!;

  const draws = (seed: number, n: number, gpuMilli: number): number[] => {
    const rng = new SeededRng(seed);
    const plugin = createRandomGpu();
    return Array.from(
      { length: n },
      () => plugin.selectGpus(aCycleContext(cluster, aPod({ gpuMilli }), rng), node)[0]!,
    );
  };

  it('a sharing pod gets a uniformly drawn hosting GPU, fully free ones included; deterministic per seed', () => {
    const a = draws(42, 60, 500);
    expect(a).toEqual(draws(42, 60, 500));
    expect(new Set(a)).toEqual(new Set([0, 2, 3]));
  });

  it('a whole-GPU pod gets the lowest-index fully free GPUs', () => {
    const plugin = createRandomGpu();
    expect(plugin.selectGpus(aCycleContext(cluster, aPod({ gpuCount: 2 })), node)).toEqual([0, 3]);
  });
});
