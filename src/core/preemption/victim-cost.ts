/**
 * The cost order of victim sets (docs/preemption.md): fewer victims first, then less work lost
 * since the victims' last checkpoints, then lower priorities, then lower job ids (so the order is
 * total and every plan deterministic).
 */
import type { PreemptionCandidate } from './eligibility.js';

/** The cost of preempting one set of victims, comparable with `compareVictimCost`. */
export interface VictimCost {
  readonly victimCount: number;
  /** Σ `lostWorkGpuSeconds` of the victims, GPU-seconds (summed in `compareCandidates` order). */
  readonly lostWorkGpuSeconds: number;
  /** The victims' priorities, highest first. */
  readonly prioritiesDesc: readonly number[];
  /** The victims' job ids, ascending. */
  readonly jobIdsAsc: readonly number[];
}

/**
 * Comparator of single candidates, cheapest first: less lost work, then lower priority, then lower
 * job id. For one-victim sets it is the same order as `compareVictimCost`.
 */
export function compareCandidates(a: PreemptionCandidate, b: PreemptionCandidate): number {
  return a.lostWorkGpuSeconds - b.lostWorkGpuSeconds || a.priority - b.priority || a.jobId - b.jobId;
}

/**
 * The cost of `victims`. Pass them in `compareCandidates` order so equal sets always sum their
 * lost work in the same order (floating-point addition is not associative).
 */
export function victimCost(victims: readonly PreemptionCandidate[]): VictimCost {
  let lost = 0;
  for (const v of victims) lost += v.lostWorkGpuSeconds;
  return {
    victimCount: victims.length,
    lostWorkGpuSeconds: lost,
    prioritiesDesc: victims.map((v) => v.priority).sort((a, b) => b - a),
    jobIdsAsc: victims.map((v) => v.jobId).sort((a, b) => a - b),
  };
}

/**
 * Comparator of victim sets, cheapest first: fewer victims, then less lost work, then lower
 * priorities (the highest priority hit first, then the next, ...), then lower job ids.
 */
export function compareVictimCost(a: VictimCost, b: VictimCost): number {
  return (
    a.victimCount - b.victimCount ||
    a.lostWorkGpuSeconds - b.lostWorkGpuSeconds ||
    compareLexicographic(a.prioritiesDesc, b.prioritiesDesc) ||
    compareLexicographic(a.jobIdsAsc, b.jobIdsAsc)
  );
}

function compareLexicographic(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}
