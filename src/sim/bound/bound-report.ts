/**
 * The packing bound over a grid's seeds (docs/packing-bound.md): the lower bound on unallocated
 * GPU % at each arrival level for each seed's arrivals, its mean, and each policy's gap to it.
 */
import type { LinearProgramSolver } from '../../lib/linear-program.js';
import type { PackingBoundReport, RunResult } from '../simulation-types.js';
import type { TraceNode, TracePod } from '../traces/trace-types.js';
import { replayUnallocatedBound } from './unallocated-bound.js';

/** A policy's distance to the bound. */
export interface PolicyBoundGap {
  readonly policy: string;
  /** Mean over seeds of U(x) − bound(x), percentage points, per level (paired by seed); null where missing. */
  readonly gapPct: readonly (number | null)[];
  /** Mean over seeds of U(x), %, per level. */
  readonly unallocatedPct: readonly (number | null)[];
}

function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((s, v) => s + v, 0) / present.length;
}

/**
 * Computes the bound for every seed of a packing replay (the same arrivals as `runPackingReplay`).
 * @param levelsPct integer arrival levels 0..130
 * @param onSeed called after each seed with the count done and the total
 * @throws RangeError for a level outside 0..130 or not an integer
 */
export function computePackingBound(
  input: {
    readonly nodes: readonly TraceNode[];
    readonly pods: readonly TracePod[];
    readonly inflation: number;
    readonly seeds: readonly number[];
    readonly levelsPct: readonly number[];
  },
  solver: LinearProgramSolver,
  onSeed?: (done: number, total: number) => void,
): PackingBoundReport {
  const levelsPct = [...new Set(input.levelsPct)].sort((a, b) => a - b);
  for (const x of levelsPct)
    if (!Number.isInteger(x) || x < 0 || x > 130)
      throw new RangeError(`bound level must be an integer 0..130, got ${x}`);
  const started = performance.now();
  const unallocatedPctBoundBySeed = input.seeds.map((seed, i) => {
    const bounds = replayUnallocatedBound(input.nodes, input.pods, input.inflation, seed, levelsPct, solver);
    onSeed?.(i + 1, input.seeds.length);
    return bounds.map((b) => b?.unallocatedPctBound ?? null);
  });
  return {
    levelsPct,
    seeds: [...input.seeds],
    unallocatedPctBoundBySeed,
    meanUnallocatedPctBound: levelsPct.map((_, l) => mean(unallocatedPctBoundBySeed.map((row) => row[l]!))),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Each policy's mean unallocated % and gap to the bound at the bound's levels, pairing runs and
 * bounds by seed (seeds without a bound are left out), in the order policies first appear in `runs`.
 */
export function policyBoundGaps(runs: readonly RunResult[], bound: PackingBoundReport): PolicyBoundGap[] {
  const bySeed = new Map(bound.seeds.map((seed, i) => [seed, bound.unallocatedPctBoundBySeed[i]!]));
  const policies = [...new Set(runs.map((r) => r.policy))];
  return policies.map((policy) => {
    const paired = runs.filter((r) => r.policy === policy && bySeed.has(r.seed));
    const unallocatedAt = (r: RunResult, x: number): number | null => {
      const a = r.allocationPct[x];
      return a === null || a === undefined ? null : Math.round((100 - a) * 100) / 100;
    };
    return {
      policy,
      unallocatedPct: bound.levelsPct.map((x) => mean(paired.map((r) => unallocatedAt(r, x)))),
      gapPct: bound.levelsPct.map((x, l) =>
        mean(
          paired.map((r) => {
            const u = unallocatedAt(r, x);
            const b = bySeed.get(r.seed)![l]!;
            return u === null || b === null ? null : u - b;
          }),
        ),
      ),
    };
  });
}
