/**
 * The shapes the packing bound works on (docs/packing-bound.md): pods grouped into request shapes,
 * nodes into node types. Memory is left out (dropping a constraint keeps the bound valid).
 */

/** Nodes that are alike for the bound: one GPU model, GPU count and CPU. */
export interface BoundNodeType {
  readonly gpuModel: string;
  /** GPUs per node (≥ 1). */
  readonly gpuCount: number;
  /** CPU per node, milli-cores. */
  readonly cpuMilli: number;
  /** Number of such nodes. */
  readonly nodes: number;
}

/** GPU pods that are alike for the bound. */
export interface BoundShape {
  /** GPUs per pod (≥ 1). */
  readonly gpuCount: number;
  /** Milli-GPU on each of its GPUs, 1..1000 (1000: whole GPUs). */
  readonly gpuMilli: number;
  /** CPU per pod, milli-cores. */
  readonly cpuMilli: number;
  /** Allowed GPU models; empty = any. */
  readonly allowedGpuModels: readonly string[];
  /** Number of such pods arrived. */
  readonly pods: number;
}

/** GPU request of one pod of `shape`, milli-GPU. */
export function shapeGpuMilli(shape: Pick<BoundShape, 'gpuCount' | 'gpuMilli'>): number {
  return shape.gpuCount * shape.gpuMilli;
}

/** Whether a pod of `shape` may run on a GPU of `model`. */
export function shapeAllowsModel(shape: Pick<BoundShape, 'allowedGpuModels'>, model: string): boolean {
  return shape.allowedGpuModels.length === 0 || shape.allowedGpuModels.includes(model);
}

/** Whether one pod of `shape` alone fits an empty node of `type`. */
export function shapeFitsNodeType(shape: BoundShape, type: BoundNodeType): boolean {
  return shapeAllowsModel(shape, type.gpuModel) && shape.gpuCount <= type.gpuCount && shape.cpuMilli <= type.cpuMilli;
}
