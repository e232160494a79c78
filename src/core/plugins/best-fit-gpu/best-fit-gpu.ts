/**
 * GPU choice: best fit. Of the GPUs that can host the pod, take the `gpuCount` with the least free
 * milli-GPU, lower device index first on ties. For a whole-GPU pod this is the lowest-index fully
 * free GPUs. (docs/simulator.md "Policies" "best-fit", used by DotProd, GpuClustering, GpuPacking, BestFit.)
 */
import { gpuCanHost } from '../../framework/allocation.js';
import type { NodeState } from '../../framework/node-state.js';
import type { ResourceDemand } from '../../framework/resource-demand.js';
import type { GpuSelectPlugin } from '../../framework/extension-points.js';

/** Plugin name. */
export const NAME = 'best-fit-gpu';

/**
 * The best-fit GPU set of `pod` on `node`, ascending by (free milli, index).
 * @returns `pod.gpuCount` device indices, or fewer when the node cannot host the pod
 */
export function bestFitGpus(node: NodeState, pod: ResourceDemand): number[] {
  const candidates: number[] = [];
  for (let j = 0; j < node.gpuFreeMilli.length; j++) if (gpuCanHost(node, j, pod)) candidates.push(j);
  const free = node.gpuFreeMilli;
  candidates.sort((a, b) => free[a]! - free[b]! || a - b);
  return candidates.slice(0, pod.gpuCount);
}

/** Creates the GPU-selection plugin. */
export function createBestFitGpu(): GpuSelectPlugin {
  return { name: NAME, selectGpus: ({ pod }, node) => bestFitGpus(node, pod) };
}
