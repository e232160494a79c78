/**
 * Filter: the node has enough free CPU and host memory for the pod (Kubernetes NodeResourcesFit,
 * which the FGD authors' simulator keeps enabled: it checks CPU and memory requests).
 */
import { hostRefusal } from '../../framework/allocation.js';
import type { FilterPlugin } from '../../framework/extension-points.js';

/** Plugin name. */
export const NAME = 'node-resources-fit';

/** Creates the filter. */
export function createNodeResourcesFit(): FilterPlugin {
  return {
    name: NAME,
    filter({ pod }, node) {
      return hostRefusal(node, pod);
    },
  };
}
