import { describe, it, expect } from 'vitest';
import { Scheduler } from './scheduler.js';
import type { ScorePlugin, SchedulingProfile } from './extension-points.js';
import { buildTargetWorkload } from '../fragmentation/target-workload.js';
import { findPolicy, POLICIES } from '../policies/registry.js';
import { SeededRng } from '../random/rng.js';
import { aCluster, aCpuPod, aNode, aPod, type TestCluster } from '../testing/builders.js';
import type { ResourceDemand } from './resource-demand.js';

const anyWorkload = buildTargetWorkload([{ cpuMilli: 1000, gpuMilli: 1000, gpuCount: 1, allowedGpuModels: [] }]);

function schedulerFor(policy: string, cluster: TestCluster, workload = anyWorkload): Scheduler {
  const profile = findPolicy(policy)!.create({ nodeCount: cluster.nodes.length, targetWorkload: workload });
  return new Scheduler(cluster, profile, new SeededRng(42));
}

/** Schedules and commits `pod`; returns the chosen node index (throws when unschedulable). */
function place(scheduler: Scheduler, pod: ResourceDemand): number {
  const d = scheduler.schedule(pod);
  if (d.kind !== 'placed') throw new Error(`unschedulable: ${JSON.stringify(d.reasons)}`);
  scheduler.commit(pod, d.nodeIndex, d.gpuIndices);
  return d.nodeIndex;
}

describe('Scheduler', () => {
  describe('ties go to the lowest rank', () => {
    const deterministic = POLICIES.map((p) => p.name).filter((n) => n !== 'random');
    it.each(deterministic)('%s: three equal nodes, node 2 has rank 0', (policy) => {
      const cluster = aCluster([aNode(), aNode(), aNode()], [1, 2, 0]);
      const s = schedulerFor(policy, cluster);
      for (const pod of [aPod(), aPod({ gpuMilli: 300 }), aCpuPod()]) {
        const d = s.schedule(pod);
        expect(d).toMatchObject({ kind: 'placed', nodeIndex: 2 });
      }
    });

    it('with a constant score plugin, the rank alone decides, whatever the filter order', () => {
      const constant: ScorePlugin = { name: 'constant', cacheable: true, score: () => 7 };
      const base = findPolicy('dot-product')!.create({ nodeCount: 4 });
      const profile: SchedulingProfile = { ...base, scores: [{ plugin: constant, weight: 1000 }] };
      for (const ranks of [
        [3, 1, 0, 2],
        [0, 1, 2, 3],
        [2, 3, 1, 0],
      ]) {
        const cluster = aCluster([aNode(), aNode(), aNode(), aNode()], ranks);
        const d = new Scheduler(cluster, profile, new SeededRng(1)).schedule(aPod());
        expect(d).toMatchObject({ kind: 'placed', nodeIndex: ranks.indexOf(0) });
      }
    });
  });

  it('a single feasible node is taken without scoring', () => {
    const throwing: ScorePlugin = {
      name: 'throwing',
      cacheable: false,
      score: () => {
        throw new Error('scored');
      },
    };
    const base = findPolicy('best-fit')!.create({ nodeCount: 2 });
    const profile: SchedulingProfile = { ...base, scores: [{ plugin: throwing, weight: 1000 }] };
    const cluster = aCluster([aNode({ gpuCount: 0 }), aNode()]);
    expect(new Scheduler(cluster, profile, new SeededRng(1)).schedule(aPod())).toEqual({
      kind: 'placed',
      nodeIndex: 1,
      gpuIndices: [0],
    });
  });

  it('an infeasible pod is unschedulable with per-reason node counts', () => {
    const cluster = aCluster([
      aNode({ cpuMilli: 2000 }), // too little CPU
      aNode({ hostMemoryMiB: 1024 }), // too little host memory
      aNode({ gpuCount: 0 }), // no GPU
      aNode({ gpuCount: 0 }),
      aNode({ gpuModel: 'T4', gpuMemoryMiB: 16384 }), // model not allowed
      aNode({ gpuCount: 1 }), // too few GPUs
      aNode({ gpuCount: 1 }),
    ]);
    const pod = aPod({ cpuMilli: 4000, hostMemoryMiB: 2048, gpuCount: 2, allowedGpuModels: ['V100M32'] });
    for (const policy of POLICIES) {
      const decision = schedulerFor(policy.name, cluster).schedule(pod);
      expect(decision).toEqual({
        kind: 'unschedulable',
        reasons: {
          'host-cpu': 1,
          'host-memory': 1,
          'no-gpu': 2,
          'gpu-model-not-allowed': 1,
          'gpu-capacity': 2,
        },
      });
    }
  });

  it('does not change any node when scheduling, only when committing', () => {
    const cluster = aCluster([aNode(), aNode()]);
    const s = schedulerFor('fgd', cluster);
    const d = s.schedule(aPod({ gpuMilli: 400 }));
    expect(cluster.nodes.map((n) => n.version)).toEqual([0, 0]);
    expect(d.kind).toBe('placed');
    if (d.kind !== 'placed') return;
    s.commit(aPod({ gpuMilli: 400 }), d.nodeIndex, d.gpuIndices);
    expect(cluster.nodes[d.nodeIndex]!.gpuFreeMilli[d.gpuIndices[0]!]).toBe(600);
    s.uncommit(aPod({ gpuMilli: 400 }), d.nodeIndex, d.gpuIndices);
    expect(cluster.nodes[d.nodeIndex]!.gpuFreeMilli[d.gpuIndices[0]!]).toBe(1000);
  });

  describe('re-scores a node whose version changed since its score was cached', () => {
    it('best-fit packs two pods in a row onto the same node', () => {
      const cluster = aCluster([aNode(), aNode(), aNode()], [2, 0, 1]);
      const s = schedulerFor('best-fit', cluster);
      expect(place(s, aPod({ gpuMilli: 300 }))).toBe(1);
      expect(place(s, aPod({ gpuMilli: 300 }))).toBe(1);
    });

    it("fgd moves a CPU-only pod away once it would strand the node's GPU", () => {
      // M: one type wanting 1 vCPU and a whole GPU. Both nodes: 3 vCPU, 1 GPU; all scores tie (Δ = 0 → 50)
      // until node 0 has 1 vCPU left: a third pod there would make the type lack CPU (Δ = 1000 → 26).
      // A stale cached 50 for node 0 would keep it tied and winning by rank.
      const cluster = aCluster([aNode({ cpuMilli: 3000, gpuCount: 1 }), aNode({ cpuMilli: 3000, gpuCount: 1 })]);
      const s = schedulerFor('fgd', cluster);
      expect([place(s, aCpuPod()), place(s, aCpuPod()), place(s, aCpuPod())]).toEqual([0, 0, 1]);
    });

    it('best-fit forgets the better score of a node once its pod is released', () => {
      const cluster = aCluster([aNode(), aNode()]);
      const s = schedulerFor('best-fit', cluster);
      const filler = aPod({ gpuMilli: 500 });
      s.commit(filler, 1, [0]);
      expect(s.schedule(aPod({ gpuMilli: 200 }))).toMatchObject({ nodeIndex: 1 }); // caches node 1's score
      s.uncommit(filler, 1, [0]);
      expect(s.schedule(aPod({ gpuMilli: 200 }))).toMatchObject({ nodeIndex: 0 }); // tie again: rank 0 wins
    });

    it("more shapes than the cache's initial capacity are scored consistently", () => {
      const cluster = aCluster([aNode({ gpuCount: 4 }), aNode({ gpuCount: 4 })]);
      const s = schedulerFor('best-fit', cluster);
      const filler = aPod({ cpuMilli: 8000, gpuMilli: 500 }); // node 1's raw score is 6 points higher
      s.commit(filler, 1, [0]);
      for (let i = 1; i <= 40; i++) expect(s.schedule(aPod({ gpuMilli: 10 + i }))).toMatchObject({ nodeIndex: 1 });
      s.uncommit(filler, 1, [0]);
      for (let i = 1; i <= 40; i++) expect(s.schedule(aPod({ gpuMilli: 10 + i }))).toMatchObject({ nodeIndex: 0 });
    });
  });

  it('random: same seed → same placements', () => {
    const run = (seed: number): number[] => {
      const cluster = aCluster(Array.from({ length: 6 }, () => aNode({ gpuCount: 4 })));
      const s = new Scheduler(cluster, findPolicy('random')!.create({ nodeCount: 6 }), new SeededRng(seed));
      return Array.from({ length: 20 }, () => place(s, aPod({ gpuMilli: 250 })));
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });
});
