/**
 * Cluster-wide allocation and fragmentation of one server's GPUs, for `/metrics`
 * (`gpushare_cluster_*`). Pure.
 *
 * - Allocation: Σ allocated milli-GPU of the schedulable GPUs / (1000 × schedulable GPUs). MIG GPUs
 *   count their instances' compute slices in milli-GPU, as `GET /api/v1/gpus` shows them.
 * - Fragmentation: the FGD measure (Weng et al., "Beware of Fragmentation", USENIX ATC'23), the same
 *   code the simulator uses (src/core/fragmentation): the schedulable GPUs not in MIG mode are
 *   grouped by model into one node each (as the server's scheduler groups them), each GPU's free
 *   milli-GPU is 1000 − its allocated milli-GPU, and F = Σ_nodes F_n(M). The ratio is F over the
 *   idle milli-GPU weighted by M (Σ_nodes G_n · Σ p_m). Host CPU is left out: the server accounts
 *   it separately, so the task shapes of M ask for none. Sharing modes and GPU memory are ignored,
 *   as in FGD.
 * - The target workload M is built from the shapes of recent submitted jobs (see
 *   {@link shapeOfJob}; the caller keeps the last {@link RECENT_SHAPES_KEPT}), or from the
 *   scheduler's prior shapes while there are none.
 */
import {
  DEFAULT_PRIOR_SHAPES,
  buildTargetWorkload,
  nodeFragmentationMilli,
  nodeWeightedIdleMilli,
  type GpuRequest,
  type TargetWorkload,
  type TaskShape,
} from '../../core/index.js';

/** Jobs whose shapes make the target workload M: the most recent this many submits. */
export const RECENT_SHAPES_KEPT = 500;

/** One GPU as the cluster measures see it. */
export interface ClusterGpu {
  readonly model: string;
  readonly migEnabled: boolean;
  /** Healthy and not cordoned. */
  readonly schedulable: boolean;
  /** Allocated milli-GPU (MIG: compute slices in milli-GPU), 0..1000. */
  readonly allocatedGpuMilli: number;
}

/** Cluster-wide figures. */
export interface ClusterUsage {
  /** 1000 × schedulable GPUs. */
  readonly gpuMilliTotal: number;
  /** Σ allocated milli-GPU of the schedulable GPUs (each capped at 1000). */
  readonly allocatedMilli: number;
  /** allocatedMilli / gpuMilliTotal, 0..1; 0 when no GPU is schedulable. */
  readonly allocationRatio: number;
  /** FGD fragmentation F over the schedulable non-MIG GPUs, milli-GPU. */
  readonly fragmentationMilli: number;
  /** F / (idle milli-GPU weighted by M), 0..1; 0 when nothing is idle or M is empty. */
  readonly fragmentationRatio: number;
}

/**
 * The task shape of a job for M: its per-GPU milli-GPU and GPU count, no CPU (see the file
 * comment), any model. null for a job that asks for MIG (it goes to MIG GPUs, which M does not
 * measure).
 */
export function shapeOfJob(gpu: GpuRequest): TaskShape | null {
  if (gpu.mode === 'mig') return null;
  return { cpuMilli: 0, gpuMilli: gpu.gpuMilli, gpuCount: gpu.gpuCount, allowedGpuModels: [] };
}

/**
 * M from recent job shapes (FGD's 95% popularity cut); with no shapes, from the scheduler's prior
 * shapes (src/core/workload/online-workload.ts) without their CPU and without CPU-only types.
 */
export function targetWorkloadOf(shapes: readonly TaskShape[]): TargetWorkload {
  if (shapes.length > 0) return buildTargetWorkload(shapes);
  return buildTargetWorkload(DEFAULT_PRIOR_SHAPES.filter((s) => s.gpuCount > 0).map((s) => ({ ...s, cpuMilli: 0 })));
}

/** The cluster figures of `gpus` under target workload `workload`. */
export function clusterUsage(gpus: readonly ClusterGpu[], workload: TargetWorkload): ClusterUsage {
  const schedulable = gpus.filter((g) => g.schedulable);
  const clamp = (milli: number) => Math.min(1000, Math.max(0, milli));
  const allocatedMilli = schedulable.reduce((sum, g) => sum + clamp(g.allocatedGpuMilli), 0);
  const gpuMilliTotal = 1000 * schedulable.length;
  const freeByModel = new Map<string, number[]>();
  for (const g of schedulable) {
    if (g.migEnabled) continue;
    freeByModel.set(g.model, [...(freeByModel.get(g.model) ?? []), 1000 - clamp(g.allocatedGpuMilli)]);
  }
  let fragmentationMilli = 0;
  let weightedIdle = 0;
  for (const [model, free] of freeByModel) {
    fragmentationMilli += nodeFragmentationMilli(0, model, free, workload);
    weightedIdle += nodeWeightedIdleMilli(free, workload);
  }
  return {
    gpuMilliTotal,
    allocatedMilli,
    allocationRatio: gpuMilliTotal === 0 ? 0 : allocatedMilli / gpuMilliTotal,
    fragmentationMilli,
    fragmentationRatio: weightedIdle === 0 ? 0 : fragmentationMilli / weightedIdle,
  };
}
