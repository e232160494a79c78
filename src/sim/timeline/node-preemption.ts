/**
 * Preemption on a multi-node cluster (docs/simulator.md "Timeline replay"): the victims of one
 * preemption are all on one node. The planner runs once per node, over the jobs running there,
 * with an oracle that takes the victims off that node, asks whether the preemptor fits it, and
 * puts them back; the cheapest plan over all nodes wins.
 */
import {
  defaultPreemptible,
  planPreemption,
  whyNotFit,
  type PreemptionCandidate,
  type PreemptionOptions,
  type Scheduler,
} from '../../core/index.js';
import { secondsSinceCheckpoint, type JobRun } from './job-run.js';

/** A chosen preemption: the node and the jobs to evict there. */
export interface PreemptionChoice {
  readonly nodeIndex: number;
  /** Jobs to evict, by ascending job id (the planner's order). */
  readonly victims: readonly JobRun[];
  /** Their summed lost work, GPU-seconds. */
  readonly lostWorkGpuSeconds: number;
}

/** What {@link choosePreemption} needs from the replay. */
export interface PreemptionContext {
  readonly scheduler: Scheduler;
  /** Jobs running on each node, by node index. */
  readonly runningByNode: readonly ReadonlySet<JobRun>[];
  /** Whether `shapeId`'s request fits node `nodeIndex` when that node is empty. */
  readonly fitsEmptyNode: (shapeId: number, nodeIndex: number) => boolean;
  readonly checkpointIntervalSeconds: number;
  readonly options: PreemptionOptions;
}

/** A running job as the planner sees it. */
function candidateOf(run: JobRun, nowSeconds: number, ctx: PreemptionContext): PreemptionCandidate {
  return {
    jobId: run.id,
    priority: run.priority,
    tenant: run.tenant,
    preemptible: defaultPreemptible(run.priority),
    startedAtMs: run.runStartSeconds * 1000,
    preemptionCount: run.preemptions,
    lostWorkGpuSeconds: run.gpuEquivalents * secondsSinceCheckpoint(run, nowSeconds, ctx.checkpointIntervalSeconds),
    overQuotaBorrower: false,
  };
}

/**
 * Finds the cheapest way to make room for `preemptor` (queued) by evicting jobs of one node:
 * fewest victims, then least lost work, then the node with the lowest tie-break rank. Candidates
 * are the node's jobs of lower priority that are preemptible (`defaultPreemptible`) and did not
 * start at `nowSeconds`; the core's planner applies its guards and cost order on top. Changes no
 * node (the oracle restores what it takes off).
 * @returns the choice, or null when no node has a plan
 */
export function choosePreemption(
  preemptor: JobRun,
  nowSeconds: number,
  ctx: PreemptionContext,
): PreemptionChoice | null {
  const { scheduler } = ctx;
  const nodes = scheduler.cluster.nodes;
  const rank = scheduler.cluster.nodeRank;
  const request = preemptor.job.request;
  let best: PreemptionChoice | null = null;
  for (let n = 0; n < nodes.length; n++) {
    const running = ctx.runningByNode[n]!;
    if (running.size === 0 || !ctx.fitsEmptyNode(preemptor.shapeId, n)) continue;
    const byId = new Map<number, JobRun>();
    for (const run of running) {
      // A job started at this very instant is spared: it was placed ahead in this pass by the queue
      // order (aging), which evicting it at once for a higher base priority would undo.
      if (run.priority < preemptor.priority && defaultPreemptible(run.priority) && run.runStartSeconds < nowSeconds)
        byId.set(run.id, run);
    }
    if (byId.size === 0) continue;
    const node = nodes[n]!;
    const fitsWithout = (victimIds: readonly number[]): boolean => {
      const victims = victimIds.map((id) => byId.get(id)!);
      for (const v of victims) scheduler.uncommit(v.job.request, n, v.gpuIndices);
      const fits = whyNotFit(node, request) === null;
      for (const v of victims) scheduler.commit(v.job.request, n, v.gpuIndices);
      return fits;
    };
    const plan = planPreemption({
      preemptor: { jobId: preemptor.id, priority: preemptor.priority, tenant: preemptor.tenant, reclaiming: false },
      candidates: [...byId.values()].map((run) => candidateOf(run, nowSeconds, ctx)),
      fitsWithout,
      options: ctx.options,
      nowMs: nowSeconds * 1000,
    });
    if (plan.kind !== 'victims') continue;
    const choice = {
      nodeIndex: n,
      victims: plan.victimIds.map((id) => byId.get(id)!),
      lostWorkGpuSeconds: plan.lostWorkGpuSeconds,
    };
    if (best === null || isCheaper(choice, best, rank)) best = choice;
  }
  return best;
}

function isCheaper(a: PreemptionChoice, b: PreemptionChoice, rank: Int32Array): boolean {
  const order =
    a.victims.length - b.victims.length ||
    a.lostWorkGpuSeconds - b.lostWorkGpuSeconds ||
    rank[a.nodeIndex]! - rank[b.nodeIndex]!;
  return order < 0;
}
