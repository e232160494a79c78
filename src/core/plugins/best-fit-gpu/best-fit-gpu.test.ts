import { describe, it, expect } from 'vitest';
import { bestFitGpus, createBestFitGpu } from './best-fit-gpu.js';
import { allocate } from '../../framework/allocation.js';
import { aCluster, aCycleContext, aNode, aPod, occupyGpus, type PodOverrides } from '../../testing/builders.js';

describe('best-fit-gpu', () => {
  it.each<[string, number[], PodOverrides, number[]]>([
    ['least free GPU that fits', [600, 300, 1000, 450], { gpuMilli: 400 }, [3]],
    ['lowest index among equally free GPUs', [600, 300, 300, 1000], { gpuMilli: 250 }, [1]],
    ['a fully free GPU only when no partly used one fits', [600, 300, 1000, 450], { gpuMilli: 700 }, [2]],
    ['a GPU with exactly the request free', [600, 300, 1000, 450], { gpuMilli: 600 }, [0]],
    ['whole GPU: the lowest-index fully free one', [1000, 300, 1000, 1000], { gpuMilli: 1000 }, [0]],
    [
      'whole GPUs: the lowest-index fully free ones, ascending',
      [500, 1000, 0, 1000, 1000],
      { gpuMilli: 1000, gpuCount: 2 },
      [1, 3],
    ],
    [
      'multi-GPU partial slices: least free first, index on ties',
      [400, 1000, 400, 700],
      { gpuMilli: 400, gpuCount: 3 },
      [0, 2, 3],
    ],
    ['fewer indices when the node cannot host the pod', [500, 1000], { gpuMilli: 1000, gpuCount: 2 }, [1]],
    ['none when no GPU fits', [500, 200], { gpuMilli: 600 }, []],
  ])('%s', (_label, free, pod, expected) => {
    const { nodes } = aCluster([aNode({ gpuCount: free.length })]);
    occupyGpus(nodes[0]!, free);
    expect(bestFitGpus(nodes[0]!, aPod(pod))).toEqual(expected);
  });

  it('skips GPUs without enough free GPU memory', () => {
    const { nodes } = aCluster([aNode({ gpuCount: 2, gpuMemoryMiB: 16384 })]);
    const node = nodes[0]!;
    // GPU 0: 300 milli and 4384 MiB free; GPU 1: 800 milli and all 16384 MiB free.
    allocate(node, aPod({ cpuMilli: 0, hostMemoryMiB: 0, gpuMilli: 700, gpuMemoryMiB: 12000 }), [0]);
    allocate(node, aPod({ cpuMilli: 0, hostMemoryMiB: 0, gpuMilli: 200 }), [1]);
    expect(bestFitGpus(node, aPod({ gpuMilli: 100, gpuMemoryMiB: 4384 }))).toEqual([0]);
    expect(bestFitGpus(node, aPod({ gpuMilli: 100, gpuMemoryMiB: 4385 }))).toEqual([1]);
  });

  it('the plugin returns bestFitGpus for the cycle pod', () => {
    const cluster = aCluster([aNode({ gpuCount: 3 })]);
    occupyGpus(cluster.nodes[0]!, [900, 200, 500]);
    const pod = aPod({ gpuMilli: 150 });
    expect(createBestFitGpu().selectGpus(aCycleContext(cluster, pod), cluster.nodes[0]!)).toEqual([1]);
  });
});
