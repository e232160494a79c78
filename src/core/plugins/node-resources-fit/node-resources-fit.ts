/**
 * Filter: the node has enough free CPU and host memory for the pod (Kubernetes NodeResourcesFit,
 * which the FGD authors' simulator keeps enabled: it checks CPU and memory requests).
 */
import { FIT_REFUSALS } from '../../framework/allocation.js';
import type { FilterPlugin } from '../../framework/extension-points.js';

/** Plugin name. */
export const NAME = 'node-resources-fit';

/** Creates the filter. */
export function createNodeResourcesFit(): FilterPlugin {
  return {
    name: NAME,
    filter({ pod }, node) {
      if (pod.cpuMilli > node.freeCpuMilli) return FIT_REFUSALS.insufficientCpu;
      if (pod.hostMemoryMiB > node.freeHostMemoryMiB) return FIT_REFUSALS.insufficientHostMemory;
      return null;
    },
  };
}
