/**
 * Aggregation of a grid's runs into one summary per policy (mean and sample SD over seeds).
 */
import { CURVE_POINTS } from './simulation-types.js';
import type { MeanSd, PolicySummary, PublishedFigure, RunResult } from './simulation-types.js';

/**
 * Mean and sample standard deviation (divisor n − 1) of `values`; sd is 0 for a single value.
 * An empty list gives NaN for both. A NaN value makes both NaN.
 */
export function meanSd(values: readonly number[]): MeanSd {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, sd: Number.NaN };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n === 1) return { mean, sd: Number.isNaN(mean) ? Number.NaN : 0 };
  const squares = values.reduce((s, v) => s + (v - mean) ** 2, 0);
  return { mean, sd: Math.sqrt(squares / (n - 1)) };
}

/** Pointwise mean over curves, ignoring nulls; null where every curve is null at that x. */
function meanCurve(curves: readonly (readonly (number | null)[])[]): (number | null)[] {
  const length = Math.max(CURVE_POINTS, ...curves.map((c) => c.length));
  return Array.from({ length }, (_, x) => {
    let sum = 0;
    let count = 0;
    for (const curve of curves) {
      const y = curve[x];
      if (y !== null && y !== undefined) {
        sum += y;
        count++;
      }
    }
    return count === 0 ? null : sum / count;
  });
}

/**
 * Summarizes runs per policy, in the order each policy first appears in `runs`; within a policy
 * the seeds keep their order in `runs`.
 *
 * @param runs - Results of (policy, seed) replays.
 * @param published - The FGD authors' figures by our policy name (see `loadPublishedFigures`).
 * @returns One summary per policy: `unallocatedPctAt100` / `unallocatedPctAt130` (percentage
 *   points) and `failedPods` (pods) as mean ± sample SD over seeds; mean A(x) and R(x) curves
 *   (in %, x = 0..130); and the published figure, or null.
 */
export function summarizeRuns(runs: readonly RunResult[], published: ReadonlyMap<string, PublishedFigure>): PolicySummary[] {
  const byPolicy = new Map<string, RunResult[]>();
  for (const run of runs) {
    const list = byPolicy.get(run.policy);
    if (list) list.push(run);
    else byPolicy.set(run.policy, [run]);
  }
  return [...byPolicy].map(([policy, list]) => ({
    policy,
    seeds: list.map((r) => r.seed),
    unallocatedPctAt100: meanSd(list.map((r) => r.unallocatedPctAt100)),
    unallocatedPctAt130: meanSd(list.map((r) => r.unallocatedPctAt130)),
    failedPods: meanSd(list.map((r) => r.failedPods)),
    meanAllocationPct: meanCurve(list.map((r) => r.allocationPct)),
    meanFragmentRatioPct: meanCurve(list.map((r) => r.fragmentRatioPct)),
    published: published.get(policy) ?? null,
  }));
}
