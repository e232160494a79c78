import { describe, expect, it } from 'vitest';
import { statusMessage } from '../model/status-message.js';
import { planPreemptionOnOneNode, type OneNodePreemptionInput } from './plan-on-one-node.js';
import { candidate } from './testing/fixtures.js';

/**
 * The input for a critical preemptor (job 100) over `candidates`, each on the node `nodes` names,
 * where the job fits once the jobs of one of `fitting` are all gone (one node each).
 */
function input(
  nodes: Readonly<Record<number, number>>,
  fitting: readonly (readonly number[])[],
  lostWork: Readonly<Record<number, number>>,
  rank: readonly number[] = [0, 1, 2],
): OneNodePreemptionInput {
  return {
    preemptor: { jobId: 100, priority: 1000, tenant: 't', reclaiming: false },
    candidates: Object.keys(nodes).map((id) =>
      candidate(Number(id), { priority: 100, lostWorkGpuSeconds: lostWork[Number(id)] ?? 0 }),
    ),
    fitsWithout: (ids) => fitting.some((set) => set.every((id) => ids.includes(id))),
    nowMs: 0,
    nodeOf: (id) => nodes[id]!,
    nodeRank: (n) => rank[n]!,
  };
}

describe('planPreemptionOnOneNode', () => {
  it('takes the node with the fewest victims, even when they lose more work', () => {
    // Node 0: jobs 1 and 2 together; node 1: job 3 alone.
    const plan = planPreemptionOnOneNode(input({ 1: 0, 2: 0, 3: 1 }, [[1, 2], [3]], { 1: 10, 2: 10, 3: 500 }));
    expect(plan).toEqual({ kind: 'victims', victimIds: [3], lostWorkGpuSeconds: 500, nodeIndex: 1 });
  });

  it('then the least lost work, then the lowest node rank, then the lowest node index', () => {
    const lost = planPreemptionOnOneNode(input({ 1: 0, 2: 1 }, [[1], [2]], { 1: 30, 2: 20 }));
    expect(lost).toMatchObject({ victimIds: [2], nodeIndex: 1 });
    const ranked = planPreemptionOnOneNode(input({ 1: 0, 2: 1 }, [[1], [2]], { 1: 20, 2: 20 }, [5, 3]));
    expect(ranked).toMatchObject({ victimIds: [2], nodeIndex: 1 });
    const indexed = planPreemptionOnOneNode(input({ 1: 0, 2: 1 }, [[1], [2]], { 1: 20, 2: 20 }, [3, 3]));
    expect(indexed).toMatchObject({ victimIds: [1], nodeIndex: 0 });
  });

  it('never mixes nodes: a pair that fits only across two nodes is no plan', () => {
    const plan = planPreemptionOnOneNode(input({ 1: 0, 2: 1 }, [[1, 2]], {}));
    expect([plan.kind, plan.kind === 'none' ? statusMessage(plan.reason) : null]).toEqual([
      'none',
      'no node can make room for job 100: node 0: job 100 would not fit even with all 1 eligible victim(s) ' +
        'removed; node 1: job 100 would not fit even with all 1 eligible victim(s) removed',
    ]);
  });

  it("gives the planner's own reason when nothing runs", () => {
    const plan = planPreemptionOnOneNode(input({}, [[]], {}));
    expect([plan.kind, plan.kind === 'none' ? statusMessage(plan.reason) : null]).toEqual([
      'none',
      'no running job may be preempted for job 100',
    ]);
  });
});
