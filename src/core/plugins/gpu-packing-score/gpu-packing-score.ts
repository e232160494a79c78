/**
 * Score of the GpuPacking baseline (docs/simulator.md "Policies"). CPU-only pods
 * score 0. A fully GPU-idle node scores 33 − K_n. Otherwise take the best-fit GPU set; with f of
 * them fully free the score is max(50 − f, 33); with none fully free (a sharing pod on a partly
 * used GPU) it is max(100 − ⌊Σ⌊g_j·100/1000⌋/10⌋, 50): the fuller the shared GPU, the better.
 */
import { GPU_MILLI_PER_GPU } from '../../model/quantity.js';
import type { ScorePlugin } from '../../framework/extension-points.js';
import { bestFitGpus } from '../best-fit-gpu/best-fit-gpu.js';

/** Plugin name. */
export const NAME = 'gpu-packing-score';

/** Creates the score plugin. */
export function createGpuPackingScore(): ScorePlugin {
  return {
    name: NAME,
    cacheable: true,
    score({ pod }, node) {
      if (pod.gpuCount === 0) return 0;
      const gpus = node.gpuFreeMilli.length;
      if (node.isGpuIdle()) return Math.max(33 - gpus, gpus);
      const chosen = bestFitGpus(node, pod);
      let fullyFree = 0;
      let sum = 0;
      for (const j of chosen) {
        const g = node.gpuFreeMilli[j]!;
        if (g === GPU_MILLI_PER_GPU) fullyFree++;
        sum += Math.floor((g * 100) / 1000);
      }
      if (fullyFree > 0) return Math.max(50 - fullyFree, 33);
      return Math.max(100 - Math.floor(sum / 10), 50);
    },
  };
}
