/**
 * Stand-in for the core's `gpuEquivalents` (`src/core/fairness/gpu-equivalents.ts`, being
 * written). The trace names no GPU memory, so a request's size in GPUs is its compute alone.
 */
import type { PodRequest } from '../../core/index.js';

/**
 * Size of `request` in whole-GPU equivalents: `gpuCount × gpuMilli / 1000` (0 for a CPU-only pod).
 * E.g. 2 GPUs at 500 milli each → 1.
 */
export function gpuEquivalents(request: PodRequest): number {
  return (request.gpuCount * request.gpuMilli) / 1000;
}
