/**
 * After a pass, whether a waiting job should preempt running ones (docs/preemption.md): the first
 * waiting jobs in queue order, kept out by capacity (not by their quota or by QoS protection), for
 * which the planner finds victims: strictly lower-priority preemptible jobs, or borrowers above
 * their guarantee when the waiting job's tenant reclaims its guarantee. Fit is the real placement
 * with the victims evicted, asked on the pass's statement and rolled back. At most one preemption
 * per pass: while victims are checkpointing and exiting, the caller asks for none. Two settings
 * change the victim choice: `checkpointIntervalSeconds` (victims lose only the run time since their
 * last checkpoint) and `victimsOnOneNode` (the planner runs per node, plan-on-one-node.ts).
 */
import type { PlannedPreemption } from '../framework/plan.js';
import type { Statement } from '../framework/statement.js';
import type { ActiveJob } from '../model/cluster.js';
import type { JobRequest } from '../model/request.js';
import { GPU_EQUIVALENT_EPSILON } from '../fairness/gpu-equivalents.js';
import { placedGpuEquivalents } from '../fairness/job-size.js';
import { borrowedGpuEquivalents, fitsInGuarantee, isUnderGuarantee } from '../fairness/quota.js';
import { secondsSinceCheckpoint } from '../preemption/checkpoint-loss.js';
import { planPreemptionOnOneNode } from '../preemption/plan-on-one-node.js';
import { planPreemption, type PreemptionPlan } from '../preemption/plan-preemption.js';
import type { PassRules } from './pass-rules.js';

/** Limits of preemption. */
export interface PreemptionSettings {
  /** A job must have run this long (this attempt) before it may be preempted, seconds. */
  readonly minRunSeconds: number;
  /** A job is preempted at most this many times. */
  readonly maxPreemptionsPerJob: number;
  /** At most this many waiting jobs are tried per pass (each try may cost a few hundred fit checks). @defaultValue 1 */
  readonly maxPreemptorsTried?: number;
  /**
   * Running jobs checkpoint every this many seconds of run time (> 0), counted from the start of
   * their attempt: a victim loses only what it ran since its last checkpoint (`secondsSinceCheckpoint`),
   * and the cost order compares that. null: checkpoints are unknown (gpushare cannot see them), a
   * victim loses its whole attempt. @defaultValue null
   */
  readonly checkpointIntervalSeconds?: number | null;
  /**
   * Plan node by node and take the cheapest node's plan (plan-on-one-node.ts: fewest victims, then
   * least lost work, then the node's tie-break rank), instead of one plan over every running job.
   * @defaultValue false
   */
  readonly victimsOnOneNode?: boolean;
}

/** What the choice looks at. */
export interface PreemptionChoiceInput {
  /** Waiting jobs that may preempt, in queue order. */
  readonly waiting: readonly JobRequest[];
  /** Jobs that hold resources now. */
  readonly active: readonly ActiveJob[];
  readonly rules: PassRules;
  readonly statement: Statement;
  readonly nowMs: number;
  readonly settings: PreemptionSettings;
}

/**
 * Whether any job could preempt at all (a cheap check before the waiting jobs are listed): a
 * running preemptible job of lower priority than `topPendingPriority`, or a tenant with a
 * guarantee to reclaim.
 */
export function preemptionPossible(
  topPendingPriority: number,
  active: readonly ActiveJob[],
  rules: PassRules,
): boolean {
  for (const q of rules.quotas.values()) if (q.guaranteedGpuEquivalents > 0) return true;
  return active.some(
    (j) => !j.stopping && j.startedAtMs !== null && j.preemptible && j.request.priority < topPendingPriority,
  );
}

/**
 * The first preemption worth doing now, or null.
 * @throws RangeError for a `checkpointIntervalSeconds` that is not null or a finite number > 0
 */
export function choosePreemption(input: PreemptionChoiceInput): PlannedPreemption | null {
  const { rules, statement } = input;
  const checkpointInterval = input.settings.checkpointIntervalSeconds ?? null;
  if (checkpointInterval !== null && !(Number.isFinite(checkpointInterval) && checkpointInterval > 0))
    throw new RangeError(`checkpointIntervalSeconds must be null or a finite number > 0, got ${checkpointInterval}`);
  if (input.waiting.length === 0) return null;
  let top = Number.NEGATIVE_INFINITY;
  for (const j of input.waiting) if (j.priority > top) top = j.priority;
  if (!preemptionPossible(top, input.active, rules)) return null;
  const running = input.active.filter((j) => !j.stopping && j.startedAtMs !== null);
  const usageOf = (tenant: string) => rules.usage.get(tenant) ?? { gpuEquivalents: 0, cpuMilli: 0 };
  const candidates = running.map(({ request, assignment, preemptible, startedAtMs, preemptionCount }) => {
    const first = assignment.placement.gpus[0];
    const device =
      first === undefined
        ? undefined
        : statement.state.nodes[statement.state.indexOf(assignment.node)]!.devices.get(first.index)?.device;
    const size = placedGpuEquivalents(request.gpu, assignment.placement, device);
    return {
      jobId: assignment.jobId,
      priority: request.priority,
      tenant: request.tenant,
      preemptible,
      startedAtMs: startedAtMs!,
      preemptionCount,
      // Without a checkpoint interval, work since the attempt started: gpushare cannot see checkpoints.
      lostWorkGpuSeconds: size * secondsSinceCheckpoint((input.nowMs - startedAtMs!) / 1000, checkpointInterval),
      overQuotaBorrower:
        borrowedGpuEquivalents(rules.quotas.get(request.tenant), usageOf(request.tenant)) > GPU_EQUIVALENT_EPSILON,
    };
  });
  if (candidates.length === 0) return null;
  const state = statement.state;
  const nodeOf = input.settings.victimsOnOneNode
    ? new Map(running.map((j) => [j.assignment.jobId, state.indexOf(j.assignment.node)]))
    : null;
  // A node ranks as its first scheduling unit (units rank by node, then in unit order).
  const nodeRank = (n: number): number => state.groups.scheduler.cluster.nodeRank[state.nodes[n]!.units[0]!.index]!;
  let tried = 0;
  for (const job of input.waiting) {
    if (rules.quotaRefused.has(job.id)) continue;
    if (tried++ >= (input.settings.maxPreemptorsTried ?? 1)) break;
    const quota = rules.quotas.get(job.tenant);
    const reclaiming =
      quota !== undefined &&
      isUnderGuarantee(quota, usageOf(job.tenant)) &&
      fitsInGuarantee(quota, usageOf(job.tenant), rules.sizeOf(job));
    const planInput = {
      preemptor: { jobId: job.id, priority: job.priority, tenant: job.tenant, reclaiming },
      candidates,
      fitsWithout: (victimIds: readonly number[]) => statement.fitsWithout(job, victimIds),
      options: {
        minRunSeconds: input.settings.minRunSeconds,
        maxPreemptionsPerJob: input.settings.maxPreemptionsPerJob,
      },
      nowMs: input.nowMs,
    };
    const plan: PreemptionPlan =
      nodeOf !== null
        ? planPreemptionOnOneNode({ ...planInput, nodeOf: (id) => nodeOf.get(id)!, nodeRank })
        : planPreemption(planInput);
    if (plan.kind === 'victims')
      return { preemptorId: job.id, victimIds: plan.victimIds, lostWorkGpuSeconds: plan.lostWorkGpuSeconds };
  }
  return null;
}
