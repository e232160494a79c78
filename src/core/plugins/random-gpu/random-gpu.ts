/**
 * GPU choice of the Random baseline (docs/simulator.md "Policies"): a sharing pod gets a uniformly drawn GPU
 * among those that can host it (fully free ones included); a whole-GPU pod gets the lowest-index
 * fully free GPUs.
 */
import { gpuCanHost } from '../../framework/allocation.js';
import { isSharingRequest } from '../../framework/resource-demand.js';
import type { GpuSelectPlugin } from '../../framework/extension-points.js';
import { bestFitGpus } from '../best-fit-gpu/best-fit-gpu.js';

/** Plugin name. */
export const NAME = 'random-gpu';

/** Creates the GPU-selection plugin; draws from the cycle's rng. */
export function createRandomGpu(): GpuSelectPlugin {
  return {
    name: NAME,
    selectGpus({ pod, rng }, node) {
      if (!isSharingRequest(pod)) return bestFitGpus(node, pod);
      const candidates: number[] = [];
      for (let j = 0; j < node.gpuFreeMilli.length; j++) if (gpuCanHost(node, j, pod)) candidates.push(j);
      return [candidates[rng.intn(candidates.length)]!];
    },
  };
}
