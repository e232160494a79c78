/**
 * Aggregation of a grid's runs into one summary per policy (mean and sample SD over seeds).
 */
import { CURVE_POINTS } from './simulation-types.js';
import { meanSd } from '../lib/statistics.js';
import type { PolicySummary, PublishedFigure, RunResult } from './simulation-types.js';

/**
 * Pointwise mean over curves, ignoring nulls; null where every curve is null at that x. As long as
 * the longest curve, at least `CURVE_POINTS`.
 */
export function meanCurve(curves: readonly (readonly (number | null)[])[]): (number | null)[] {
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
export function summarizeRuns(
  runs: readonly RunResult[],
  published: ReadonlyMap<string, PublishedFigure>,
): PolicySummary[] {
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
