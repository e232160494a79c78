/**
 * Stand-in for the core's preemption planner (`src/core/preemption/plan-preemption.ts`, being
 * written), with the same contract, so the timeline replay switches by changing one import in
 * `pending-core.ts`. It picks the cheapest set of lower-priority victims whose removal lets the
 * preemptor fit, as judged by the caller's `fitsWithout` oracle. It ignores tenants, `reclaiming`
 * and `overQuotaBorrower` (the trace has one tenant and no quotas).
 */

/** The job that wants to run. */
export interface Preemptor {
  readonly jobId: number;
  /** Higher is more important. */
  readonly priority: number;
  readonly tenant: string;
  /** True when the preemptor takes back its own tenant's guaranteed share (unused here). */
  readonly reclaiming: boolean;
}

/** A running job that might be preempted. */
export interface PreemptionCandidate {
  readonly jobId: number;
  readonly priority: number;
  readonly tenant: string;
  /** False for jobs that may never be preempted (see {@link defaultPreemptible}). */
  readonly preemptible: boolean;
  /** When its current run started, in ms (of simulated time in the simulator). */
  readonly startedAtMs: number;
  /** How often it was preempted before. */
  readonly preemptionCount: number;
  /** Work lost if it is preempted now, in GPU-seconds (GPU-equivalents × seconds since its last checkpoint). */
  readonly lostWorkGpuSeconds: number;
  /** True when it runs on capacity borrowed beyond its tenant's quota (unused here). */
  readonly overQuotaBorrower: boolean;
}

/** Limits on who may be preempted. */
export interface PreemptionOptions {
  /** A job that has run less than this many seconds (in its current run) is not preempted. */
  readonly minRunSeconds: number;
  /** A job already preempted this many times is not preempted again. */
  readonly maxPreemptionsPerJob: number;
}

/** Everything one planning call needs. */
export interface PreemptionRequest {
  readonly preemptor: Preemptor;
  readonly candidates: readonly PreemptionCandidate[];
  /** True when the preemptor would fit if the jobs with these ids were gone. Must be monotone: more victims never hurt. */
  readonly fitsWithout: (victimIds: readonly number[]) => boolean;
  readonly options: PreemptionOptions;
  /** Now, in ms (same clock as `startedAtMs`). */
  readonly nowMs: number;
}

/** The planner's answer: victims to evict (cheapest first), or why there are none. */
export type PreemptionPlan =
  | { readonly kind: 'victims'; readonly victimIds: readonly number[]; readonly lostWorkGpuSeconds: number }
  | { readonly kind: 'none'; readonly reason: string };

/** Whether a job of this priority may be preempted at all: below `high` (900). */
export function defaultPreemptible(priority: number): boolean {
  return priority < 900;
}

/** Cheaper victims first: lower priority, then less lost work, then the most recently started, then id. */
function byCost(a: PreemptionCandidate, b: PreemptionCandidate): number {
  return a.priority - b.priority || a.lostWorkGpuSeconds - b.lostWorkGpuSeconds || b.startedAtMs - a.startedAtMs || a.jobId - b.jobId;
}

/**
 * Plans a preemption. Eligible victims are preemptible candidates of strictly lower priority that
 * have run at least `minRunSeconds` and were preempted fewer than `maxPreemptionsPerJob` times.
 * Takes the shortest prefix of the eligible victims in cost order that makes the preemptor fit
 * (binary search on the monotone oracle), then gives back every victim — most expensive first —
 * that is not needed after all.
 * @returns `victims` with ids in cost order and their summed lost work in GPU-seconds, or `none`
 *   with a reason (`no eligible victims`, `does not fit even without every eligible victim`)
 */
export function planPreemption(request: PreemptionRequest): PreemptionPlan {
  const { preemptor, options, nowMs } = request;
  const eligible = request.candidates
    .filter((c) => c.preemptible && c.priority < preemptor.priority && c.preemptionCount < options.maxPreemptionsPerJob
      && nowMs - c.startedAtMs >= options.minRunSeconds * 1000)
    .sort(byCost);
  if (eligible.length === 0) return { kind: 'none', reason: 'no eligible victims' };
  const ids = eligible.map((c) => c.jobId);
  if (!request.fitsWithout(ids)) return { kind: 'none', reason: 'does not fit even without every eligible victim' };
  let lo = 1;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (request.fitsWithout(ids.slice(0, mid))) hi = mid;
    else lo = mid + 1;
  }
  const chosen = eligible.slice(0, lo);
  for (let i = chosen.length - 2; i >= 0; i--) {
    const without = chosen.filter((_, j) => j !== i);
    if (request.fitsWithout(without.map((c) => c.jobId))) chosen.splice(i, 1);
  }
  return { kind: 'victims', victimIds: chosen.map((c) => c.jobId), lostWorkGpuSeconds: chosen.reduce((s, c) => s + c.lostWorkGpuSeconds, 0) };
}
