import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createDefaultPolicy, DEFAULT_WEIGHTS, evaluateDefault, type DefaultWeights } from './default-score.js';
import { evaluateFgd, fgdScoreOfDelta } from '../fgd-score/fgd-score.js';
import { buildTargetWorkload, type TaskShape } from '../../fragmentation/target-workload.js';
import { Scheduler } from '../../framework/scheduler.js';
import { findPolicy } from '../../policies/registry.js';
import { SeededRng } from '../../random/rng.js';
import { OnlineWorkload } from '../../workload/online-workload.js';
import type { NodeState } from '../../framework/node-state.js';
import type { ResourceDemand } from '../../framework/resource-demand.js';
import { allocate } from '../../framework/allocation.js';
import { aCluster, aCpuPod, aNode, aPod, occupyGpus } from '../../testing/builders.js';

const shape = (
  cpuMilli: number,
  gpuMilli: number,
  gpuCount = 1,
  allowedGpuModels: readonly string[] = [],
): TaskShape => ({ cpuMilli, gpuMilli, gpuCount, allowedGpuModels });
const times = (n: number, t: TaskShape): TaskShape[] => Array.from({ length: n }, () => t);

/** FGD alone: no capacity-aware share, no used-node bonus. */
const PURE_FGD: DefaultWeights = { capacityShare: 0, usedNodeBonus: 0 };

/** A node of `gpus` GPUs and `cpuMilli` CPU brought to the given free milli per GPU. */
function nodeWith(free: readonly number[], cpuMilli = 64000): NodeState {
  const node = aCluster([aNode({ gpuCount: free.length, cpuMilli })]).nodes[0]!;
  occupyGpus(node, free);
  return node;
}

const WORKLOADS = {
  'mixed sharing': buildTargetWorkload([...times(9, shape(1000, 500)), shape(1000, 300)]),
  'whole + 2-GPU + CPU-only': buildTargetWorkload([
    ...times(5, shape(8000, 1000)),
    ...times(3, shape(16000, 1000, 2)),
    ...times(2, shape(4000, 0, 0)),
  ]),
  'openb-like': buildTargetWorkload([
    ...times(6, shape(3152, 810)),
    ...times(3, shape(6000, 1000)),
    shape(8000, 250),
    shape(12000, 460, 1, ['T4']),
  ]),
};

describe('evaluateDefault', () => {
  describe('with capacityShare 0 and usedNodeBonus 0 it is evaluateFgd', () => {
    const nodes: [string, () => NodeState][] = [
      ['idle 2-GPU', () => nodeWith([1000, 1000])],
      ['partial 3-GPU', () => nodeWith([1000, 400, 200])],
      ['used 4-GPU', () => nodeWith([0, 1000, 1000, 700])],
      ['8-GPU, low CPU', () => nodeWith([1000, 1000, 1000, 1000, 500, 1000, 1000, 1000], 12000)],
      ['full GPUs', () => nodeWith([0, 0])],
    ];
    const pods: [string, ResourceDemand][] = [
      ['whole 1-GPU', aPod({ cpuMilli: 6000 })],
      ['2-GPU', aPod({ cpuMilli: 16000, gpuCount: 2 })],
      ['sharing 200', aPod({ cpuMilli: 2000, gpuMilli: 200 })],
      ['sharing 810', aPod({ cpuMilli: 3152, gpuMilli: 810 })],
      ['CPU-only', aCpuPod(4000)],
    ];
    const table = Object.keys(WORKLOADS).flatMap((w) => nodes.flatMap(([n]) => pods.map(([p]) => [w, n, p] as const)));
    it.each(table)('M %s, node %s, pod %s', (w, n, p) => {
      const workload = WORKLOADS[w as keyof typeof WORKLOADS];
      const node = nodes.find(([name]) => name === n)![1]();
      const pod = pods.find(([name]) => name === p)![1];
      expect(evaluateDefault(node, pod, workload, PURE_FGD)).toEqual(evaluateFgd(node, pod, workload));
    });

    it('for random nodes and pods (property)', () => {
      const gpuFree = fc.integer({ min: 0, max: 10 }).map((x) => x * 100);
      fc.assert(
        fc.property(
          fc.array(gpuFree, { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 0, max: 64 }).map((x) => x * 1000),
          fc.integer({ min: 0, max: 3 }),
          fc.integer({ min: 1, max: 1000 }),
          fc.integer({ min: 0, max: 16000 }),
          fc.constantFrom(...Object.values(WORKLOADS)),
          (free, cpu, gpuCount, milli, podCpu, workload) => {
            const node = nodeWith(free, cpu);
            const pod =
              gpuCount === 0
                ? aCpuPod(podCpu)
                : aPod({ cpuMilli: podCpu, gpuCount, gpuMilli: gpuCount === 1 ? milli : 1000 });
            expect(evaluateDefault(node, pod, workload, PURE_FGD)).toEqual(evaluateFgd(node, pod, workload));
          },
        ),
        { seed: 7, numRuns: 300 },
      );
    });
  });

  it('does not change the node', () => {
    const node = nodeWith([1000, 300]);
    const before = { cpu: node.freeCpuMilli, gpus: Array.from(node.gpuFreeMilli), version: node.version };
    evaluateDefault(node, aPod({ gpuMilli: 200 }), WORKLOADS['mixed sharing']);
    evaluateDefault(node, aPod(), WORKLOADS['mixed sharing']);
    expect({ cpu: node.freeCpuMilli, gpus: Array.from(node.gpuFreeMilli), version: node.version }).toEqual(before);
  });

  it('blends (1 − α)·FGD + α·capacity-aware fragmentation (hand-computed)', () => {
    // M: one whole 1-GPU type (c = 16000). Idle 4-GPU nodes, whole 1-GPU pod with 8000 CPU.
    //   64 vCPU node: capacity copies min(4, 4) = 4 → min(3, ⌊56000/16000⌋ = 3) = 3, fragment 0 → 0:
    //   Δ = 0 → class 50.
    //   40 vCPU node: copies min(4, 2) = 2, fragment 2000 → min(3, ⌊32000/16000⌋ = 2) = 2, usable
    //   2000 of 3000, fragment 1000: Δ = 0.1·(−1000) = −100 → class 52 (the pod uses a GPU the
    //   node's CPU would have stranded).
    const workload = buildTargetWorkload([shape(16000, 1000)]);
    const pod = aPod({ cpuMilli: 8000 });
    expect(evaluateDefault(nodeWith([1000, 1000, 1000, 1000]), pod, workload)).toEqual({ score: 50, gpuIndices: [0] });
    expect(evaluateDefault(nodeWith([1000, 1000, 1000, 1000], 40000), pod, workload)).toEqual({
      score: fgdScoreOfDelta(-100),
      gpuIndices: [0],
    });
    expect(fgdScoreOfDelta(-100)).toBe(52);
    // FGD alone sees no difference: both 50.
    expect(evaluateFgd(nodeWith([1000, 1000, 1000, 1000]), pod, workload).score).toBe(50);
    expect(evaluateFgd(nodeWith([1000, 1000, 1000, 1000], 40000), pod, workload).score).toBe(50);
  });

  it('a multi-GPU type counts by GPUs alone in the capacity term: an idle GPU left over is not fragment', () => {
    // M: one 2-GPU whole type. A whole 1-GPU pod on [1000 ×4] leaves 3 whole GPUs: one copy fits,
    // so nothing is fragment under either term (Δ = 0, class 50), as FGD.
    const workload = buildTargetWorkload([shape(16000, 1000, 2)]);
    const pod = aPod({ cpuMilli: 1000 });
    expect(evaluateDefault(nodeWith([1000, 1000, 1000, 1000]), pod, workload)).toEqual({ score: 50, gpuIndices: [0] });
    expect(evaluateFgd(nodeWith([1000, 1000, 1000, 1000]), pod, workload).score).toBe(50);
  });
});

describe('the used-node bonus', () => {
  // M: whole 1-GPU tasks. Two identical 4-GPU nodes; node 1 already runs a whole-GPU pod on GPU 0.
  // For a whole-GPU pod both stay at fragmentation 0 (FGD and capacity-aware): class 50 on both.
  // For a 500-milli pod both end with one half GPU stranded (Δ = 500 in both measures): class 37 on both.
  const workload = buildTargetWorkload([shape(1000, 1000)]);
  const setup = () => {
    const cluster = aCluster([aNode({ gpuCount: 4 }), aNode({ gpuCount: 4 })]); // ranks: node 0 best
    const running = aPod();
    const s = new Scheduler(cluster, createDefaultPolicy({ targetWorkload: workload }), new SeededRng(42));
    s.commit(running, 1, [0]);
    return { cluster, s };
  };

  it.each([
    ['whole 1-GPU', aPod(), 50, [1]],
    ['sharing 500', aPod({ gpuMilli: 500 }), 37, [1]],
  ] as const)('%s pod: same FGD class %i on both, the used node gets +0.5', (_name, pod, fgdClass, usedGpus) => {
    const { cluster } = setup();
    const [idle, used] = cluster.nodes as [NodeState, NodeState];
    expect(evaluateFgd(idle, pod, workload).score).toBe(fgdClass);
    expect(evaluateFgd(used, pod, workload).score).toBe(fgdClass);
    expect(evaluateDefault(idle, pod, workload)).toEqual({ score: fgdClass, gpuIndices: [0] });
    expect(evaluateDefault(used, pod, workload)).toEqual({ score: fgdClass + 0.5, gpuIndices: [...usedGpus] });
  });

  it.each([
    ['whole 1-GPU', aPod()],
    ['sharing 500', aPod({ gpuMilli: 500 })],
    ['2-GPU', aPod({ gpuCount: 2 })],
  ])('%s pod: the used node wins in a Scheduler although it has the worse rank', (_name, pod) => {
    const { s } = setup();
    expect(s.schedule(pod)).toMatchObject({ kind: 'placed', nodeIndex: 1 });
  });

  it('without the bonus (or under fgd) the better-ranked idle node wins the same tie', () => {
    const { cluster } = setup();
    const noBonus = new Scheduler(
      cluster,
      createDefaultPolicy({ targetWorkload: workload, weights: { ...DEFAULT_WEIGHTS, usedNodeBonus: 0 } }),
      new SeededRng(42),
    );
    expect(noBonus.schedule(aPod())).toMatchObject({ kind: 'placed', nodeIndex: 0 });
    const fgd = new Scheduler(
      cluster,
      findPolicy('fgd')!.create({ nodeCount: 2, targetWorkload: workload }),
      new SeededRng(42),
    );
    expect(fgd.schedule(aPod())).toMatchObject({ kind: 'placed', nodeIndex: 0 });
  });

  it('CPU-only pods get no bonus: the idle node (rank 0) wins', () => {
    const { cluster, s } = setup();
    const pod = aCpuPod(4000);
    expect(evaluateDefault(cluster.nodes[1]!, pod, workload)).toEqual({ score: 50, gpuIndices: [] });
    expect(evaluateDefault(cluster.nodes[0]!, pod, workload)).toEqual({ score: 50, gpuIndices: [] });
    expect(s.schedule(pod)).toEqual({ kind: 'placed', nodeIndex: 0, gpuIndices: [] });
  });

  it('a node whose only load is CPU-only pods is not "used": no bonus', () => {
    const cpuLoaded = nodeWith([1000, 1000]);
    allocate(cpuLoaded, aCpuPod(8000), []);
    expect(cpuLoaded.isGpuIdle()).toBe(true);
    const score = evaluateDefault(cpuLoaded, aPod(), workload).score;
    expect(Number.isInteger(score)).toBe(true);
    expect(score).toBe(evaluateDefault(nodeWith([1000, 1000]), aPod(), workload).score);
  });

  it('the bonus is below 1, so it never overturns a class difference', () => {
    expect(DEFAULT_WEIGHTS.usedNodeBonus).toBeLessThan(1);
    // M: whole 1-GPU tasks with 1 vCPU. Two 3-GPU, 64-vCPU nodes; node 0 (rank 0) runs a whole-GPU
    // pod that took 62 vCPU. A whole-GPU pod with 1.5 vCPU would leave node 0 with 0.5 vCPU and one
    // free GPU that no task can use: Δ = 1000 in both measures → class 26, +0.5 = 26.5. On the
    // idle node 1 nothing is stranded: Δ = 0 → 50. Node 1 wins despite its worse rank and no bonus.
    const m = buildTargetWorkload([shape(1000, 1000)]);
    const cluster = aCluster([aNode({ gpuCount: 3 }), aNode({ gpuCount: 3 })]);
    const s = new Scheduler(cluster, createDefaultPolicy({ targetWorkload: m }), new SeededRng(42));
    s.commit(aPod({ cpuMilli: 62000 }), 0, [0]);
    const pod = aPod({ cpuMilli: 1500 });
    expect(evaluateDefault(cluster.nodes[0]!, pod, m)).toEqual({ score: 26.5, gpuIndices: [1] });
    expect(evaluateDefault(cluster.nodes[1]!, pod, m)).toEqual({ score: 50, gpuIndices: [0] });
    expect(s.schedule(pod)).toEqual({ kind: 'placed', nodeIndex: 1, gpuIndices: [0] });
  });
});

describe('createDefaultPolicy without targetWorkload: learns online', () => {
  it('has observe, and schedules from the first pod with the prior as M', () => {
    const profile = createDefaultPolicy();
    expect(profile.name).toBe('default');
    expect(profile.observe).toBeTypeOf('function');
    // Node 0 idle (rank 0), node 1 has a half-used GPU. A 500-milli pod fills that GPU on node 1:
    // under the prior M every type loses fragment there, while on node 0 it would strand 500.
    const cluster = aCluster([aNode({ gpuCount: 2 }), aNode({ gpuCount: 2 })]);
    occupyGpus(cluster.nodes[1]!, [500, 1000]);
    const s = new Scheduler(cluster, profile, new SeededRng(42));
    const pod = aPod({ cpuMilli: 4000, gpuMilli: 500 });
    const prior = new OnlineWorkload().workload();
    expect(evaluateDefault(cluster.nodes[1]!, pod, prior).score).toBeGreaterThan(
      evaluateDefault(cluster.nodes[0]!, pod, prior).score,
    );
    expect(s.schedule(pod)).toEqual({ kind: 'placed', nodeIndex: 1, gpuIndices: [0] });
  });

  it('a whole-GPU pod as the very first request on an empty 2-node cluster goes to rank 0, GPU 0', () => {
    const cluster = aCluster([aNode({ gpuCount: 2 }), aNode({ gpuCount: 2 })], [1, 0]);
    const s = new Scheduler(cluster, createDefaultPolicy(), new SeededRng(42));
    expect(s.schedule(aPod({ cpuMilli: 8000 }))).toEqual({ kind: 'placed', nodeIndex: 1, gpuIndices: [0] });
  });

  it('the scheduler feeds every request to the learner: the cache epoch moves after 16 requests', () => {
    const profile = createDefaultPolicy();
    const plugin = profile.scores[0]!.plugin;
    const cluster = aCluster([aNode({ gpuCount: 8 }), aNode({ gpuCount: 8 })]);
    const s = new Scheduler(cluster, profile, new SeededRng(42));
    for (let i = 0; i < 15; i++) expect(s.schedule(aPod({ gpuMilli: 300 })).kind).toBe('placed');
    expect(plugin.cacheEpoch?.()).toBe(0);
    s.schedule(aPod({ gpuMilli: 300 }));
    expect(plugin.cacheEpoch?.()).toBe(1);
  });

  it('with a targetWorkload there is no observe and the epoch stays 0', () => {
    const profile = createDefaultPolicy({ targetWorkload: WORKLOADS['mixed sharing'] });
    expect(profile.observe).toBeUndefined();
    expect(profile.scores[0]!.plugin.cacheEpoch?.()).toBe(0);
  });
});

describe("registry 'default' and learnWorkloadOnline", () => {
  const policy = findPolicy('default')!;
  const targetWorkload = WORKLOADS['openb-like'];

  it('targetWorkload given, learnWorkloadOnline false (or absent): fixed M, observe undefined', () => {
    expect(policy.create({ nodeCount: 2, targetWorkload, learnWorkloadOnline: false }).observe).toBeUndefined();
    expect(policy.create({ nodeCount: 2, targetWorkload }).observe).toBeUndefined();
  });

  it('targetWorkload given, learnWorkloadOnline true: learns online, observe defined', () => {
    expect(policy.create({ nodeCount: 2, targetWorkload, learnWorkloadOnline: true }).observe).toBeTypeOf('function');
  });

  it('no targetWorkload: learns online whatever the flag', () => {
    expect(policy.create({ nodeCount: 2 }).observe).toBeTypeOf('function');
    expect(policy.create({ nodeCount: 2, learnWorkloadOnline: false }).observe).toBeTypeOf('function');
  });
});
