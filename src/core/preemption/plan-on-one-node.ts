/**
 * Preemption whose victims all run on one node (docs/preemption.md "Victims on one node"): the
 * planner (plan-preemption.ts) runs once per node, over the candidates running there, and the
 * cheapest plan wins. A job of one node can only be made room for on one node, so the plain
 * planner's victims are also on one node; but its search looks at the cheapest candidates of the
 * whole cluster (the 12 cheapest for pairs and triples, then a greedy prefix), while this one
 * searches each node's own, so it finds the cheapest set on every node. Pure: the oracle decides
 * fit, nothing else is read.
 */
import { planPreemption, type PreemptionInput, type PreemptionPlan } from './plan-preemption.js';
import type { PreemptionCandidate } from './eligibility.js';
import { PREEMPTION_CODES, status, type PreemptionCode, type Status } from '../model/status.js';

/** What the per-node planner needs besides the planner's input. */
export interface OneNodePreemptionInput extends PreemptionInput {
  /** Index of the node each candidate runs on, by job id (every candidate's). */
  readonly nodeOf: (jobId: number) => number;
  /** Tie-break rank of a node (lower wins) between plans of as many victims and as much lost work. */
  readonly nodeRank: (nodeIndex: number) => number;
}

/** The answer: the plan of the chosen node, with that node's index, or why no node has one. */
export type OneNodePreemptionPlan =
  | {
      readonly kind: 'victims';
      /** Ascending job ids, never empty, all running on `nodeIndex`. */
      readonly victimIds: number[];
      readonly lostWorkGpuSeconds: number;
      readonly nodeIndex: number;
    }
  | { readonly kind: 'none'; readonly reason: Status<PreemptionCode> };

/**
 * Plans a preemption for `input.preemptor` with every victim on one node: `planPreemption` over
 * each node's candidates (nodes in ascending index), with the same oracle, options and time; of
 * the nodes with a plan, the one with the fewest victims wins, then the least lost work, then the
 * lowest `nodeRank`, then the lowest node index.
 * @returns the winning plan with its node, or `none` with the reason of each node (by ascending
 *   index; the planner's own reason when there is no candidate at all)
 * @throws RangeError as `planPreemption`
 */
export function planPreemptionOnOneNode(input: OneNodePreemptionInput): OneNodePreemptionPlan {
  const byNode = new Map<number, PreemptionCandidate[]>();
  for (const candidate of input.candidates) {
    const node = input.nodeOf(candidate.jobId);
    const list = byNode.get(node);
    if (list === undefined) byNode.set(node, [candidate]);
    else list.push(candidate);
  }
  if (byNode.size === 0) return planPreemption(input) as OneNodePreemptionPlan;
  let best: Extract<OneNodePreemptionPlan, { kind: 'victims' }> | null = null;
  const refusals: { nodeIndex: number; refusal: Status }[] = [];
  for (const nodeIndex of [...byNode.keys()].sort((a, b) => a - b)) {
    const plan: PreemptionPlan = planPreemption({ ...input, candidates: byNode.get(nodeIndex)! });
    if (plan.kind === 'none') {
      refusals.push({ nodeIndex, refusal: plan.reason });
      continue;
    }
    const found = { ...plan, nodeIndex };
    if (best === null || isCheaper(found, best, input.nodeRank)) best = found;
  }
  return (
    best ?? {
      kind: 'none',
      reason: status(PREEMPTION_CODES.noNodeWithRoom, false, {
        preemptorJobId: input.preemptor.jobId,
        nodes: refusals,
      }),
    }
  );
}

function isCheaper(
  a: { victimIds: readonly number[]; lostWorkGpuSeconds: number; nodeIndex: number },
  b: { victimIds: readonly number[]; lostWorkGpuSeconds: number; nodeIndex: number },
  nodeRank: (nodeIndex: number) => number,
): boolean {
  const order =
    a.victimIds.length - b.victimIds.length ||
    a.lostWorkGpuSeconds - b.lostWorkGpuSeconds ||
    nodeRank(a.nodeIndex) - nodeRank(b.nodeIndex) ||
    a.nodeIndex - b.nodeIndex;
  return order < 0;
}
