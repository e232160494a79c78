/**
 * After a pass, finds whether a waiting job should preempt running ones (docs/preemption.md): the
 * first waiting job in queue order, kept out by capacity (not by its quota), for which the core's
 * planner finds victims, strictly lower-priority preemptible jobs, or borrowers above their
 * guarantee when the waiting job's tenant reclaims its guarantee. Fit is checked by the real
 * device-level placement with the victims removed. One preemption is in flight at a time: while
 * victims are checkpointing and exiting, no new plan starts, and the capacity they free goes to
 * their preemptor first (it is ahead of them in queue order and protected by backfill).
 */
import {
  borrowedGpuEquivalents, fitsInGuarantee, GPU_EQUIVALENT_EPSILON, isUnderGuarantee, planPreemption,
  type JobRequest, type ServerScheduler,
} from '../../core/index.js';
import type { JobRecord } from '../ports/state-store.js';
import type { PassPolicy } from './pass-policy.js';
import { placedGpuEquivalents } from './job-size.js';
import type { GpuDevice } from '../../core/index.js';

/** A decided preemption. */
export interface PreemptionDecision {
  readonly preemptorId: number;
  readonly victimIds: readonly number[];
  readonly lostWorkGpuSeconds: number;
}

/** What the driver looks at. */
export interface PreemptionDriverInput {
  /** Ids of the waiting jobs, in queue order. */
  readonly waitingIds: readonly number[];
  /** The queued job of an id (undefined once it left the queue). */
  readonly pendingOf: (jobId: number) => JobRequest | undefined;
  /** Running jobs that gpushare is not already stopping. */
  readonly running: readonly JobRecord[];
  /** Earlier preemptions per job. */
  readonly preemptionCountOf: (jobId: number) => number;
  readonly scheduler: ServerScheduler;
  readonly policy: PassPolicy;
  readonly devices: readonly GpuDevice[];
  readonly nowMs: number;
  readonly minRunSeconds: number;
  readonly maxPreemptionsPerJob: number;
  /** At most this many waiting jobs are tried per pass (each try may cost a few hundred fit checks). */
  readonly maxPreemptorsTried?: number;
}

/** The first preemption worth doing now, or null. */
export function decidePreemption(input: PreemptionDriverInput): PreemptionDecision | null {
  const { policy } = input;
  // Cheap pre-check: preemption needs a strictly lower-priority preemptible job, or a quota reclaim.
  let top = Number.NEGATIVE_INFINITY;
  for (const id of input.waitingIds) top = Math.max(top, input.pendingOf(id)?.priority ?? top);
  const reclaimPossible = [...policy.quotas.values()].some((q) => q.guaranteedGpuEquivalents > 0);
  if (!reclaimPossible && !input.running.some((j) => j.priority < top && j.preemptible)) return null;
  const devices = new Map(input.devices.map((d) => [d.index, d]));
  const usageOf = (tenant: string) => policy.usage.get(tenant) ?? { gpuEquivalents: 0, cpuMilli: 0 };
  const candidates = input.running.filter((j) => j.startedAtMs !== null && j.placement !== null).map((j) => {
    const size = placedGpuEquivalents(j.gpu, j.placement!, devices);
    return {
      jobId: j.id, priority: j.priority, tenant: j.tenant, preemptible: j.preemptible, startedAtMs: j.startedAtMs!,
      preemptionCount: input.preemptionCountOf(j.id),
      // Work since the attempt started: gpushare cannot see when the job last checkpointed.
      lostWorkGpuSeconds: size * Math.max(0, (input.nowMs - j.startedAtMs!) / 1000),
      overQuotaBorrower: borrowedGpuEquivalents(policy.quotas.get(j.tenant), usageOf(j.tenant)) > GPU_EQUIVALENT_EPSILON,
    };
  });
  if (candidates.length === 0) return null;
  let tried = 0;
  for (const id of input.waitingIds) {
    const job = input.pendingOf(id);
    if (!job) continue;
    if (policy.quotaRefused.has(job.id)) continue;
    if (tried++ >= (input.maxPreemptorsTried ?? 4)) break;
    const quota = policy.quotas.get(job.tenant);
    const reclaiming = quota !== undefined && isUnderGuarantee(quota, usageOf(job.tenant)) && fitsInGuarantee(quota, usageOf(job.tenant), policy.sizeOf(job));
    const plan = planPreemption({
      preemptor: { jobId: job.id, priority: job.priority, tenant: job.tenant, reclaiming },
      candidates,
      fitsWithout: (victimIds) => input.scheduler.fitsWithout(job, victimIds),
      options: { minRunSeconds: input.minRunSeconds, maxPreemptionsPerJob: input.maxPreemptionsPerJob },
      nowMs: input.nowMs,
    });
    if (plan.kind === 'victims') return { preemptorId: job.id, victimIds: plan.victimIds, lostWorkGpuSeconds: plan.lostWorkGpuSeconds };
  }
  return null;
}
