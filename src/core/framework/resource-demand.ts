/**
 * What one scheduling cycle places on a node: the resource demand of a request, as the
 * framework's filters and scores see it (host CPU and memory, and `gpuCount` GPUs each with
 * `gpuMilli` of compute and `gpuMemoryMiB` of device memory, counted against the GPU's 1000 and
 * its memory). The domain's `JobRequest` (model/request.ts) turns into one with `demandOf`
 * (sharing/share-accounting.ts) once its sharing mode is known.
 */
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';

/** A resource demand. All quantities are integers. */
export interface ResourceDemand {
  /** Host CPU in milli-cores. */
  readonly cpuMilli: number;
  /** Host memory in MiB (the trace's `memory_mib`). */
  readonly hostMemoryMiB: number;
  /** Number of GPUs; 0 for a CPU-only pod. */
  readonly gpuCount: number;
  /** milli-GPU wanted on each GPU, 1..1000 (0 when `gpuCount` is 0). */
  readonly gpuMilli: number;
  /** GPU memory wanted on each GPU in MiB; 0 when the request names no GPU memory. */
  readonly gpuMemoryMiB: number;
  /** GPU models the pod may run on; empty = any model. */
  readonly allowedGpuModels: readonly string[];
}

/** Total GPU compute requested, Σ over GPUs, in milli-GPU (the FGD paper's D_t = k·d). */
export function totalGpuMilli(request: ResourceDemand): number {
  return request.gpuCount * request.gpuMilli;
}

/** True when the pod shares a GPU: exactly one GPU and less than all of it. */
export function isSharingRequest(request: ResourceDemand): boolean {
  return request.gpuCount === 1 && request.gpuMilli < GPU_MILLI_PER_GPU;
}

/**
 * A key identifying the request's scoring shape: what a cacheable score may depend on besides the
 * node (CPU, per-GPU milli, GPU count, GPU memory). Host memory and allowed GPU models only filter
 * nodes, so pods that differ only in those share a key and their cached scores.
 */
export function requestShapeKey(request: ResourceDemand): string {
  return `${request.cpuMilli}/${request.gpuMilli}/${request.gpuCount}/${request.gpuMemoryMiB}`;
}
