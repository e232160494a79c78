import { describe, it, expect } from 'vitest';
import { createGpuClusteringScore, gpuTaskKind } from './gpu-clustering-score.js';
import { allocate, release } from '../../framework/allocation.js';
import type { ResourceDemand } from '../../framework/resource-demand.js';
import { aCluster, aCpuPod, aCycleContext, aNode, aPod, type TestCluster } from '../../testing/builders.js';

/** b = ⌊25·(8000 − G)/8000⌋, the in-tier bonus. */
const bonus = (idleMilli: number): number => Math.floor((25 * (8000 - idleMilli)) / 8000);

const share = aPod({ gpuMilli: 500 });
const oneGpu = aPod();
const twoGpu = aPod({ gpuCount: 2 });

describe('gpu-clustering-score (docs/simulator.md "Policies")', () => {
  it('classifies pods by kind', () => {
    expect(gpuTaskKind(share)).toBe('share');
    expect(gpuTaskKind(oneGpu)).toBe('1-gpu');
    expect(gpuTaskKind(aPod({ gpuCount: 8 }))).toBe('8-gpu');
    expect(gpuTaskKind(aCpuPod())).toBeNull();
  });

  it.each([
    [1, 46],
    [2, 43],
    [4, 37],
    [8, 25],
  ])('idle %i-GPU node → %i (25 + b)', (gpus, expected) => {
    const cluster = aCluster([aNode({ gpuCount: gpus })]);
    const plugin = createGpuClusteringScore(1);
    expect(plugin.score(aCycleContext(cluster, oneGpu), cluster.nodes[0]!)).toBe(expected);
    expect(expected).toBe(25 + bonus(gpus * 1000));
  });

  describe('tiers from the kinds reserved on a 4-GPU node', () => {
    const setup = () => {
      const cluster: TestCluster = aCluster([aNode({ gpuCount: 4 }), aNode({ gpuCount: 4 })]);
      const plugin = createGpuClusteringScore(2);
      const place = (pod: ResourceDemand, gpus: number[], nodeIndex = 0): void => {
        allocate(cluster.nodes[nodeIndex]!, pod, gpus);
        plugin.reserve(pod, cluster.nodes[nodeIndex]!, gpus);
      };
      const unplace = (pod: ResourceDemand, gpus: number[], nodeIndex = 0): void => {
        release(cluster.nodes[nodeIndex]!, pod, gpus);
        plugin.unreserve(pod, cluster.nodes[nodeIndex]!, gpus);
      };
      const score = (pod: ResourceDemand, nodeIndex = 0): number =>
        plugin.score(aCycleContext(cluster, pod), cluster.nodes[nodeIndex]!);
      return { place, unplace, score };
    };

    it('same kind only → 75 + b; other kinds only → b', () => {
      const { place, score } = setup();
      place(share, [0]); // G = 3500, b = ⌊25·4500/8000⌋ = 14
      expect(bonus(3500)).toBe(14);
      expect(score(share)).toBe(89);
      expect(score(aPod({ gpuMilli: 100 }))).toBe(89); // any sharing pod is kind 'share'
      expect(score(oneGpu)).toBe(14);
      expect(score(twoGpu)).toBe(14);
      expect(score(share, 1)).toBe(37); // the other node stays idle: 25 + 12
    });

    it("mixed kinds including the pod's → 50 + b", () => {
      const { place, score } = setup();
      place(share, [0]);
      place(oneGpu, [1]); // G = 2500, b = ⌊25·5500/8000⌋ = 17
      expect(bonus(2500)).toBe(17);
      expect(score(share)).toBe(67);
      expect(score(oneGpu)).toBe(67);
      expect(score(twoGpu)).toBe(17);
    });

    it('CPU-only pods neither count as a kind nor score', () => {
      const { place, score } = setup();
      place(aCpuPod(4000), []);
      expect(score(oneGpu)).toBe(37); // still the idle tier
      expect(score(aCpuPod())).toBe(0);
      place(oneGpu, [0]);
      expect(score(aCpuPod())).toBe(0);
    });

    it('unreserve forgets a kind once its last pod leaves', () => {
      const { place, unplace, score } = setup();
      place(share, [0]);
      place(share, [0]);
      place(oneGpu, [1]);
      unplace(oneGpu, [1]);
      expect(score(share)).toBe(75 + bonus(3000));
      unplace(share, [0]);
      expect(score(share)).toBe(75 + bonus(3500));
      unplace(share, [0]);
      expect(score(share)).toBe(37);
      expect(score(oneGpu)).toBe(37);
    });
  });
});
