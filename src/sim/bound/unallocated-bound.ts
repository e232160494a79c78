/**
 * Lower bound on the unallocated GPU % U(x) = 100 − A(x) that any placement policy can reach on a
 * replay's arrivals (docs/packing-bound.md, decision 0042). For an arrival level x, the pods are
 * those of the last sample the curve binning (curve-binning.ts) averages into A(x); the bound is
 * 100 − round2(100 · maxAllocatableGpuMilli / capacity).
 */
import { SeededRng } from '../../core/index.js';
import { buildArrivalPlan } from '../arrival-plan.js';
import { roundHalfEven, round2 } from '../curve-binning.js';
import type { TraceNode, TracePod } from '../traces/trace-types.js';
import type { BoundNodeType, BoundShape } from './bound-types.js';
import { maxAllocatableGpuMilli, type ConfigurationLpOptions, type FillingColumn } from './configuration-lp.js';
import type { LinearProgramSolver } from '../../lib/linear-program.js';

/** The bound at one arrival level. */
export interface LevelBound {
  /** Arrival level x, % of GPU capacity (the A(x) bin). */
  readonly levelPct: number;
  /** Arrivals the bound covers (the prefix up to the bin's last sample). */
  readonly arrivals: number;
  /** Upper bound on A(x), % of capacity, rounded to 2 decimals as A(x) is. */
  readonly maxAllocationPct: number;
  /** Lower bound on U(x) = 100 − A(x), %. */
  readonly unallocatedPctBound: number;
}

/** Node types of a trace's nodes (GPU nodes only; memory is left out). */
export function nodeTypesOf(nodes: readonly TraceNode[]): BoundNodeType[] {
  const byKey = new Map<string, { type: Omit<BoundNodeType, 'nodes'>; nodes: number }>();
  for (const n of nodes) {
    if (n.gpuModel === null || n.gpuCount === 0) continue;
    const key = `${n.gpuModel}|${n.gpuCount}|${n.cpuMilli}`;
    const entry = byKey.get(key);
    if (entry) entry.nodes++;
    else byKey.set(key, { type: { gpuModel: n.gpuModel, gpuCount: n.gpuCount, cpuMilli: n.cpuMilli }, nodes: 1 });
  }
  return [...byKey.values()].map(({ type, nodes: count }) => ({ ...type, nodes: count }));
}

/** Request shapes of the GPU pods among `pods` (CPU-only pods never raise the allocated GPU). */
export function shapesOf(pods: readonly TracePod[]): BoundShape[] {
  const byKey = new Map<string, { shape: Omit<BoundShape, 'pods'>; pods: number }>();
  for (const p of pods) {
    if (p.gpuCount === 0 || p.gpuMilli === 0) continue;
    const models = [...new Set(p.allowedGpuModels)].sort();
    const key = `${p.gpuCount}|${p.gpuMilli}|${p.cpuMilli}|${models.join('|')}`;
    const entry = byKey.get(key);
    if (entry) entry.pods++;
    else
      byKey.set(key, {
        shape: {
          gpuCount: p.gpuCount,
          gpuMilli: Math.min(1000, p.gpuMilli),
          cpuMilli: p.cpuMilli,
          allowedGpuModels: models,
        },
        pods: 1,
      });
  }
  return [...byKey.values()].map(({ shape, pods: count }) => ({ ...shape, pods: count }));
}

/**
 * For each level, the number of leading arrivals whose last sample A(level) averages: the last
 * arrival whose arrived % rounds to the level, or, when none does, to level + 1 (the binning's
 * fallback also reads level − 1, whose samples come earlier). null when neither bin has a sample.
 */
export function prefixLengthsAtLevels(
  arrivals: readonly TracePod[],
  capacityGpus: number,
  levelsPct: readonly number[],
): (number | null)[] {
  const lastInBin = new Map<number, number>();
  let arrived = 0;
  arrivals.forEach((p, i) => {
    arrived += p.gpuCount * p.gpuMilli;
    lastInBin.set(roundHalfEven(arrived / capacityGpus / 10), i + 1);
  });
  return levelsPct.map(
    (x) => lastInBin.get(x) ?? lastInBin.get(x + 1) ?? (lastInBin.has(x - 1) ? lastInBin.get(x - 1)! : null),
  );
}

/**
 * The bound at each level for one arrival sequence; each level starts from the columns of the
 * levels solved before it.
 */
export function unallocatedBoundAtLevels(
  nodes: readonly TraceNode[],
  arrivals: readonly TracePod[],
  levelsPct: readonly number[],
  solver: LinearProgramSolver,
  options: Omit<ConfigurationLpOptions, 'columns'> = {},
): (LevelBound | null)[] {
  const types = nodeTypesOf(nodes);
  const capacityGpus = types.reduce((sum, t) => sum + t.nodes * t.gpuCount, 0);
  const prefixes = prefixLengthsAtLevels(arrivals, capacityGpus, levelsPct);
  // Shapes are numbered by first arrival, so a longer prefix keeps the shorter one's numbers and
  // every level can start from the columns of the levels before it.
  const columns: FillingColumn[] = [];
  return levelsPct.map((levelPct, i) => {
    const length = prefixes[i];
    if (length === null || length === undefined) return null;
    const shapes = shapesOf(arrivals.slice(0, length));
    const { maxAllocatedGpuMilli } = maxAllocatableGpuMilli(types, shapes, solver, { ...options, columns });
    // A float sum may sit a hair under the exact optimum; nudge it up before rounding.
    const maxAllocationPct = round2(Math.min(100, (maxAllocatedGpuMilli * (1 + 1e-9)) / capacityGpus / 10));
    return { levelPct, arrivals: length, maxAllocationPct, unallocatedPctBound: round2(100 - maxAllocationPct) };
  });
}

/**
 * The bound at each level for the replay of `pods` on `nodes` with `seed`: the same arrivals as
 * `runPackingReplay` (the plan is drawn first from the seeded stream).
 */
export function replayUnallocatedBound(
  nodes: readonly TraceNode[],
  pods: readonly TracePod[],
  inflation: number,
  seed: number,
  levelsPct: readonly number[],
  solver: LinearProgramSolver,
  options: Omit<ConfigurationLpOptions, 'columns'> = {},
): (LevelBound | null)[] {
  const capacityGpuMilli = nodes.reduce((sum, n) => sum + (n.gpuModel === null ? 0 : n.gpuCount), 0) * 1000;
  const plan = buildArrivalPlan(
    pods,
    nodes.map((n) => n.name),
    capacityGpuMilli,
    inflation,
    new SeededRng(seed),
  );
  return unallocatedBoundAtLevels(nodes, plan.arrivals, levelsPct, solver, options);
}
