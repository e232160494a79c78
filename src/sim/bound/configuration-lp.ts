/**
 * The configuration LP of the packing bound (docs/packing-bound.md, decision 0042): the most GPU
 * that any packing of the given pods onto the given nodes can allocate, relaxed to a linear
 * program whose columns are fillings of one node of a type. Solved by column generation (pricing:
 * `bestNodeFilling`); the bound returned is the Lagrangian value at the last prices, which is an
 * upper bound for any prices ≥ 0, so it stays valid whatever the solver's precision or the number
 * of rounds.
 */
import { shapeFitsNodeType, shapeGpuMilli, type BoundNodeType, type BoundShape } from './bound-types.js';
import type { LinearProgramSolver, LinearRow } from '../../lib/linear-program.js';
import { bestNodeFilling, DEFAULT_CPU_STEPS, type NodeFilling } from './node-filling.js';

/** A column: one filling of a node of type `type`. */
export interface FillingColumn {
  readonly type: number;
  readonly filling: NodeFilling;
  /** GPU milli the filling allocates. */
  readonly gpuMilli: number;
}

/** Result of one bound computation. */
export interface AllocationBound {
  /** Upper bound on the milli-GPU any packing allocates (≤ capacity and ≤ the GPU request). */
  readonly maxAllocatedGpuMilli: number;
  /** The restricted LP's value at the end (a lower estimate of the LP's optimum), milli-GPU. */
  readonly lpValueGpuMilli: number;
  /** Column-generation rounds run. */
  readonly rounds: number;
}

/** Tuning of the column generation. */
export interface ConfigurationLpOptions {
  /** Stop when the Lagrangian bound is within this many milli-GPU of the LP value. @defaultValue 500 */
  readonly gapGpuMilli?: number;
  /** Most rounds. @defaultValue 200 */
  readonly maxRounds?: number;
  /** See `bestNodeFilling`. */
  readonly cpuSteps?: number;
  /** Columns to start from (e.g. the previous arrival level's); kept and extended in place. */
  readonly columns?: FillingColumn[];
}

/**
 * Upper bound on the GPU any placement can allocate to `shapes` on `types`.
 * @throws Error when the solver does not report an optimum of the restricted LP
 */
export function maxAllocatableGpuMilli(
  types: readonly BoundNodeType[],
  shapes: readonly BoundShape[],
  solver: LinearProgramSolver,
  options: ConfigurationLpOptions = {},
): AllocationBound {
  const gap = options.gapGpuMilli ?? 500;
  const maxRounds = options.maxRounds ?? 200;
  const cpuSteps = options.cpuSteps ?? DEFAULT_CPU_STEPS;
  const columns = options.columns ?? [];
  const gpuOf = shapes.map(shapeGpuMilli);
  const placeable = shapes.map((s) => (types.some((t) => shapeFitsNodeType(s, t)) ? s.pods : 0));
  const request = placeable.reduce((sum, pods, s) => sum + pods * gpuOf[s]!, 0);
  const capacity = types.reduce((sum, t) => sum + t.nodes * t.gpuCount * 1000, 0);
  let best = Math.min(request, capacity);
  if (best === 0) return { maxAllocatedGpuMilli: 0, lpValueGpuMilli: 0, rounds: 0 };
  let prices = shapes.map(() => 0);
  let nodePrices = types.map(() => 0);
  let lpValue = 0;
  let rounds = 0;
  if (columns.length === 0) columns.push(...singleShapeColumns(types, shapes, gpuOf));
  const seen = new Set(columns.map(columnKey));
  while (rounds < maxRounds) {
    rounds++;
    let lagrangian = prices.reduce((sum, p, s) => sum + p * placeable[s]!, 0);
    let added = 0;
    types.forEach((type, t) => {
      const filling = bestNodeFilling(
        type,
        shapes,
        gpuOf.map((g, s) => g - prices[s]!),
        cpuSteps,
      );
      lagrangian += type.nodes * Math.max(0, filling.value);
      if (filling.value <= nodePrices[t]! + 1e-6) return;
      const column = { type: t, filling, gpuMilli: [...filling.pods].reduce((sum, [s, n]) => sum + n * gpuOf[s]!, 0) };
      const key = columnKey(column);
      if (seen.has(key)) return;
      seen.add(key);
      columns.push(column);
      added++;
    });
    best = Math.min(best, lagrangian);
    if (added === 0 && rounds > 1) break;
    const solution = solver.solve(masterProgram(types, shapes, placeable, columns));
    if (solution.status !== 'optimal') throw new Error(`packing bound: the LP solver reported '${solution.detail}'`);
    lpValue = solution.objective;
    nodePrices = types.map((_, t) => solution.rowDuals[t]!);
    prices = shapes.map((_, s) => solution.rowDuals[types.length + s]!);
    if (best - lpValue <= gap) break;
  }
  return { maxAllocatedGpuMilli: best, lpValueGpuMilli: lpValue, rounds };
}

/**
 * Starting columns: for each node type and each shape that fits it, a node filled with as many pods
 * of that shape alone as its GPUs and CPU take (so every shape has a column from the first round).
 */
function singleShapeColumns(
  types: readonly BoundNodeType[],
  shapes: readonly BoundShape[],
  gpuOf: readonly number[],
): FillingColumn[] {
  const columns: FillingColumn[] = [];
  types.forEach((type, t) => {
    shapes.forEach((shape, s) => {
      if (shape.pods <= 0 || !shapeFitsNodeType(shape, type)) return;
      // k GPUs each with gpuMilli: floor(1000 / gpuMilli) such slices per GPU, any k distinct GPUs.
      const byGpu = Math.floor((type.gpuCount * Math.floor(1000 / shape.gpuMilli)) / shape.gpuCount);
      const byCpu = shape.cpuMilli === 0 ? byGpu : Math.floor(type.cpuMilli / shape.cpuMilli);
      const pods = Math.min(byGpu, byCpu);
      if (pods <= 0) return;
      columns.push({
        type: t,
        filling: { value: pods * gpuOf[s]!, pods: new Map([[s, pods]]) },
        gpuMilli: pods * gpuOf[s]!,
      });
    });
  });
  return columns;
}

function columnKey(column: FillingColumn): string {
  const pods = [...column.filling.pods].sort(([a], [b]) => a - b).map(([s, n]) => `${s}:${n}`);
  return `${column.type}|${pods.join(',')}`;
}

/** Rows: one per node type (Σ columns ≤ nodes), then one per shape (Σ pods placed ≤ pods). */
function masterProgram(
  types: readonly BoundNodeType[],
  shapes: readonly BoundShape[],
  placeable: readonly number[],
  columns: readonly FillingColumn[],
): { objective: number[]; rows: LinearRow[] } {
  const typeTerms = types.map((): [number, number][] => []);
  const shapeTerms = shapes.map((): [number, number][] => []);
  columns.forEach((column, j) => {
    typeTerms[column.type]!.push([j, 1]);
    for (const [s, n] of column.filling.pods) shapeTerms[s]!.push([j, n]);
  });
  return {
    objective: columns.map((c) => c.gpuMilli),
    rows: [
      ...types.map((t, i) => ({ terms: typeTerms[i]!, upper: t.nodes })),
      ...shapes.map((_, s) => ({ terms: shapeTerms[s]!, upper: placeable[s]! })),
    ],
  };
}
