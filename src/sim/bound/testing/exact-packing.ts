/**
 * The exact integer program the packing bound relaxes, for small instances in tests: binary
 * y[p][n] (pod p on node n) and x[p][n][g] (pod p uses GPU g of node n). Each pod on at most one
 * node, on exactly gpuCount GPUs of it, each GPU's milli-GPU ≤ 1000, node CPU, GPU models.
 */
import type { LinearProgramSolver, LinearRow } from '../../../lib/linear-program.js';
import { shapeAllowsModel, type BoundNodeType, type BoundShape } from '../bound-types.js';

/** One node of a small instance (a node type with `nodes` = 1 each). */
export type SmallNode = Omit<BoundNodeType, 'nodes'>;
/** One pod of a small instance. */
export type SmallPod = Omit<BoundShape, 'pods'>;

/** Most milli-GPU any packing of `pods` on `nodes` allocates (solved exactly). */
export function exactMaxAllocatedGpuMilli(
  nodes: readonly SmallNode[],
  pods: readonly SmallPod[],
  solver: LinearProgramSolver,
): number {
  const objective: number[] = [];
  const rows: LinearRow[] = [];
  const upper: number[] = [];
  const column = (value: number): number => {
    objective.push(value);
    upper.push(1);
    return objective.length - 1;
  };
  const y = pods.map((p) => nodes.map(() => column(p.gpuCount * p.gpuMilli)));
  const x = pods.map(() => nodes.map((n) => Array.from({ length: n.gpuCount }, () => column(0))));
  pods.forEach((p, i) => {
    rows.push({ terms: nodes.map((_, n) => [y[i]![n]!, 1] as const), upper: 1 });
    nodes.forEach((node, n) => {
      if (!shapeAllowsModel(p, node.gpuModel) || p.gpuCount > node.gpuCount)
        rows.push({ terms: [[y[i]![n]!, 1]], upper: 0 });
      // Σ_g x = gpuCount · y, as two ≤ rows.
      const gpus = x[i]![n]!.map((j) => [j, 1] as const);
      rows.push({ terms: [...gpus, [y[i]![n]!, -p.gpuCount]], upper: 0 });
      rows.push({ terms: [...gpus.map(([j]) => [j, -1] as const), [y[i]![n]!, p.gpuCount]], upper: 0 });
      for (const j of x[i]![n]!)
        rows.push({
          terms: [
            [j, 1],
            [y[i]![n]!, -1],
          ],
          upper: 0,
        });
    });
  });
  nodes.forEach((node, n) => {
    rows.push({ terms: pods.map((p, i) => [y[i]![n]!, p.cpuMilli] as const), upper: node.cpuMilli });
    for (let g = 0; g < node.gpuCount; g++)
      rows.push({ terms: pods.map((p, i) => [x[i]![n]![g]!, Math.min(1000, p.gpuMilli)] as const), upper: 1000 });
  });
  const solution = solver.solve({ objective, rows, columnUpper: upper, integer: true });
  if (solution.status !== 'optimal') throw new Error(`exact packing: ${solution.detail}`);
  return Math.round(solution.objective);
}

/** The bound's inputs for a small instance: one node type per node, one shape per pod. */
export function asBoundInput(
  nodes: readonly SmallNode[],
  pods: readonly SmallPod[],
): { types: BoundNodeType[]; shapes: BoundShape[] } {
  return { types: nodes.map((n) => ({ ...n, nodes: 1 })), shapes: pods.map((p) => ({ ...p, pods: 1 })) };
}
