import { describe, it, expect } from 'vitest';
import { createFgd, evaluateFgd, fgdScoreOfDelta } from './fgd-score.js';
import { buildTargetWorkload, type TaskShape } from '../../fragmentation/target-workload.js';
import { aCluster, aCpuPod, aCycleContext, aNode, aPod, occupyGpus } from '../../testing/builders.js';

const shape = (cpuMilli: number, gpuMilli: number, gpuCount = 1): TaskShape => ({
  cpuMilli,
  gpuMilli,
  gpuCount,
  allowedGpuModels: [],
});
const times = (n: number, t: TaskShape): TaskShape[] => Array.from({ length: n }, () => t);

describe('fgdScoreOfDelta: trunc(100·σ(−Δ/1000))', () => {
  it.each([
    [0, 50],
    [40, 49],
    [40.005, 49],
    [40.006, 48], // 49 ⇔ 0 < Δ ≤ 1000·ln(51/49) ≈ 40.0053
    [1e-9, 49],
    [-40, 50],
    [-40.0001, 50], // still class 50: the boundary is −40.0053, not −40.0
    [-40.005, 50],
    [-40.006, 51],
    [-45, 51],
    [200, 45],
    [500, 37],
    [1000, 26],
    [-200, 54],
    [1e6, 0],
    [-1e6, 100],
  ])('Δ = %f → %i', (delta, expected) => {
    expect(fgdScoreOfDelta(delta)).toBe(expected);
  });
});

describe('evaluateFgd', () => {
  it('a sharing pod gets the lowest-index GPU reaching the best integer score (not the min-Δ GPU)', () => {
    // M: 90% want 500 milli, 10% want 300 milli. GPUs free [1000, 400, 200], pod wants 50 milli.
    // F before = 0.9·(400+200) + 0.1·200 = 560.
    //   GPU 0 → [950, 400, 200]: F = 560, Δ = 0     → 50
    //   GPU 1 → [1000, 350, 200]: F = 0.9·550 + 0.1·200 = 515, Δ = −45 → 51
    //   GPU 2 → [1000, 400, 150]: F = 0.9·550 + 0.1·150 = 510, Δ = −50 → 51
    const workload = buildTargetWorkload([...times(9, shape(1000, 500)), shape(1000, 300)]);
    const cluster = aCluster([aNode({ gpuCount: 3 })]);
    occupyGpus(cluster.nodes[0]!, [1000, 400, 200]);
    expect(evaluateFgd(cluster.nodes[0]!, aPod({ gpuMilli: 50 }), workload)).toEqual({ score: 51, gpuIndices: [1] });
  });

  it('on an exact tie takes the lower index, even when best-fit would take the other GPU', () => {
    // M: one type of 500 milli. GPUs free [1000, 300, 250], pod wants 200: F before = 550.
    //   GPU 0: Δ = 0 → 50; GPU 1: F = 350, Δ = −200 → 54; GPU 2: F = 350, Δ = −200 → 54.
    const workload = buildTargetWorkload([shape(1000, 500)]);
    const cluster = aCluster([aNode({ gpuCount: 3 })]);
    occupyGpus(cluster.nodes[0]!, [1000, 300, 250]);
    expect(evaluateFgd(cluster.nodes[0]!, aPod({ gpuMilli: 200 }), workload)).toEqual({ score: 54, gpuIndices: [1] });
  });

  it('whole-GPU pods take the best-fit (lowest-index fully free) GPUs', () => {
    // M: one 1-GPU type. GPUs free [500, 1000, 1000]: F before = 500; after taking GPU 1, F = 500 → Δ = 0.
    const workload = buildTargetWorkload([shape(1000, 1000)]);
    const cluster = aCluster([aNode({ gpuCount: 3 })]);
    occupyGpus(cluster.nodes[0]!, [500, 1000, 1000]);
    expect(evaluateFgd(cluster.nodes[0]!, aPod(), workload)).toEqual({ score: 50, gpuIndices: [1] });
    // A 2-GPU pod takes GPUs 1 and 2: the type no longer fits, so F = all idle = 500 → Δ = 0 as well.
    expect(evaluateFgd(cluster.nodes[0]!, aPod({ gpuCount: 2 }), workload)).toEqual({ score: 50, gpuIndices: [1, 2] });
  });

  it('a CPU-only pod scores 50 unless it makes a type lack CPU', () => {
    // M: one 1-GPU type wanting 4 vCPU. Node: 8 vCPU, 1 idle GPU.
    const workload = buildTargetWorkload([shape(4000, 1000)]);
    const cluster = aCluster([aNode({ cpuMilli: 8000, gpuCount: 1 })]);
    expect(evaluateFgd(cluster.nodes[0]!, aCpuPod(4000), workload)).toEqual({ score: 50, gpuIndices: [] });
    // 4001 milli leaves 3999 < 4000: the type lacks CPU, all 1000 idle milli become fragment: Δ = 1000 → 26.
    expect(evaluateFgd(cluster.nodes[0]!, aCpuPod(4001), workload)).toEqual({ score: 26, gpuIndices: [] });
  });

  it('does not change the node', () => {
    const workload = buildTargetWorkload([shape(1000, 500)]);
    const cluster = aCluster([aNode({ gpuCount: 2 })]);
    const node = cluster.nodes[0]!;
    occupyGpus(node, [300, 1000]);
    const before = { cpu: node.freeCpuMilli, gpus: Array.from(node.gpuFreeMilli), version: node.version };
    evaluateFgd(node, aPod({ gpuMilli: 200 }), workload);
    evaluateFgd(node, aPod(), workload);
    expect({ cpu: node.freeCpuMilli, gpus: Array.from(node.gpuFreeMilli), version: node.version }).toEqual(before);
  });

  it('createFgd wires the same evaluation into a score and a GPU-selection plugin', () => {
    const workload = buildTargetWorkload([...times(9, shape(1000, 500)), shape(1000, 300)]);
    const cluster = aCluster([aNode({ gpuCount: 3 })]);
    occupyGpus(cluster.nodes[0]!, [1000, 400, 200]);
    const { score, gpuSelect } = createFgd(workload);
    const ctx = aCycleContext(cluster, aPod({ gpuMilli: 50 }));
    expect(score.cacheable).toBe(true);
    expect(score.score(ctx, cluster.nodes[0]!)).toBe(51);
    expect(gpuSelect.selectGpus(ctx, cluster.nodes[0]!)).toEqual([1]);
  });
});
