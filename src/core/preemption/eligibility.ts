/**
 * Who may be preempted for whom (docs/preemption.md): the victim rules of the preemption planner,
 * one candidate at a time. Pure data and rules; the caller knows the running jobs and the quotas.
 */
import { PRIORITY_CLASSES } from '../model/priority.js';

/** A running job the planner may take resources from, as the caller sees it now. */
export interface PreemptionCandidate {
  readonly jobId: number;
  /** Higher is more important (see `PRIORITY_CLASSES`). */
  readonly priority: number;
  readonly tenant: string;
  /** Whether the job may be preempted for a more important one (see `defaultPreemptible`). */
  readonly preemptible: boolean;
  /** When the current attempt started, ms since the epoch. */
  readonly startedAtMs: number;
  /** How many times the job has been preempted already (0 for a job never preempted). */
  readonly preemptionCount: number;
  /**
   * Work lost if the job is stopped now, in GPU-seconds: GPU-equivalents held × seconds since its
   * last checkpoint (or since it started, when it has none). Finite and ≥ 0.
   */
  readonly lostWorkGpuSeconds: number;
  /** True when the job's tenant uses more than its guarantee (it is borrowing idle capacity). */
  readonly overQuotaBorrower: boolean;
}

/** The job that needs room. */
export interface Preemptor {
  readonly jobId: number;
  readonly priority: number;
  readonly tenant: string;
  /**
   * True when the preemptor's tenant is under its guarantee, so it may reclaim capacity from jobs
   * of borrowing tenants (`overQuotaBorrower`) whatever their priority.
   */
  readonly reclaiming: boolean;
}

/** Guards that protect running jobs from churn. */
export interface PreemptionOptions {
  /** A job that has run for less than this many seconds (this attempt) is never a victim. ≥ 0. */
  readonly minRunSeconds: number;
  /** A job preempted this many times already is never a victim again. ≥ 0. */
  readonly maxPreemptionsPerJob: number;
}

/** Defaults of `PreemptionOptions`: no minimum run time, at most 5 preemptions per job. */
export const DEFAULT_PREEMPTION_OPTIONS: PreemptionOptions = { minRunSeconds: 0, maxPreemptionsPerJob: 5 };

/**
 * Whether a job of this priority is preemptible when its submitter did not say: true below the
 * `high` class (priority < 900), false for `high` and `critical`.
 */
export function defaultPreemptible(priority: number): boolean {
  return priority < PRIORITY_CLASSES.high;
}

/**
 * Why a candidate is, or is not, a possible victim:
 * - `priority`: strictly lower priority than the preemptor and preemptible;
 * - `reclaim`: the preemptor is reclaiming and the candidate's tenant (another tenant) borrows;
 * - `self`: the preemptor itself;
 * - `not-lower-priority` / `not-preemptible`: fails the priority rule and is no reclaimable borrower;
 * - `too-young`: has run for less than `minRunSeconds`;
 * - `preempted-too-often`: preempted `maxPreemptionsPerJob` times already.
 */
export type Eligibility =
  'priority' | 'reclaim' | 'self' | 'not-lower-priority' | 'not-preemptible' | 'too-young' | 'preempted-too-often';

/**
 * Classifies one candidate for `preemptor` at `nowMs` (ms since the epoch). A candidate that
 * passes the priority rule is `priority` even when it also borrows; the guards (`too-young`,
 * `preempted-too-often`) apply to both rules. A reclaim ignores `preemptible`: a job that borrows
 * above its tenant's guarantee may always be reclaimed by a tenant under its own.
 */
export function classifyCandidate(
  candidate: PreemptionCandidate,
  preemptor: Preemptor,
  options: PreemptionOptions,
  nowMs: number,
): Eligibility {
  if (candidate.jobId === preemptor.jobId) return 'self';
  const byPriority = candidate.priority < preemptor.priority && candidate.preemptible;
  const byReclaim = preemptor.reclaiming && candidate.overQuotaBorrower && candidate.tenant !== preemptor.tenant;
  if (!byPriority && !byReclaim)
    return candidate.priority < preemptor.priority ? 'not-preemptible' : 'not-lower-priority';
  if (options.minRunSeconds > 0 && nowMs - candidate.startedAtMs < options.minRunSeconds * 1000) return 'too-young';
  if (candidate.preemptionCount >= options.maxPreemptionsPerJob) return 'preempted-too-often';
  return byPriority ? 'priority' : 'reclaim';
}

/** True for the two eligible outcomes of `classifyCandidate`. */
export function isEligible(eligibility: Eligibility): boolean {
  return eligibility === 'priority' || eligibility === 'reclaim';
}
