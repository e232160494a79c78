/**
 * GPU-equivalents of a trace pod, through the core's one measure (`gpuEquivalents`,
 * src/core/fairness/gpu-equivalents.ts).
 */
import { gpuEquivalents, type ResourceDemand } from '../../core/index.js';

/**
 * Size of a trace pod's request in whole-GPU equivalents. The trace names no GPU memory (the
 * request's `gpuMemoryMiB` is 0), so memory counts "in proportion to compute" and the size is
 * `gpuCount × gpuMilli / 1000` (0 for a CPU-only pod); e.g. 2 GPUs at 500 milli → 1.
 */
export function traceGpuEquivalents(request: ResourceDemand): number {
  // The model memory is read only for requests that name GPU memory, which trace pods never do.
  return gpuEquivalents({ gpuCount: request.gpuCount, gpuMilli: request.gpuMilli, gpuMemoryMiB: null }, Number.NaN);
}
