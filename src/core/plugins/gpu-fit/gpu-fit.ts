/**
 * Filter: for a GPU pod, the node's GPU model is allowed and it has `gpuCount` distinct GPUs that
 * each have the per-GPU milli and memory free (the FGD simulator's Open-Gpu-Share filter; CPU-only
 * pods pass everywhere).
 */
import { gpuRefusal } from '../../framework/allocation.js';
import type { FilterPlugin } from '../../framework/extension-points.js';

/** Plugin name. */
export const NAME = 'gpu-fit';

/** Creates the filter. */
export function createGpuFit(): FilterPlugin {
  return {
    name: NAME,
    filter({ pod }, node) {
      return gpuRefusal(node, pod);
    },
  };
}
