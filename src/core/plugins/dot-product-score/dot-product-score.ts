/**
 * Score of the DotProd baseline (docs/simulator.md "Policies", "dimext merge, norm max"):
 * trunc(100·(1 − v/2)) with v = (c_n/128000)·(c_t/128000) + (G_n/8000)·(D_t/8000), where c_n and
 * G_n are the node's free CPU milli and free milli-GPU before placement and c_t, D_t the pod's
 * CPU and total GPU request. Smaller dot product wins.
 */
import { totalGpuMilli } from '../../framework/resource-demand.js';
import type { ScorePlugin } from '../../framework/extension-points.js';

/** Plugin name. */
export const NAME = 'dot-product-score';

/** Normalisers of the authors' code: the largest node has 128 vCPU and 8 GPUs. */
export const MAX_NODE_CPU_MILLI = 128000;
export const MAX_NODE_GPU_MILLI = 8000;

/** Creates the score plugin. */
export function createDotProductScore(): ScorePlugin {
  return {
    name: NAME,
    cacheable: true,
    score({ pod }, node) {
      let v = 0;
      v += (node.freeCpuMilli / MAX_NODE_CPU_MILLI) * (pod.cpuMilli / MAX_NODE_CPU_MILLI);
      v += (node.idleGpuMilli() / MAX_NODE_GPU_MILLI) * (totalGpuMilli(pod) / MAX_NODE_GPU_MILLI);
      return Math.trunc(100 * (1 - v / 2));
    },
  };
}
