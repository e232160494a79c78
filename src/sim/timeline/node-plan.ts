/**
 * Whether the core's preemption planner can have a plan on one node of a replay's cluster, and the
 * jobs its pass must then see (timeline-cluster.ts, src/sim/pool/pool-cluster.ts): the job fits the
 * node once every running job it may preempt there is gone (`classifyCandidate`; the planner's own
 * first test, `fitsWithout`). A job started at this instant is still being launched (`startedAtMs`
 * null): no candidate.
 */
import {
  classifyCandidate,
  isEligible,
  type ActiveJob,
  type JobRequest,
  type PreemptionCandidate,
  type PreemptionSettings,
  type SchedulingSession,
} from '../../core/index.js';

/** A running job of a replay: as the pass's rules see it, as the planner sees it, and when it started. */
export interface ReplayRunning {
  readonly active: ActiveJob;
  readonly candidate: PreemptionCandidate;
  readonly startSeconds: number;
}

/**
 * Adds the jobs of one node (`jobs`) to `active` when `request` has a plan there at `nowSeconds`.
 * @returns whether it has
 */
export function addNodeWithPlan(
  active: ActiveJob[],
  jobs: Iterable<ReplayRunning>,
  request: JobRequest,
  preemption: PreemptionSettings,
  session: SchedulingSession,
  nowSeconds: number,
): boolean {
  const preemptor = { jobId: request.id, priority: request.priority, tenant: request.tenant, reclaiming: false };
  const nowMs = nowSeconds * 1000;
  const eligible: number[] = [];
  for (const job of jobs)
    if (job.startSeconds < nowSeconds && isEligible(classifyCandidate(job.candidate, preemptor, preemption, nowMs)))
      eligible.push(job.candidate.jobId);
  if (eligible.length === 0 || !session.fitsWithout(request, eligible)) return false;
  for (const job of jobs)
    active.push(job.startSeconds < nowSeconds ? job.active : { ...job.active, startedAtMs: null });
  return true;
}
