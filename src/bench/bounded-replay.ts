/**
 * A bounded replay for the benchmark: drives a {@link Scheduler} over the first `limit` arrivals of
 * the same seeded plan that runPackingReplay builds (same rng stream, same node ranks, same target
 * workload), optionally with every score plugin marked non-cacheable, and records each decision so
 * that two runs can be compared placement by placement.
 */
import type { SchedulingProfile } from '../core/index.js';
import { prepareReplay, type ReplayInput } from '../sim/packing-replay.js';

/** One recorded decision: `node:gpu,gpu` for a placement, `-` for unschedulable. */
export type DecisionKey = string;

/** Outcome of a bounded replay. */
export interface BoundedReplayResult {
  readonly policy: string;
  readonly cacheable: boolean;
  readonly seed: number;
  /** Arrivals scheduled (min(limit, plan length)). */
  readonly arrivals: number;
  /** Arrivals placed (the rest were unschedulable). */
  readonly placed: number;
  /** Seconds spent in the schedule/commit loop only (setup excluded). */
  readonly loopSeconds: number;
  readonly decisions: readonly DecisionKey[];
}

/** The profile with every score plugin's `cacheable` forced to false (the no-cache baseline). */
export function withoutScoreCache(profile: SchedulingProfile): SchedulingProfile {
  return { ...profile, scores: profile.scores.map((s) => ({ ...s, plugin: { ...s.plugin, cacheable: false } })) };
}

/**
 * Replays the first `limit` arrivals of `input` with `policyName` and `seed`.
 * @param cacheable false to disable the scheduler's score cache for every score plugin
 * @throws UnknownPolicyError for an unregistered policy name
 */
export function runBoundedReplay(
  input: ReplayInput, policyName: string, seed: number, limit: number, cacheable: boolean,
): BoundedReplayResult {
  const { arrivals: all, scheduler } = prepareReplay(input, policyName, seed, cacheable ? undefined : withoutScoreCache);
  const arrivals = all.slice(0, limit);
  const decisions: DecisionKey[] = [];
  let placed = 0;

  const started = performance.now();
  for (const request of arrivals) {
    const decision = scheduler.schedule(request);
    if (decision.kind === 'placed') {
      scheduler.commit(request, decision.nodeIndex, decision.gpuIndices);
      decisions.push(`${decision.nodeIndex}:${decision.gpuIndices.join(',')}`);
      placed++;
    } else {
      decisions.push('-');
    }
  }
  const loopSeconds = (performance.now() - started) / 1000;
  return { policy: policyName, cacheable, seed, arrivals: arrivals.length, placed, loopSeconds, decisions };
}

/** Index of the first differing decision, or -1 when both lists are equal. */
export function firstDifference(a: readonly DecisionKey[], b: readonly DecisionKey[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}
