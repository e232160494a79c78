/**
 * A bounded replay for the benchmark: the first `limit` arrivals of the same seeded plan that
 * runPackingReplay builds (same rng stream, same node ranks, same target workload, same scheduling
 * session), optionally with every score plugin marked non-cacheable, recording each decision so
 * that two runs can be compared placement by placement.
 */
import type { SchedulingProfile } from '../core/index.js';
import { prepareReplay, replayArrivals, type ReplayInput } from '../sim/packing-replay.js';

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
  input: ReplayInput,
  policyName: string,
  seed: number,
  limit: number,
  cacheable: boolean,
): BoundedReplayResult {
  const prepared = prepareReplay(input, policyName, seed, cacheable ? undefined : withoutScoreCache);
  const limited = Math.min(limit, prepared.arrivals.length);
  const decisions: DecisionKey[] = [];
  let placed = 0;

  const started = performance.now();
  replayArrivals(
    prepared,
    (_request, decision) => {
      if (decision !== null) {
        decisions.push(`${decision.nodeIndex}:${decision.gpuIndices.join(',')}`);
        placed++;
      } else {
        decisions.push('-');
      }
    },
    limited,
  );
  const loopSeconds = (performance.now() - started) / 1000;
  return { policy: policyName, cacheable, seed, arrivals: limited, placed, loopSeconds, decisions };
}

/** Index of the first differing decision, or -1 when both lists are equal. */
export function firstDifference(a: readonly DecisionKey[], b: readonly DecisionKey[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}
